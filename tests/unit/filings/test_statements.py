"""Statements found among made-up tables: titled, broken into pieces, by their periods."""

from __future__ import annotations

from datetime import date

from archivist.filings.concepts import CONCEPTS, matching_row
from archivist.filings.periods import parse_date
from archivist.filings.statements import period_of, statement_tables
from archivist.types import Cell, DataTable, LoadedDocument, PageSpan


def _table(caption: str, labels: list[str], rows: list[list[Cell]], page: int,
           unit: str = "") -> DataTable:
    columns = ["item", *(f"col{i}" for i in range(1, len(labels)))]
    return DataTable(caption=caption, columns=columns, labels=labels,
                     kinds=["text", *["number"] * (len(labels) - 1)], rows=rows, unit=unit,
                     page_start=page, page_end=page)


ASSETS = _table("HALVERSTON MILLS, INC. CONSOLIDATED BALANCE SHEETS (in thousands) As of "
                "December 31,", ["", "2024", "2023"], [
                    ["Cash and cash equivalents", 410, 380], ["Total current assets", 1900, 1700],
                    ["Total assets", 5200, 4800], ["Accounts payable", 300, 280],
                    ["Total current liabilities", 900, 850], ["Total liabilities", 3100, 2950]],
                27, "thousands")
EQUITY = _table("issued and outstanding at December 31, 2024 and 2023", ["", "", ""], [
    ["Retained earnings", 1500, 1300], ["Total stockholders\u2019 equity", 2100, 1850],
    ["Total liabilities and stockholders\u2019 equity", 5200, 4800]], 27)
NOTE = _table("Property consisted of the following:", ["", "2024", "2023", "Useful life"], [
    ["Land", 40, 40, 0], ["Buildings", 400, 380, 30]], 28)


def _loaded(tables: list[DataTable]) -> LoadedDocument:
    text = "Halverston Mills balance sheet\n"
    return LoadedDocument("1.pdf", text, [PageSpan(0, len(text), 27)], 30, tables=tables)


def test_an_untitled_table_right_after_a_statement_continues_it() -> None:
    (balance,) = statement_tables(_loaded([ASSETS, EQUITY, NOTE]))
    assert balance.name == "balance_sheet"
    assert balance.columns == ["line_item", "fy2024", "fy2023", "page"]
    items = [row[0] for row in balance.rows]
    assert items[-3:] == ["Retained earnings", "Total stockholders\u2019 equity",
                          "Total liabilities and stockholders\u2019 equity"]
    assert balance.rows[-2][1:] == [2100, 1850, 27]
    assert "Land" not in items  # a table of another width is no part of it


def test_a_titled_or_distant_table_is_no_continuation() -> None:
    titled = _table("CONSOLIDATED STATEMENTS OF CASH FLOWS", ["", "2024", "2023"],
                    [["Net income", 90, 80]], 27)
    later = _table("", ["", "", ""], [["Retained earnings", 1500, 1300]], 29)
    for after in (titled, later):
        (balance, *_) = statement_tables(_loaded([ASSETS, after]))
        assert [row[0] for row in balance.rows][-1] == "Total liabilities"


def test_a_statement_titled_only_by_its_page_is_found() -> None:
    """A filing printing the statement's title above the table, outside its caption."""
    untitled = _table("Year Ended December 31,", ["", "2024", "2023"], [
        ["Revenues", 900, 800], ["Cost of sales", 400, 380],
        ["Income from continuing operations before provision/(benefit) for taxes on income",
         200, 150], ["Provision/(benefit) for taxes on income", 30, 20],
        ["Net income", 170, 130]], 27)
    note = _table("Revenues by region", ["", "2024", "2023"],
                  [["North", 500, 400], ["South", 400, 400]], 27)
    text = "Consolidated Statements of Income Halverston Mills, Inc. Year Ended December 31,\n"
    loaded = LoadedDocument("1.pdf", text, [PageSpan(0, len(text), 27)], 30,
                            tables=[untitled, note])
    (income,) = statement_tables(loaded)
    assert income.name == "income_statement"
    assert [row[0] for row in income.rows][0] == "Revenues"
    labels = [str(row[0]) for row in income.rows]
    assert labels[matching_row(CONCEPTS["income_tax"], labels) or 0].startswith("Provision")
    assert matching_row(CONCEPTS["pretax_income"], labels) == 2


def test_a_twelve_week_quarter_and_a_date_in_figures() -> None:
    period = period_of("3/25/2023", "Statement of Income (in millions) 12 Weeks Ended", False)
    assert period is not None and period.name == "q2023_03_25" and period.months == 3
    half = period_of("June 17, 2023", "24 Weeks Ended", False)
    assert half is not None and half.months == 6
    assert parse_date("as of 12/31/2022") == date(2022, 12, 31)


def test_net_property_and_equipment_is_read_as_each_filer_prints_it() -> None:
    concept = CONCEPTS["property_and_equipment"]
    for labels, row in (
            (["Goodwill", "Property and equipment, net of accumulated depreciation of $9 and $8"],
             1),
            (["Property and equipment", "Land and buildings", "Net property and equipment"], 2),
            (["Property, plant and equipment, net", "Total assets"], 0)):
        assert matching_row(concept, labels) == row, labels
