"""A chain of bridge hops: each answer that names a page no search reached is followed,
up to ``agent.max_hops`` (a real library, the model scripted, invented places and people)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import (
    done,
    ingested_library,
    numbered_passages,
    on_subject_only,
    run,
    steps,
)

from archivist.agent.policy import SMALL
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel


@pytest.fixture
def make_service(make_service):
    """The hops alone (see :func:`tests.agent.helpers.on_subject_only`)."""
    return on_subject_only(make_service)

DOCS = {
    "observatory.md": "# Zelmar Observatory\n\nThe Zelmar Observatory stands on the Korvath "
                      "plateau. It was founded by the astronomer Ilse Varga in 1968.\n",
    "varga.md": "# Ilse Varga\n\nIlse Varga was born in Tessendorf. She studied optics in "
                "Graz and built her first telescope at twenty.\n",
    "tessendorf.md": "# Tessendorf\n\nTessendorf is a market town on the river Alder, known "
                     "for its salt works and a bridge of nine arches.\n",
    "bakery.md": "# Rye bread\n\nRye bread is baked from a sourdough starter for an hour.\n",
}
QUESTION = "On which river lies the birthplace of the founder of the Zelmar Observatory?"
WRITE = "Answer the user's question from the numbered passages"
#: what the writer says, by the furthest page of the chain it was shown (the text it reads)
STEPS = [("river Alder", "The birthplace lies on the river Alder [{n}]."),
         ("born in Tessendorf", "Ilse Varga was born in Tessendorf [{n}]."),
         ("founded by", "The observatory was founded by Ilse Varga [{n}].")]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _writer(writes: list[str]):
    """Answers with the next link of the chain the passages shown reach (a small model's way:
    it names the entity of the furthest page it read)."""
    def rule(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        prompt = str(messages[-1].content)
        writes.append(prompt)
        passages = numbered_passages(prompt)
        for mark, reply in STEPS:
            found = [n for n, text in passages.items() if mark in text]
            if found:
                return reply.format(n=found[0])
        return "The documents do not say."

    return rule


@pytest.mark.parametrize(("max_hops", "answer", "hops"), [(2, "Alder", 2), (1, "Tessendorf", 1)])
def test_each_hop_follows_the_name_the_last_answer_stated(
        make_service, library: Application, max_hops: int, answer: str, hops: int) -> None:
    writes: list[str] = []
    service = make_service(ScriptedChatModel(rules=[_writer(writes)]), library=library,
                           checks=SMALL, max_hops=max_hops)
    events = run(service, QUESTION)
    assert len(steps(events, "next_hop")) == hops
    assert len(writes) == hops + 1
    final = done(events)["answer"]
    assert answer in final, final


def test_no_hop_without_the_setting(make_service, library: Application) -> None:
    writes: list[str] = []
    service = make_service(ScriptedChatModel(rules=[_writer(writes)]), library=library,
                           checks=SMALL, max_hops=0)
    events = run(service, QUESTION)
    assert not steps(events, "next_hop") and len(writes) == 1
