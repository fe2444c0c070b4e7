"""CSV, TSV and XLSX files are documents: one typed table per sheet and a Markdown rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from archivist.documents.loaders import SUPPORTED_SUFFIXES, load_file
from archivist.types import LoadError


def test_a_csv_with_a_title_row_is_one_table(tmp_path: Path) -> None:
    path = tmp_path / "segments.csv"
    path.write_text("Segment results (in thousands),,\n"
                    "Segment,Revenue,Margin\n"
                    'Domestic,"$6,153,025",36.0%\n'
                    'International,"5,089,191",(3.9)%\n'
                    "DVD,—,\n", encoding="utf-8")
    loaded = load_file(path)
    assert ".csv" in SUPPORTED_SUFFIXES
    (table,) = loaded.tables
    assert table.name == "segments"
    assert table.columns == ["segment", "revenue", "margin"]
    assert table.kinds == ["text", "number", "number"]
    assert table.rows == [["Domestic", 6153025, 36.0], ["International", 5089191, -3.9],
                          ["DVD", None, None]]
    assert table.unit == "thousands"
    assert "## segments" in loaded.markdown
    assert "| Domestic | 6153025 | 36 |" in loaded.markdown


def test_a_tsv_and_every_sheet_of_a_workbook(tmp_path: Path) -> None:
    import openpyxl

    tsv = tmp_path / "rates.tsv"
    tsv.write_text("year\trate\n2016\t1.5\n2017\t2.25\n", encoding="utf-8")
    assert load_file(tsv).tables[0].rows == [[2016, 1.5], [2017, 2.25]]

    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    first.title = "Revenue 2017"
    for row in [["Quarter", "Revenue"], ["Q1", 2636], ["Q2", 2785]]:
        first.append(row)
    second = book.create_sheet("Members")
    for row in [["Region", "Paid"], ["US", 52810], ["Intl", 57834]]:
        second.append(row)
    book.save(tmp_path / "book.xlsx")
    loaded = load_file(tmp_path / "book.xlsx")
    assert [t.name for t in loaded.tables] == ["revenue_2017", "members"]
    assert loaded.tables[1].rows == [["US", 52810], ["Intl", 57834]]
    assert "## Members" in loaded.markdown


def test_a_damaged_workbook_or_an_empty_sheet_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LoadError, match="bad.xlsx"):
        load_file(bad)
    lonely = tmp_path / "lonely.csv"
    lonely.write_text("just one line\n", encoding="utf-8")
    with pytest.raises(LoadError, match="lonely.csv: no table"):
        load_file(lonely)


def test_markdown_and_word_tables_are_kept_as_data(tmp_path: Path) -> None:
    import docx

    note = tmp_path / "plan.md"
    note.write_text("# Budget\n\n## Costs by team\n\n| Team | Cost |\n|---|---|\n"
                    "| Ops \\| infra | $1,200 |\n| Web | (300) |\n", encoding="utf-8")
    (table,) = load_file(note).tables
    assert (table.name, table.columns) == ("costs_by_team", ["team", "cost"])
    assert table.rows == [["Ops | infra", 1200], ["Web", -300]]

    document = docx.Document()
    document.add_heading("Head count", level=1)
    grid = document.add_table(rows=3, cols=2)
    for r, row in enumerate([["Region", "People"], ["North", "1,024"], ["South", "—"]]):
        for c, text in enumerate(row):
            grid.cell(r, c).text = text
    document.save(str(tmp_path / "people.docx"))
    (table,) = load_file(tmp_path / "people.docx").tables
    assert table.rows == [["North", 1024], ["South", None]] and table.name == "head_count"
