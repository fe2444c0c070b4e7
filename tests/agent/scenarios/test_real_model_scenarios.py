"""The agent's behaviour on a real model (Qwen2.5-Coder-1.5B, in-process), scenario by
scenario, over seven real PDF pages (see ``conftest.py``), and ``make demo``'s question
over the demo's library.

What is asserted is what the agent did, never the model's wording: the route, how many
sub-questions, the clarification interrupt and its resume, the document and page each
answer cites, abstention. ``bench/scenarios_bench.py`` runs this module several times
and prints each scenario's pass rate. Under ``CI`` a missing model fails, never skips.
"""

from __future__ import annotations

import pytest
from tests.agent.scenarios.conftest import (
    NETFLIX,
    NETFLIX_TABLE_PAGE,
    R_DATA,
    Scenarios,
    scenario_settings,
)
from tests.local_model import agent_model_ready  # noqa: F401  (pytest fixture)

from archivist.agent.prompts import abstains
from archivist.agent.service import AgentService, AnswerResult
from archivist.app.demo import GUIDE, build_pdf
from archivist.app.demo import QUESTION as DEMO_QUESTION
from archivist.application import Application
from archivist.events import Source
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.llm import make_chat_model

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("agent_model_ready")]

#: Stated in prose on the excerpt's page 3 (the 1.5B abstained over the memberships table
#: row there, "Paid memberships at end of period 52,810 47,905 43,401", with the years
#: in a header line above).
FACT = "What contribution margin did Netflix's domestic streaming segment report for 2017?"


def steps_of(result: AnswerResult, kind: str) -> list[dict]:
    return [s for s in result.steps if s.get("kind") == kind]


def cited(result: AnswerResult, document: str) -> list[Source]:
    return [s for s in result.sources if s.document_name == document]


def covers(source: Source, page: int) -> bool:
    return source.page_start is not None and source.page_start <= page <= (
        source.page_end or source.page_start)


def assert_answered_from(result: AnswerResult, document: str,
                         page: int | tuple[int, ...] | None = None) -> None:
    assert result.status == "answered", result.status
    assert not abstains(result.answer), result.answer
    sources = cited(result, document)
    assert sources, f"cites {document}: {[s.document_name for s in result.sources]}"
    if page is not None:
        pages = (page,) if isinstance(page, int) else page
        assert any(covers(s, p) for s in sources for p in pages), [s.pages for s in sources]


@pytest.fixture(scope="module")
def fact_turn(scenarios: Scenarios) -> AnswerResult:
    """The fact question, asked once: the first scenario and the follow-up's first turn."""
    result, _ = scenarios.ask(FACT)
    return result


def test_a_fact_is_answered_with_its_document_and_page(fact_turn: AnswerResult) -> None:
    assert_answered_from(fact_turn, NETFLIX, NETFLIX_TABLE_PAGE)
    assert not steps_of(fact_turn, "sub_questions")


def test_a_follow_up_is_rewritten_from_the_conversation(
    scenarios: Scenarios, fact_turn: AnswerResult
) -> None:
    result, _ = scenarios.ask("And in 2016?", fact_turn.thread_id)
    (rewrite,) = steps_of(result, "rewrite")
    words = rewrite["detail"].lower()
    assert "2016" in words and ("netflix" in words or "margin" in words), words
    searched = " ".join(s["detail"].lower() for s in steps_of(result, "search"))
    assert "2016" in searched and ("netflix" in searched or "margin" in searched), searched
    # 2016's margin is in the table and stated again on the next page ("a contribution
    # margin of 36% for the year ended December 31, 2016"): either page is its source
    assert_answered_from(result, NETFLIX, (NETFLIX_TABLE_PAGE, NETFLIX_TABLE_PAGE + 1))


def test_a_one_part_question_is_not_split(scenarios: Scenarios) -> None:
    result, _ = scenarios.ask("How can I load a comma-separated file into R?")
    assert not steps_of(result, "sub_questions")
    assert {s.get("sub_question") for s in steps_of(result, "search")} == {0}
    assert_answered_from(result, R_DATA)


def test_a_compound_question_is_split_in_two_and_researched_in_parallel(
    scenarios: Scenarios,
) -> None:
    question = ("What was Netflix's domestic streaming contribution margin in 2017, and how can "
                "I load a comma-separated file into R?")
    result, times = scenarios.ask(question)
    (split,) = steps_of(result, "sub_questions")
    parts = split["items"]
    assert len(parts) == 2, parts
    assert {s.get("sub_question") for s in steps_of(result, "search")} == {0, 1}
    # each sub-agent's first call (grading) runs while the other's is in flight
    firsts = [next(c for c in times.calls if c["question"] == part) for part in parts]
    assert max(c["start"] for c in firsts) < min(c["end"] for c in firsts), firsts
    assert_answered_from(result, NETFLIX, NETFLIX_TABLE_PAGE)
    assert_answered_from(result, R_DATA)


def test_an_ambiguous_question_asks_back_then_answers_the_reply(scenarios: Scenarios) -> None:
    asked, _ = scenarios.ask("How much did it grow in 2017?")
    assert asked.status == "clarification" and asked.clarification
    assert not steps_of(asked, "search") and not asked.sources
    thread = asked.thread_id
    assert scenarios.service.pending_clarification(thread) == asked.clarification
    result, _ = scenarios.ask("Netflix's domestic streaming contribution margin", thread)
    assert [s["kind"] for s in result.steps].count("clarification") == 1
    assert scenarios.service.pending_clarification(thread) is None
    assert_answered_from(result, NETFLIX, NETFLIX_TABLE_PAGE)


def test_an_out_of_corpus_question_gets_an_honest_abstention(scenarios: Scenarios) -> None:
    result, _ = scenarios.ask("Who painted the Veldoria triptych?")
    assert result.status == "answered"
    assert abstains(result.answer), result.answer
    assert result.confidence == "low"


def test_a_greeting_is_answered_directly_without_retrieval(scenarios: Scenarios) -> None:
    result, times = scenarios.ask("Hello! Good morning.")
    assert ("route", "direct") in {(s["kind"], s["detail"]) for s in result.steps}
    assert not steps_of(result, "search") and not result.sources
    assert result.status == "answered" and result.answer.strip()
    assert len(times.calls) <= 2  # the analysis, and a reply only if it wrote none


@pytest.fixture(scope="module")
def demo_turn(tmp_path_factory: pytest.TempPathFactory,
              embedder: SentenceTransformerEmbedder) -> AnswerResult:
    """``make demo``'s question, asked over the demo's library (the guide and its PDF)."""
    root = tmp_path_factory.mktemp("demo")
    guide_pdf = build_pdf(sorted(GUIDE.glob("*.md")), root / "archivist-guide.pdf")
    settings = scenario_settings(root / "lib")
    with Application(settings, embedder=embedder) as app:
        app.ingest.files([GUIDE, guide_pdf])
        service = AgentService(app.searcher, settings, llm=make_chat_model(settings))
        try:
            result = Scenarios(app, service).ask(DEMO_QUESTION)[0]
        finally:
            service.close()
    return result


def test_the_demo_question_is_answered_from_its_section(demo_turn: AnswerResult) -> None:
    assert demo_turn.status == "answered" and not abstains(demo_turn.answer), demo_turn.answer
    sections = [s.heading_path[-1] for s in demo_turn.sources if s.heading_path]
    assert "Staying consistent" in sections, [(s.document_name, s.pages, s.heading_path)
                                              for s in demo_turn.sources]
    assert demo_turn.claims and all(c["supported"] for c in demo_turn.claims), demo_turn.claims
