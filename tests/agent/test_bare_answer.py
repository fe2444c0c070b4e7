"""A small model's bare answer that no cited sentence links to the question is put to the
verification call as the answer to the question (a real library, the model scripted)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, ingested_library, run, steps, unit_number, verifier_says

from archivist.agent.policy import SMALL
from archivist.agent.prompts import abstains
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

DOCS = {  # invented: Latin is named only in the gloss of a nickname
    "brand.md": "# Oskar Brand\n\nOskar Brand was a scholar of Vellmar in an era when "
                "many books were being translated. His nickname was Magister (Latin for "
                "teacher).\n",
    "bakery.md": "# Rye bread\n\nRye bread is baked from a sourdough starter for an hour.\n",
}
QUESTION = "What language were books being translated into during the era of Oskar Brand?"
WRITE = "Answer the user's question from the numbered passages"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    yield from ingested_library(tmp_path_factory, embedder, DOCS)


def _names_latin(messages: list[BaseMessage], info: CallInfo) -> str | None:
    """The 1.5B's way: the one language the page names, cited to the gloss."""
    if WRITE not in str(messages[0].content):
        return None
    return f"Latin [{unit_number(messages, 'Latin for teacher')}]"


def test_an_unlinked_bare_answer_is_asked_as_the_answer_and_may_be_vetoed(
        make_service, library: Application) -> None:
    asked: list[str] = []
    events = run(make_service(ScriptedChatModel(rules=[verifier_says("No", asked),
                                                       _names_latin]),
                              library=library, checks=SMALL), QUESTION)
    assert asked == ["The answer to the question is Latin."]
    answer = done(events)["answer"]
    assert abstains(answer), answer
    assert "(Latin for teacher)" in answer  # what was found: the passage it was read from
    assert any("the model found" in s["detail"] for s in steps(events, "claims"))

    asked.clear()
    events = run(make_service(ScriptedChatModel(rules=[verifier_says("Yes", asked),
                                                       _names_latin]),
                              library=library, checks=SMALL), QUESTION)
    assert asked == ["The answer to the question is Latin."]
    assert done(events)["answer"].startswith("Latin")


def test_a_capable_model_bare_answer_is_not_put_to_a_call(
        make_service, library: Application) -> None:
    asked: list[str] = []
    events = run(make_service(ScriptedChatModel(rules=[verifier_says("No", asked),
                                                       _names_latin]),
                              library=library), QUESTION)
    assert asked == [] and done(events)["answer"].startswith("Latin")


def test_every_sentence_verified_puts_a_bare_name_as_the_answer_and_a_list_as_written(
        make_service, library: Application) -> None:
    asked: list[str] = []
    run(make_service(ScriptedChatModel(rules=[verifier_says("Yes", asked), _names_latin]),
                     library=library, verify_claims=True), QUESTION)
    assert asked == ["The answer to the question is Latin."]

    def names_two(messages: list[BaseMessage], info: CallInfo) -> str | None:
        if WRITE not in str(messages[0].content):
            return None
        n = unit_number(messages, "Latin for teacher")
        return f"- Latin [{n}]\n- Magister [{n}]"

    asked.clear()
    run(make_service(ScriptedChatModel(rules=[verifier_says("Yes", asked), names_two]),
                     library=library, verify_claims=True), QUESTION)
    assert asked == ["- Latin", "- Magister"]  # as written, list marks and all
