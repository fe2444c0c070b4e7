"""The two development filings, under numeric file names: metadata and statements."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.eval_data import require_eval

from archivist.documents.pdf_tables import find_tables
from archivist.documents.table_values import name_tables
from archivist.filings.document import filing_of
from archivist.types import DataTable, LoadedDocument, PageSpan


def _page_text(path: Path) -> LoadedDocument:
    """The PDF's page texts and tables as the loader finds them (its Markdown takes 9 CPU s)."""
    import pymupdf

    with pymupdf.open(path) as doc:
        texts = [page.get_text() for page in doc]
        tables = find_tables(doc, list(range(doc.page_count)))
    name_tables(tables)
    spans, markdown = [], ""
    for number, text in enumerate(texts, start=1):
        spans.append(PageSpan(len(markdown), len(markdown) + len(text), number))
        markdown += text + "\n"
    return LoadedDocument(str(path), markdown, spans, len(texts), tables=tables)


def _loaded(name: str, tmp_path: Path, number: int) -> tuple[dict[str, object],
                                                             dict[str, DataTable]]:
    source = require_eval() / "pdfs" / name
    copy = tmp_path / f"{number}.pdf"  # the file name says nothing of the filing
    shutil.copyfile(source, copy)
    loaded = _page_text(copy)
    fields = filing_of(loaded)
    return fields, {t.name: t for t in loaded.tables}


def _row(table: DataTable, label: str) -> list[object]:
    return next(row for row in table.rows if row[0] == label)


@pytest.fixture(scope="module")
def netflix(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object],
                                                                dict[str, DataTable]]:
    return _loaded("NETFLIX_2017_10K.pdf", tmp_path_factory.mktemp("dev"), 1)


def test_the_10k_cover_gives_its_metadata(netflix: tuple[dict[str, object], object]) -> None:
    fields = netflix[0]
    assert fields == {"company": "Netflix, Inc.", "ticker": "NFLX", "form": "10-K",
                      "fiscal_year": 2017, "fiscal_quarter": None, "fiscal_year_end": "12-31",
                      "period": "2017-12-31"}


def test_the_10k_statements_are_typed_tables_with_their_pages(
    netflix: tuple[object, dict[str, DataTable]],
) -> None:
    tables = netflix[1]
    income, balance, cash = (tables["income_statement"], tables["balance_sheet"],
                             tables["cash_flow_statement"])
    assert income.columns == ["line_item", "section", "fy2017", "fy2016", "fy2015", "page"]
    assert income.unit == balance.unit == cash.unit == "thousands"
    assert _row(income, "Operating income")[2:] == [838679, 379793, 305826, 42]
    assert balance.columns == ["line_item", "section", "fy2017", "fy2016", "page"]
    assert _row(balance, "Total current assets")[2:] == [7669974, 5720291, 45]
    assert _row(cash, "Purchases of property and equipment")[2:] == [
        -173302, -107653, -91248, 44]


def test_an_earnings_release_under_a_number(tmp_path: Path) -> None:
    fields, tables = _loaded("AMCOR_2023Q4_EARNINGS.pdf", tmp_path, 7)
    assert (fields["company"], fields["ticker"], fields["form"]) == (
        "Amcor plc", "AMCR", "earnings release")
    assert (fields["fiscal_year"], fields["fiscal_quarter"], fields["period"]) == (
        2023, 4, "2023-06-30")
    income = tables["income_statement"]
    assert income.columns == ["line_item", "q2022_06_30", "q2023_06_30", "fy2022", "fy2023",
                              "page"]
    assert income.unit == "millions"
    assert tables["balance_sheet"].columns == ["line_item", "d2022_06_30", "d2023_06_30", "page"]
