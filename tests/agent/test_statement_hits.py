"""A search kept to a filing shows the statement that prints the line items a question asks for."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from archivist.agent.evidence.statement_hits import (
    MAX_FILINGS,
    MAX_SHOWN,
    statement_hits,
    statements_asked,
)
from archivist.agent.tools import search_candidates
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.table_store import StoredTable
from archivist.settings import Settings
from archivist.types import DocumentRecord, Parent

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "filings"))
from fake_filings import BALANCE, CASH, INCOME, cover_lines  # noqa: E402


def _asked(question: str) -> dict[str, list[str]]:
    return {kind: [c.name for c in concepts]
            for kind, concepts in statements_asked(question).items()}


def test_a_line_item_asks_for_the_statement_that_prints_it() -> None:
    assert _asked("What were Brindlewood's capital expenditures in FY2021?") == {
        "cash_flow_statement": ["capital_expenditure"]}
    assert _asked("How much did Brindlewood owe in accounts payable at year end?") == {
        "balance_sheet": ["accounts_payable"]}


def test_a_standard_metric_asks_for_the_statements_of_its_formula() -> None:
    assert _asked("What is Brindlewood's FY2021 current ratio?") == {
        "balance_sheet": ["total_current_assets", "total_current_liabilities"]}
    asked = _asked("What was the operating margin of Brindlewood in 2020?")
    assert asked == {"income_statement": ["operating_income", "revenue"]}


def test_a_named_statement_is_asked_for_and_comes_first() -> None:
    asked = _asked("Using the cash flow statement, what was Brindlewood's net income?")
    assert list(asked) == ["cash_flow_statement", "income_statement"]
    assert asked["cash_flow_statement"] == []


def test_a_question_with_no_line_item_asks_for_no_statement() -> None:
    assert _asked("What is the capital of Veldoria?") == {}
    assert _asked("Who chairs the audit committee, and what are its assets of judgement?") == {}
    assert _asked("What were the main risks the company named?") == {}


def _record(document_id: str) -> DocumentRecord:
    return DocumentRecord(document_id, "default", f"/x/{document_id}.pdf", f"{document_id}.pdf",
                          "h", 1, 9, 3, 9, "2024-01-01", company="Brindlewood Mills, Inc.",
                          form="10-K", fiscal_year=2021)


def _table(document_id: str, name: str, page: int, labels: list[str]) -> StoredTable:
    return StoredTable(f"{document_id}-{name}", "default", document_id, name, name.upper(), [],
                       page, page, "millions", ["line_item", "fy2021", "page"],
                       row_labels=labels)


def _parents(document_id: str) -> list[Parent]:
    return [Parent(f"{document_id}-p1", document_id, 0, "Our capital expenditures rose as we "
                   "built two mills.", ["MD&A"], 4, 4),
            Parent(f"{document_id}-p2", document_id, 1, "CASH_FLOW_STATEMENT Net income 10 "
                   "Depreciation 2", ["Statements"], 7, 7),
            Parent(f"{document_id}-p3", document_id, 2, "Purchases of property and equipment "
                   "(5) Net cash used in investing activities (5)", ["Statements"], 7, 8)]


def test_the_hit_is_the_section_printing_the_asked_row() -> None:
    tables = [_table("a", "cash_flow_statement", 7,
                     ["Net income", "Depreciation", "Purchases of property and equipment"])]
    (hit,) = statement_hits("What were Brindlewood's capital expenditures in FY2021?",
                            [_record("a")], tables, _parents, 0.5)
    assert (hit.parent_id, hit.page_start, hit.score) == ("a-p3", 7, 0.5)
    assert "Brindlewood Mills" in hit.document_about
    # with no asked row printed, the section holding the statement's first row
    (hit,) = statement_hits("Per the cash flow statement, how did Brindlewood fund its mills?",
                            [_record("a")], tables, _parents, 0.5)
    assert hit.parent_id == "a-p2"
    assert hit.text.startswith("CASH_FLOW_STATEMENT")
    assert hit.statement == "cash_flow_statement"


def test_statement_hits_are_few_and_only_for_a_few_filings() -> None:
    documents = [_record(str(n)) for n in range(MAX_FILINGS + 1)]
    tables = [_table(d.document_id, kind, 7, ["Net income", "Total current assets",
                                               "Purchases of property and equipment"])
              for d in documents for kind in ("cash_flow_statement", "balance_sheet")]
    question = "What were Brindlewood's capex and current ratio?"
    assert statement_hits(question, documents, tables, _parents, 1.0) == []
    shown = statement_hits(question, documents[:MAX_FILINGS], tables, _parents, 1.0)
    assert len(shown) == MAX_SHOWN
    assert statement_hits("Who founded Brindlewood?", documents[:1], tables, _parents, 1.0) == []


def _prose_filing(path: Path) -> Path:
    """A 10-K whose MD&A pages talk about capital expenditures before its cash-flow statement."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=letter)
    for pages in (cover_lines("Brindlewood Mills, Inc.", "10-K", "December 31, 2021", "BWM"),):
        y = 740
        for line in pages:
            pdf.drawString(72, y, line)
            y -= 18
        pdf.showPage()
    for page in range(5):
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawString(72, 740, f"MANAGEMENT'S DISCUSSION, PART {page + 1}")
        pdf.setFont("Helvetica", 10)
        for line in range(12):
            pdf.drawString(72, 700 - 16 * line, f"Capital expenditures in fiscal 2021 for mill "
                           f"line {page}-{line} were planned with our lenders and suppliers.")
        pdf.showPage()
    for title, rows in (("CONSOLIDATED STATEMENTS OF OPERATIONS", INCOME),
                        ("CONSOLIDATED BALANCE SHEETS", BALANCE),
                        ("CONSOLIDATED STATEMENTS OF CASH FLOWS", CASH)):
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawString(72, 740, title)
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 724, "(in millions)")
        pdf.drawRightString(400, 700, "2021")
        pdf.drawRightString(480, 700, "2020")
        for n, (label, *values) in enumerate(rows):
            pdf.drawString(72, 684 - 14 * n, label)
            for x, value in zip((400, 480), values, strict=True):
                pdf.drawRightString(x, 684 - 14 * n, value)
        pdf.showPage()
    pdf.save()
    return path


