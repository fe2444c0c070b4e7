"""Cell texts to typed tables: numbers as printed, header rows found, SQL-safe names."""

from __future__ import annotations

import pytest

from archivist.documents.table_values import (
    data_table,
    name_tables,
    names_the_rows,
    parse_cell,
    render_markdown,
    sql_name,
    unit_of,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("$ 11,692,713", 11692713),
        ("(238,204)", -238204),
        ("$ (91,770)", -91770),
        ("$(0.05)", -0.05),
        ("-1,234.5", -1234.5),
        ("10%", 10),
        ("(1)%", -1),
        ("12.5 %", 12.5),
        ("—", None),
        ("$ —", None),
        ("n/a", None),
        ("", None),
        ("1.29", 1.29),
        ("Revenues", "Revenues"),
        ("2.24% - 2.45%", "2.24% - 2.45%"),
        ("(1", "(1"),
    ],
)
def test_cells_parse_as_printed(text: str, value: object) -> None:
    assert parse_cell(text) == value


def test_unit_comes_from_the_caption_or_header() -> None:
    assert unit_of("(in thousands, except per share data)") == "thousands"
    assert unit_of("2023 $ million") == "millions"
    assert unit_of("($ million, except per share amounts)") == "millions"
    assert unit_of("Revenue by region") == ""


def test_names_are_sql_identifiers_and_unique() -> None:
    used: set[str] = set()
    assert sql_name("2017", "c", used) == "y2017"
    assert sql_name("Change 2017 vs. 2016 %", "c", used) == "change_2017_vs_2016_pct"
    assert sql_name("1-3 years", "c", used) == "c_1_3_years"
    assert sql_name("Order", "c", used) == "order_"
    assert sql_name('x"; DROP TABLE t; --', "c", used) == "x_drop_table_t"
    assert sql_name("2017", "c", used) == "y2017_2"
    assert sql_name("", "col3", used) == "col3"


@pytest.mark.parametrize(
    ("header", "named"),
    [("Segment", True), ("Region", True), ("Line item", True), ("", False),
     ("In millions", False), ("(in thousands, except per share data)", False),
     ("Fiscal Years Ended", False), ("June 30", False), ("Twelve months to 2023", False),
     ("Payments due by period for the obligations listed below", False)],
)
def test_a_row_label_header_names_the_rows_only_when_it_is_a_short_name(
        header: str, named: bool) -> None:
    assert names_the_rows(header) is named


def test_the_row_labels_are_called_item_when_their_header_names_no_rows() -> None:
    period_corner = data_table([["Fiscal Years Ended", "March 2, 2024", "March 4, 2023"],
                                ["Revenue", "1,200", "1,100"], ["Net income", "90", "80"]],
                               "Statements of earnings")
    named_corner = data_table([["Segment", "2024", "2023"], ["Pumps", "700", "650"],
                               ["Valves", "500", "450"]], "Revenue by segment")
    assert period_corner is not None and named_corner is not None
    assert period_corner.columns[0] == "item"
    assert period_corner.labels[0] == "Fiscal Years Ended"
    assert named_corner.columns[0] == "segment"


def test_header_is_found_below_title_rows_and_above_the_first_figures() -> None:
    grid = [
        ["Consolidated Statements of Operations", "", "", ""],
        ["", "Year ended December 31,", "", ""],
        ["", "2017", "2016", "2015"],
        ["Revenues", "$ 11,692,713", "$ 8,830,669", "$ 6,779,511"],
        ["Earnings per share:", "", "", ""],
        ["Basic", "$ 1.29", "$ 0.44", "$ 0.29"],
        ["Diluted", "1.25", "0.43", "—"],
    ]
    table = data_table(grid, "(in thousands, except per share data)", (42, 42))
    assert table is not None
    assert table.columns == ["item", "section", "y2017", "y2016", "y2015"]
    assert table.kinds == ["text", "text", "number", "number", "number"]
    assert table.rows[0] == ["Revenues", None, 11692713, 8830669, 6779511]
    assert table.rows[2] == ["Diluted", "Earnings per share", 1.25, 0.43, None]
    assert table.unit == "thousands"
    assert "Consolidated Statements of Operations" in table.caption
    assert "Year ended December 31," in table.caption
    assert (table.page_start, table.page_end) == (42, 42)


def test_a_text_table_takes_its_first_wide_row_as_header() -> None:
    table = data_table([["Name", "City"], ["Ada", "London"], ["Grace", "Arlington"]])
    assert table is not None
    assert table.columns == ["name", "city"]
    assert table.rows == [["Ada", "London"], ["Grace", "Arlington"]]


def test_an_unnamed_percent_column_is_named_after_the_change_before_it() -> None:
    grid = [["", "2017 vs. 2016", ""], ["Revenues", "2,862,044", "32 %"],
            ["Costs", "1,000", "5%"]]
    table = data_table(grid)
    assert table is not None
    assert table.columns == ["item", "c_2017_vs_2016", "c_2017_vs_2016_pct"]
    assert table.rows[0][2] == 32


def test_grids_without_values_are_not_tables() -> None:
    assert data_table([["only one column"], ["x"]]) is None
    assert data_table([["a", "b"]]) is None


def test_tables_are_named_from_their_caption_title() -> None:
    first = data_table([["", "2017"], ["Revenues", "1"], ["Costs", "2"]],
                       "NETFLIX, INC. CONSOLIDATED STATEMENTS OF OPERATIONS (in thousands) "
                       "Year ended December 31,")
    second = data_table([["", "2017"], ["Revenues", "1"], ["Costs", "2"]],
                        "Consolidated Statements of Operations:")
    assert first is not None and second is not None
    name_tables([first, second])
    assert first.name == "consolidated_statements_of_operations"
    assert second.name == "consolidated_statements_of_operations_2"


def test_markdown_rendering_escapes_pipes() -> None:
    table = data_table([["Name", "n"], ["a|b", "1"], ["c", "2"]])
    assert table is not None
    assert render_markdown(table).splitlines()[2] == "| a\\|b | 1 |"
