"""A table query's result rows named by their labels; why an empty result may be empty;
a one-row answer states its row's figures."""

from __future__ import annotations

from archivist.agent.research.table_result import (
    empty_result_hint,
    labelled_query,
    ranked_total_hint,
    unfiltered_sum_hint,
    with_result_figures,
)
from archivist.index.table_sql import SqlResult
from archivist.index.table_store import StoredTable

OBLIGATIONS = StoredTable(
    "d1_0", "c", "d1", "obligations", "Contractual obligations (in thousands)", [], 31, 31,
    "thousands", ["obligation", "total", "within_1_year"], ["", "Total", "Less than 1 year"],
    ["text", "number", "number"], 4, ["Leases", "Debt", "Purchase obligations", "Total"])
RESULTS = StoredTable(
    "d1_1", "c", "d1", "results", "Selected results", [], 2, 2, "millions",
    ["item", "section", "y2023", "y2022"], ["", "", "2023", "2022"],
    ["text", "text", "number", "number"], 3, ["Net sales", "Cost of sales", "Gross profit"])


def test_a_query_of_bare_figures_gets_the_row_labels_first() -> None:
    assert labelled_query("SELECT y2023 - y2022 FROM results", [OBLIGATIONS, RESULTS]) == \
        'SELECT "item", y2023 - y2022 FROM results'
    assert labelled_query("SELECT total FROM obligations WHERE total > 5", [OBLIGATIONS]) == \
        'SELECT "obligation", total FROM obligations WHERE total > 5'


def test_a_ranking_that_selects_only_labels_gets_the_figure_it_ranks_by() -> None:
    query = "SELECT obligation FROM obligations ORDER BY total DESC LIMIT 1"
    assert labelled_query(query, [OBLIGATIONS]) == \
        'SELECT obligation, "total" FROM obligations ORDER BY total DESC LIMIT 1'


def test_aggregates_joins_distinct_and_complete_queries_are_left_alone() -> None:
    for query in ("SELECT SUM(total) FROM obligations",
                  "SELECT count(*) FROM obligations WHERE obligation <> 'Total'",
                  "SELECT DISTINCT total FROM obligations",
                  "SELECT * FROM obligations",
                  "SELECT obligation, total FROM obligations ORDER BY total DESC LIMIT 1",
                  "SELECT o.total FROM obligations o, results r",
                  "SELECT o.total FROM obligations o JOIN results r ON 1",
                  "SELECT y2023 FROM results GROUP BY section",
                  "SELECT y2023 FROM elsewhere",
                  "WITH x AS (SELECT total FROM obligations) SELECT total FROM x"):
        assert labelled_query(query, [OBLIGATIONS, RESULTS]) is None, query


def test_a_row_label_the_table_lacks_is_named_with_the_labels_it_has() -> None:
    hint = empty_result_hint("SELECT y2023 FROM results WHERE item = 'Net revenue'", [RESULTS])
    assert "results has no row labelled 'Net revenue'" in hint
    assert "'Net sales'" in hint and "'Gross profit'" in hint
    assert hint.index("'Net sales'") < hint.index("'Gross profit'")  # the closest first


def test_a_year_compared_with_its_own_column_is_named() -> None:
    hint = empty_result_hint("SELECT item FROM results WHERE y2023 = 2023", [RESULTS])
    assert "y2023 holds the figures of 2023" in hint


def test_an_empty_result_with_no_visible_mistake_has_no_hint() -> None:
    assert empty_result_hint("SELECT item FROM results WHERE item = 'Net sales' AND "
                             "y2023 > 100000", [RESULTS]) == ""
    assert empty_result_hint("SELECT item FROM results WHERE section = 'Other'", [RESULTS]) == ""


def test_a_ranking_that_put_the_total_row_first_is_told_to_leave_it_out() -> None:
    query = "SELECT obligation, total FROM obligations ORDER BY total DESC LIMIT 1"
    hint = ranked_total_hint(query, [OBLIGATIONS], ["Total", 9100])
    assert "'Total', which sums the rows above it" in hint
    assert "WHERE obligation NOT LIKE 'Total%'" in hint
    assert ranked_total_hint(query, [OBLIGATIONS], ["Debt", 5200]) == ""
    assert ranked_total_hint("SELECT obligation, total FROM obligations WHERE total > 1",
                             [OBLIGATIONS], ["Total", 9100]) == ""  # no ranking


def test_a_ranking_answered_by_name_alone_gets_the_figure_that_ranked_it() -> None:
    result = SqlResult(["obligation", "total"], [["Purchase obligations", 4_815_118]])
    assert with_result_figures("Purchase obligations were the largest. [1]", result, None,
                               {"thousands"}) == \
        "Purchase obligations were the largest (total: 4,815,118, in thousands). [1]"
    assert with_result_figures("Purchase obligations", result, None, {"thousands", "millions"}) \
        == "Purchase obligations (total: 4,815,118)"


def test_an_answer_stating_the_figure_or_a_result_of_many_rows_is_left_alone() -> None:
    one = SqlResult(["item", "value"], [["Gross profit", 1203.5]])
    assert with_result_figures("Gross profit was 1,203.5 million.", one, None, ()) == \
        "Gross profit was 1,203.5 million."
    assert with_result_figures("Gross profit was 1,203.50 million.", one, 2, ()) == \
        "Gross profit was 1,203.50 million."
    many = SqlResult(["item", "y2023"], [["Leases", 10], ["Debt", 20]])
    assert with_result_figures("Debt was larger.", many, None, ()) == "Debt was larger."
    hundred = SqlResult(["item", "y2023"], [["Leases", 100]])
    assert with_result_figures("Leases, 1 of the lines.", hundred, None, ()) == \
        "Leases, 1 of the lines (y2023: 100)."  # 100 is not the 1 stated
    labels = SqlResult(["item", "year"], [["Leases", 2023]])  # a year is no figure
    assert with_result_figures("Leases.", labels, None, ()) == "Leases."


def test_a_sum_over_every_line_item_is_retried_with_the_rows_to_pick() -> None:
    hint = unfiltered_sum_hint("SELECT SUM(y2023) + SUM(y2022) FROM results", [RESULTS])
    assert hint == ""  # a table of like rows without a Total may be summed whole
    statement = StoredTable(
        "d1_2", "c", "d1", "income_statement", "Statement of income", [], 5, 5, "millions",
        ["line_item", "fy2023"], ["", "FY2023"], ["text", "number"], 3,
        ["Revenue", "Cost of revenue", "Operating income"])
    hint = unfiltered_sum_hint('SELECT SUM("fy2023") FROM "income_statement"', [statement])
    assert "WHERE line_item = '...'" in hint and "'Cost of revenue'" in hint
    assert "WHERE obligation" in unfiltered_sum_hint("SELECT SUM(total) FROM obligations",
                                                     [OBLIGATIONS])
    assert unfiltered_sum_hint(
        "SELECT SUM(fy2023) FROM income_statement WHERE line_item = 'Revenue'", [statement]) == ""
    assert unfiltered_sum_hint("SELECT fy2023 FROM income_statement", [statement]) == ""
