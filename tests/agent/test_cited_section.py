"""A citation names the section of the sentence it cites: the deepest heading above the
cited unit, not the first heading of the chunk the unit was cut from (a real library, the
model scripted)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, ingested_library, run, unit_number

from archivist.application import Application
from archivist.events import Source
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

DOCS = {  # invented; the whole file is one chunk holding three sections
    "guide.md": "# Guide\n\nThis guide covers the quokka toolkit.\n\n"
                "## Installation on Linux\n\n"
                "To install the quokka toolkit on Linux run the quokka-setup script as root "
                "and reboot.\n\n"
                "## Usage\n\nStart the toolkit with the quokka command and pick a project.\n",
}
QUESTION = "How do I install the quokka toolkit on Linux?"
WRITE = "Answer the user's question from the numbered passages"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _quotes_the_setup_sentence(messages: list[BaseMessage], info: CallInfo) -> str | None:
    if WRITE not in str(messages[0].content):
        return None
    n = unit_number(messages, "quokka-setup script")
    assert n is not None, "the setup sentence is not among the writer's passages"
    return f"Run the quokka-setup script as root and reboot [{n}]."


def test_the_sources_line_names_the_cited_sentences_section(
        make_service, library: Application) -> None:
    (section,) = library.store.parents_of(library.store.resolve("guide.md").document_id)
    assert len(section.sections or []) == 3  # one chunk, three sections: the shape
    events = run(make_service(ScriptedChatModel(rules=[_quotes_the_setup_sentence]),
                              library=library), QUESTION)
    assert "quokka-setup" in done(events)["answer"]
    (sources,) = [e.data["sources"] for e in events if e.type == "sources"]
    (source,) = [Source(**s) for s in sources]
    assert source.heading_path == ["Guide", "Installation on Linux"]
    assert source.label() == "guide.md, § Guide › Installation on Linux"
