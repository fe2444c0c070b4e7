"""``agent.evidence_tokens``: how much evidence the answer is written from (a real library,
the model scripted)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import ingested_library, run

from archivist.agent.policy import SMALL
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

WRITE = "Answer the user's question from the numbered passages"
PARTS = ["feeder", "platen", "ribbon", "cutter", "spool", "lamp"]
DOCS = {  # an invented printer: every section says something about it
    f"{part}.md": f"# Quillmark printer {part}\n\n" + " ".join(
        f"The Quillmark printer {part} step {n} takes {n + 2} seconds and uses the {part} "
        f"lever number {n}." for n in range(1, 7)) + "\n"
    for part in PARTS
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _written_from(make_service, library: Application, **settings: object) -> str:
    prompts: list[str] = []

    def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompts.append(str(messages[-1].content))
        return "The documents do not say."

    service = make_service(ScriptedChatModel(rules=[writer]), library=library, checks=SMALL,
                           max_hops=0, **settings)
    run(service, "How long does each step of the Quillmark printer take?")
    assert prompts, "the answer was not written"
    return prompts[0]


def test_a_larger_evidence_budget_shows_the_writer_more(make_service,
                                                        library: Application) -> None:
    small = _written_from(make_service, library, evidence_tokens=100)
    large = _written_from(make_service, library, evidence_tokens=3000)
    assert small.count("Quillmark") < large.count("Quillmark")
    assert len(small) < len(large)


HOPS = {  # an invented game: its studio's page does not name the game
    "lanternfall.md": "# Lanternfall\n\nLanternfall is a puzzle game published by Copperwick "
                      "Games in 2011.\n",
    "copperwick.md": "# Copperwick Games\n\nCopperwick Games is a studio founded by Idris Vane "
                     "in Leeds.\n",
    "espresso.md": "# Espresso\n\nEspresso is brewed at nine bars of pressure.\n",
}


@pytest.fixture(scope="module")
def hops(tmp_path_factory: pytest.TempPathFactory,
         embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, HOPS)


def test_the_searchs_first_hits_reach_the_writer_when_asked(make_service,
                                                            hops: Application) -> None:
    def written(kept: int) -> str:
        prompts: list[str] = []

        def writer(messages: list[BaseMessage], info: CallInfo) -> str | None:
            if WRITE in str(messages[0].content):
                prompts.append(str(messages[-1].content))
                return "The documents do not say."
            return None

        service = make_service(ScriptedChatModel(rules=[writer]), library=hops, checks=SMALL,
                               max_hops=0, search_hits_kept=kept)
        run(service, "Who founded the studio that published Lanternfall?")
        assert prompts, "the answer was not written"
        return prompts[0]

    assert "Idris Vane" not in written(0)  # the studio's page does not name the game
    assert "Idris Vane" in written(2)
