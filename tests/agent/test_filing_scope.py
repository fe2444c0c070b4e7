"""A question naming a company, form or fiscal period draws from that filing alone."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from archivist.agent.state import QuestionAnalysis
from archivist.agent.tools import search_candidates
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import CallInfo, ScriptedChatModel

from .helpers import done, grader_with_hop, run, steps, unit_number

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "filings"))
from fake_filings import harbor_10q, widget_10k  # noqa: E402


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    """Two made-up filings with the same statement lines, named by number only."""
    root = tmp_path_factory.mktemp("filings")
    (root / "docs").mkdir()
    widget_10k(root / "docs" / "1.pdf")
    harbor_10q(root / "docs" / "2.pdf")
    made = Application(Settings(data_dir=root / "library", agent={"policy": "capable"}),
                       embedder=embedder)
    assert made.ingest.files([root / "docs"]).counts["added"] == 2
    yield made
    made.close()


def test_a_question_naming_a_company_searches_its_filing(make_service,
                                                         filings: Application) -> None:
    events = run(make_service(ScriptedChatModel(), library=filings, table_queries=False),
                 "What were Harborline Foods' net revenues for the quarter?")
    (within,) = steps(events, "within_document")[:1]
    assert within["document"] == "2.pdf"
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert {s["document_name"] for s in sources["sources"]} <= {"2.pdf"}
    assert done(events)["status"] == "answered"


def test_a_sub_question_keeps_to_the_filing_its_question_names(make_service,
                                                               filings: Application) -> None:
    """A split that drops the company's name still searches that company's filing only."""
    subs = ["What were the net revenues for the quarter?",
            "What was the operating income for the quarter?"]

    def split(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        return QuestionAnalysis(sub_questions=subs) if info.schema else None

    events = run(make_service(ScriptedChatModel(rules=[split]), library=filings,
                              table_queries=False),
                 "What were Harborline Foods' net revenues and operating income for the quarter?")
    assert steps(events, "sub_questions")[0]["items"] == subs
    within = steps(events, "within_document")
    assert within and {step["document"] for step in within} == {"2.pdf"}
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert {s["document_name"] for s in sources["sources"]} == {"2.pdf"}


def test_a_search_keeps_to_its_questions_filings_unless_it_names_one_of_them(
        filings: Application) -> None:
    retriever = filings.searcher.retriever()
    names = {d.document_id: d.name for d in retriever.documents()}

    def searched(query: str, scope: str = "") -> set[str]:
        return {names[h.document_id] for h in search_candidates(retriever, retriever, query, 6,
                                                                scope=scope)}

    assert searched("What were net revenues?") == {"1.pdf", "2.pdf"}
    assert searched("What were net revenues?", "What did Harborline Foods earn?") == {"2.pdf"}
    both = "Compare Quillfeather Instruments and Harborline Foods on revenue."
    assert searched("What were net revenues?", both) == {"1.pdf", "2.pdf"}
    assert searched("What were Quillfeather's net revenues?", both) == {"1.pdf"}


def test_a_next_hop_is_bound_only_by_the_filings_its_own_query_names(
        make_service, filings: Application) -> None:
    """The question's search keeps to its filing; the hop the grader proposes does not."""
    hop = "net revenues for the quarter"
    events = run(make_service(ScriptedChatModel(rules=[grader_with_hop(hop)]), library=filings,
                              table_queries=False, strategy="pipeline"),
                 "What were Harborline Foods' operating expenses for the quarter?")
    assert [s["detail"] for s in steps(events, "next_hop")] == [hop]
    assert [s["document"] for s in steps(events, "within_document")] == ["2.pdf"]
    searched = [s["detail"] for s in steps(events, "search")]
    assert searched[:2] == ["What were Harborline Foods' operating expenses for the quarter?",
                            hop]


def test_a_claim_searched_for_support_keeps_to_the_questions_filing(
        make_service, filings: Application) -> None:
    """A figure its passage lacks is looked for in the filing the question names only."""
    def writes_a_figure_its_unit_lacks(messages: list[BaseMessage], info: CallInfo) -> str | None:
        n = None if info.schema or info.tools else unit_number(messages, "Net revenues")
        return None if n is None else f"Total assets were 4,150 [{n}]."

    events = run(make_service(ScriptedChatModel(rules=[writes_a_figure_its_unit_lacks]),
                              library=filings, table_queries=False, strategy="pipeline"),
                 "What were Harborline Foods' net revenues for the quarter?")
    searched = [s for s in steps(events, "search") if "claim names" in s.get("reason", "")]
    assert [s["detail"] for s in searched] == ["Total assets were 4,150."]
    assert [s["document"] for s in steps(events, "within_document")] == ["2.pdf", "2.pdf"]
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert {s["document_name"] for s in sources["sources"]} <= {"2.pdf"}
