"""Tables found on real PDF pages from where the words stand (no layout model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.eval_data import require_eval

from archivist.documents.loaders import load_file
from archivist.documents.pdf_tables import find_tables
from archivist.documents.table_values import name_tables
from archivist.types import DataTable


def _table(tables: list[DataTable], page: int, first_label: str) -> DataTable:
    for table in tables:
        if table.page_start == page and table.rows and table.rows[0][0] == first_label:
            return table
    raise AssertionError(f"no table on page {page} starting with {first_label!r}: "
                         f"{[(t.page_start, t.rows[0][0]) for t in tables]}")


@pytest.fixture(scope="module")
def netflix() -> list[DataTable]:
    """The 10-K's tables (``load_pdf`` finds them this way; its Markdown takes 9 CPU s)."""
    import pymupdf

    with pymupdf.open(require_eval() / "pdfs" / "NETFLIX_2017_10K.pdf") as doc:
        tables = find_tables(doc, list(range(doc.page_count)))
    name_tables(tables)
    return tables


def test_the_10k_statement_of_operations_is_a_typed_table_by_default(
    netflix: list[DataTable],
) -> None:
    table = _table(netflix, 42, "Revenues")
    assert table.columns == ["item", "section", "y2017", "y2016", "y2015"]
    assert table.unit == "thousands"
    assert "CONSOLIDATED STATEMENTS OF OPERATIONS" in table.caption
    assert table.name == "consolidated_statements_of_operations_2"  # page 19 has the first
    rows = {(row[1], row[0]): row[2:] for row in table.rows}
    assert rows[(None, "Revenues")] == [11692713, 8830669, 6779511]
    assert rows[("Other income (expense)", "Interest expense")] == [-238204, -150114, -132716]
    assert rows[("Earnings per share", "Diluted")] == [1.25, 0.43, 0.28]
    assert rows[("Weighted-average common shares outstanding", "Diluted")] == [
        446814, 438652, 436456]


def test_a_header_of_several_lines_and_a_blank_cell(netflix: list[DataTable]) -> None:
    obligations = _table(netflix, 30, "Streaming content obligations (1)")
    assert obligations.columns[1:] == [
        "total", "less_than_1_year", "c_1_3_years", "c_3_5_years", "more_than_5_years"]
    assert obligations.rows[0][1:] == [17694642, 7446947, 8210159, 1894001, 143535]
    balance = _table(netflix, 45, "Cash and cash equivalents")
    short_term = next(row for row in balance.rows if row[0] == "Short-term investments")
    assert short_term[2:] == [None, 266206]  # "—" in 2017


def _statement_pdf(path: Path) -> Path:
    """Two pages: a statement whose header is its third line, continued on page 2."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=letter)
    rows = [(f"Region {n}", f"{n * 1000 + 17:,}", f"({n * 10})") for n in range(1, 41)]
    for page, chunk in enumerate((rows[:25], rows[25:])):
        y = 740
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawString(72, y, "Sales by Region" + (" (continued)" if page else ""))
        y -= 16
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, y, "(in thousands)")
        y -= 16
        pdf.drawRightString(400, y, "Sales")
        pdf.drawRightString(500, y, "Change")
        y -= 14
        for label, sales, change in chunk:
            pdf.drawString(72, y, label)
            pdf.drawRightString(400, y, sales)
            pdf.drawRightString(500, y, change)
            y -= 14
        pdf.showPage()
    pdf.save()
    return path


def test_a_table_spanning_two_pages_is_joined(tmp_path: Path) -> None:
    loaded = load_file(_statement_pdf(tmp_path / "sales.pdf"))
    assert len(loaded.tables) == 1
    table = loaded.tables[0]
    assert (table.page_start, table.page_end) == (1, 2)
    assert table.columns == ["item", "sales", "change"]
    assert len(table.rows) == 40
    assert table.rows[-1] == ["Region 40", 40017, -400]
    assert table.unit == "thousands"
    assert table.name == "sales_by_region"
