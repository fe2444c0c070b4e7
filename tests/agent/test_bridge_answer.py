"""A small model's bare answer that names what a two-hop question describes (the bridge)
is made the sentence of the bridge's own page that states what is asked (a real library,
the model scripted)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, ingested_library, run, steps, unit_number

from archivist.agent.policy import SMALL
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

DOCS = {  # invented: what the painter depicts is only on her own page
    "forum.md": "# Lakeside Forum\n\nThe Lakeside Forum is a lecture series in Korvath. "
                "Speakers at the Lakeside Forum included the poet Ben Moss and the painter "
                "Ada Crane.\n",
    "crane.md": "# Ada Crane\n\nAda Crane was born in Tessendorf in 1950. She is a painter "
                "known for her watercolour depictions of harbour towns.\n",
    "bakery.md": "# Rye bread\n\nRye bread is baked from a sourdough starter for an hour.\n",
}
QUESTION = ("Speakers at the Lakeside Forum included a painter known for her watercolour "
            "depictions of what?")
WRITE = "Answer the user's question from the numbered passages"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _names_the_painter(writes: list[str]):
    """The 1.5B's way: the painter's name, cited to the passage that names her, every time."""
    def rule(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        writes.append(str(messages[-1].content))
        return f"Ada Crane [{unit_number(messages, 'the painter Ada Crane')}]"

    return rule


def test_a_bare_answer_naming_the_bridge_is_made_what_its_page_says(
        make_service, library: Application) -> None:
    writes: list[str] = []
    events = run(make_service(ScriptedChatModel(rules=[_names_the_painter(writes)]),
                              library=library, checks=SMALL), QUESTION)
    assert any("harbour towns" in w for w in writes)  # the writer saw the page, and named her
    (past,) = steps(events, "past_the_bridge")
    assert "describes" in past["detail"]
    answer = done(events)["answer"]
    assert "watercolour depictions of harbour towns" in answer, answer
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert [c["supported"] for c in sources["claims"]] == [True]
    assert answer.startswith("Ada Crane: She is a painter"), answer
    assert {s["document_name"] for s in sources["sources"]} == {"crane.md"}


def test_a_capable_model_answer_is_kept_as_written(
        make_service, library: Application) -> None:
    writes: list[str] = []
    events = run(make_service(ScriptedChatModel(rules=[_names_the_painter(writes)]),
                              library=library), QUESTION)
    assert not steps(events, "past_the_bridge")
    assert done(events)["answer"].startswith("Ada Crane")