@pytest.fixture(scope="module")
def prose_filing(tmp_path_factory: pytest.TempPathFactory,
                 embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    root = tmp_path_factory.mktemp("prose")
    (root / "docs").mkdir()
    _prose_filing(root / "docs" / "1.pdf")
    made = Application(Settings(data_dir=root / "library"), embedder=embedder)
    assert made.ingest.files([root / "docs"]).counts["added"] == 1
    yield made
    made.close()


def test_a_search_in_a_filing_shows_its_statement_second(prose_filing: Application) -> None:
    retriever = prose_filing.searcher.retriever()
    question = "What were Brindlewood Mills' capital expenditures in fiscal 2021?"
    statement_page = 9  # cover, five MD&A pages, income statement, balance sheet, cash flows
    plain = retriever.search(question, k=4)
    assert statement_page not in {h.page_start for h in plain}  # prose outranks the grid
    hits = search_candidates(retriever, retriever, question, 4)
    assert len(hits) == 4
    assert hits[0].statement == ""
    shown = hits[1]
    assert shown.statement == "cash_flow_statement"
    assert shown.page_start <= statement_page <= shown.page_end
    # the section from the statement's title on: its header of years and the asked row
    lines = shown.text.splitlines()
    assert "CONSOLIDATED STATEMENTS OF CASH FLOWS" in lines[0]
    assert any("2021" in line and "2020" in line for line in lines[1:])
    assert any(line.startswith("Purchases of property and equipment") for line in lines)
    assert "BALANCE SHEETS" not in shown.text  # the statement printed before it is left out


def test_a_best_hit_on_the_statement_leaves_the_statement_first(prose_filing: Application
                                                                ) -> None:
    retriever = prose_filing.searcher.retriever()
    question = "Per the cash flow statement, what were Brindlewood Mills' purchases of property?"
    hits = search_candidates(retriever, retriever, question, 4)
    assert hits[0].statement == "cash_flow_statement"
    assert len({hit.parent_id for hit in hits}) == len(hits)  # no section shown twice
