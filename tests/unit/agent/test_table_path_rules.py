"""The table path's rules by code: when it applies, which tables, what the query is."""

from __future__ import annotations

from archivist.agent.research.table_choice import (
    asks_for_computation,
    counted_things,
    goes_to_tables,
    holds_sheet_rows,
    names_a_year,
    relevant_tables,
)
from archivist.agent.research.tables import (
    column_hint,
    extract_sql,
    query_aliases,
    query_picks_what_is_asked,
    row_labels_text,
    without_aliases,
)
from archivist.agent.state import Evidence
from archivist.index.table_store import StoredTable
from archivist.stopwords import singular


def _table(name: str, caption: str, rows: list[str], doc: str = "d1",
           pages: tuple[int, int] = (42, 42)) -> StoredTable:
    return StoredTable(f"{doc}_{name}", "c", doc, name, caption, ["Item 8"], pages[0], pages[1],
                       "thousands", ["item", "y2017"], ["", "2017"], ["text", "number"],
                       len(rows), rows)


def test_computations_counts_rankings_and_comparisons_take_the_table_path() -> None:
    for question in ("By how much did revenues grow from 2016 to 2017?",
                     "Which segment had the highest margin?",
                     "How many categories of obligations are listed?",
                     "What were total revenues for 2015-2017?",
                     "What were the licence fees summed over 2019 and 2020?",
                     "What are the first-half and second-half sales added together?"):
        assert asks_for_computation(question), question
    assert not asks_for_computation("Who audits Brightwave?")


def test_a_reason_for_a_figure_is_read_not_computed() -> None:
    for question in ("What drove the increase in Brightwave's operating income in 2024?",
                     "Why did Brightwave's gross margin decline in 2024?",
                     "What were the main reasons for the growth in Brightwave's revenue?",
                     "Which factors caused the change in Brightwave's net income?"):
        assert not asks_for_computation(question), question


def test_a_sheets_passage_sends_any_question_to_the_tables_a_pdf_page_does_not() -> None:
    # a spreadsheet's passage shows its first rows only; a PDF page's text holds its table
    tables = [_table("segments", "Segment results", ["Streaming", "DVD"], pages=(22, 22))]

    def passage(name: str) -> list[Evidence]:
        return [Evidence(kind="hit", parent_id="p", document_id="d1", document_name=name,
                         pages="p. 22", page_start=22, page_end=22, sub_question=0,
                         text="Streaming 6,153,025 5,077,307 DVD 450,497 527,152")]

    question = "What did the streaming segment earn in 2017?"
    assert holds_sheet_rows(passage("segments.csv"), tables)
    assert goes_to_tables(question, passage("segments.csv"), tables)
    assert goes_to_tables("Who leads the streaming segment?", passage("Segments.XLSX"), tables)
    assert not goes_to_tables(question, passage("annual-report.pdf"), tables)
    assert not goes_to_tables(question, [], tables)
    assert goes_to_tables("Which segment earned the most?", passage("report.pdf"), tables)
    assert not goes_to_tables("Which segment earned the most?", passage("report.pdf"), [])
    other = [_table("segments", "Segment results", ["Streaming"], doc="d2")]
    assert not holds_sheet_rows(passage("segments.csv"), other)  # not that sheet's table


def test_tables_are_ranked_by_shared_words_then_the_evidence_pages() -> None:
    operations = _table("operations", "Consolidated statements of operations",
                        ["Revenues", "Operating income"])
    segments = _table("segments", "Domestic streaming segment", ["Revenues", "Marketing"],
                      pages=(22, 22))
    unrelated = _table("leases", "Future minimum payments", ["2018", "2019"])
    evidence = [Evidence(kind="hit", parent_id="p", document_id="d1", document_name="x.pdf",
                         pages="p. 22", page_start=22, page_end=22, sub_question=0,
                         text="Revenues 6,153,025 5,077,307 4,180,339 1,075,718")]
    chosen = relevant_tables("What were revenues in 2017?", [operations, segments, unrelated],
                             evidence)
    assert [t.name for t in chosen] == ["segments", "operations"]


def test_a_table_with_the_row_the_question_names_beats_one_near_the_evidence() -> None:
    expense = _table("technology", "(in thousands, except percentages)",
                     ["Technology and development", "As a percentage of revenues"],
                     pages=(25, 25))
    operations = _table("operations", "Consolidated statements of operations",
                        ["Revenues", "Operating income"], pages=(42, 42))
    evidence = [Evidence(kind="hit", parent_id="p", document_id="d1", document_name="x.pdf",
                         pages="p. 25", page_start=25, page_end=25, sub_question=0,
                         text="Technology and development 1,052,778 852,098 650,788 200,680")]
    chosen = relevant_tables("What were the total revenues of 2015, 2016 and 2017 added together?",
                             [expense, operations], evidence)
    assert [t.name for t in chosen] == ["operations", "technology"]


def test_the_query_is_cut_out_of_the_reply() -> None:
    assert extract_sql("```sql\nSELECT 1 FROM t;\n```") == "SELECT 1 FROM t"
    assert extract_sql("Here it is: SELECT a FROM t WHERE b = 1; DROP TABLE t") == \
        "SELECT a FROM t WHERE b = 1"
    assert extract_sql("WITH x AS (SELECT 1) SELECT * FROM x") == \
        "WITH x AS (SELECT 1) SELECT * FROM x"
    assert extract_sql("no query here") == "no query here"


def test_one_shared_word_is_not_enough_without_evidence_from_the_table() -> None:
    levels = _table("levels", "Water levels", ["Level", "Depth"], doc="d9")
    assert relevant_tables("How do I change the log level?", [levels], []) == []
    assert relevant_tables("Which depth level is the highest?", [levels], []) == [levels]


def test_a_count_question_names_what_it_counts() -> None:
    assert counted_things("How many employees in total did Brightwave have on December 31?") \
        == {"employee"}
    assert counted_things("How many paying subscribers at the end of 2020?") == {"subscriber"}
    assert counted_things("What was the number of streaming hours") == {"hour"}
    assert counted_things("How many categories of obligations are listed?") == \
        {singular("categories"), "obligation"}
    assert counted_things("How many segments serve the United States?") == {"segment"}
    assert counted_things("How much free cash flow was there?") == {"free", "cash", "flow"}
    assert counted_things("How many segment-years had a loss?") == {"year"}
    assert counted_things("How much did revenues grow in 2017?") == set()
    assert counted_things("Which segment had the highest margin?") == set()


def test_a_count_question_skips_tables_that_do_not_name_what_it_counts() -> None:
    balance = _table("balance_sheets", "Brightwave, Inc. consolidated balance sheets",
                     ["Total assets", "Total liabilities"])
    staff = _table("headcount", "Employees by region", ["Americas", "Total"])
    evidence = [Evidence(kind="hit", parent_id="p", document_id="d1", document_name="x.pdf",
                         pages="p. 42", page_start=42, page_end=42, sub_question=0,
                         text="Total assets 19,012,742 13,586,610")]
    question = "How many employees in total did Brightwave have on December 31?"
    assert relevant_tables(question, [balance], evidence) == []
    assert relevant_tables(question, [balance, staff], evidence) == [staff]
    # a table that names employees in passing shares only the date with the question
    options = _table("earnings", "Year ended December 31, (in thousands)",
                     ["Net income", "Employee stock options"])
    assert relevant_tables(question, [options], []) == []
    # without the count, the same words still pick the balance sheet
    assert relevant_tables("What were Brightwave's total assets?", [balance], evidence) == [balance]


def test_a_retry_after_a_wrong_column_is_told_the_real_ones() -> None:
    table = _table("results", "Consolidated Statements of Operations", ["Revenues"])
    hint = column_hint("no such column: T1.y2071", [table])
    assert hint.startswith("There is no column named y2071.")
    assert "- results: item, y2017 (closest to y2071: y2017); the row labels are the " \
        "values of item" in hint
    assert column_hint("no such column: row_labels", [table]).endswith(
        "the row labels are the values of item")
    assert column_hint("near \"FROM\": syntax error", [table]) == ""


def test_a_total_row_is_named_as_one_to_leave_out_of_rankings() -> None:
    obligations = _table("obligations", "Contractual obligations",
                         ["Streaming content obligations", "Debt", "Total"])
    assert row_labels_text(obligations).startswith("Streaming content obligations; Debt; Total")
    assert "leave it out of a ranking" in row_labels_text(obligations)
    plain = _table("totals", "Totals by segment", ["Domestic", "International totality"])
    assert "leave it out" not in row_labels_text(plain)


def test_a_query_must_pick_a_row_or_column_the_question_names() -> None:
    growth = "How much did Brightwave's revenues grow between 2016 and 2017?"
    assert query_picks_what_is_asked(
        "SELECT y2017 - y2016 FROM operations WHERE item = 'Revenues'", growth, ["operations"])
    assert not query_picks_what_is_asked(  # no row picked: a sum of every row
        "SELECT SUM(y2017) - SUM(y2016) FROM revenues_table", growth, ["revenues_table"])
    staff = "How many people work in the domestic DVD segment?"
    assert not query_picks_what_is_asked("SELECT SUM(contribution_profit) FROM segments",
                                         staff, ["segments"])
    assert query_picks_what_is_asked(
        "SELECT segment, contribution_profit FROM segments ORDER BY contribution_profit DESC",
        "Which segment earned the largest contribution profit?", ["segments"])


def test_the_names_a_query_gives_its_results_are_not_what_it_picks() -> None:
    # curated run: the 1.5B counted a restructuring row "AS shares_repurchased"
    query = ("SELECT SUM(three_months_ended_june_30_2023) AS total_cost, COUNT(*) AS "
             "shares_repurchased FROM income WHERE item = 'Restructuring, net'")
    question = "How many shares did Halvard repurchase in 2022, and what did they cost in total?"
    assert query_aliases(query) == {"total_cost", "shares_repurchased"}
    assert not query_picks_what_is_asked(query, question, ["income"])
    assert query_picks_what_is_asked("SELECT shares AS shares FROM buyback", question,
                                     ["buyback"], columns=["item", "shares"])
    assert query_aliases("SELECT CAST(y2017 AS REAL) AS ratio FROM t") == {"ratio"}
    assert query_aliases('SELECT y2023 AS "Net sales" FROM t') == {"Net sales"}
    assert without_aliases(query, query_aliases(query)) == (
        "SELECT SUM(three_months_ended_june_30_2023) , COUNT(*)  FROM income "
        "WHERE item = 'Restructuring, net'")


def test_a_table_is_asked_only_for_a_year_it_names() -> None:
    # the 1.5B wrote "SELECT y2020 ..." twice over a 2017 10-K's statements
    operations = _table("operations", "Consolidated statements of operations", ["Revenues"])
    assert names_a_year("What were revenues in 2017?", operations)  # its column y2017
    assert not names_a_year("How many employees did Brightwave have in 2020?", operations)
    assert names_a_year("How many employees did it have in 2020?", operations,
                        cells=["Employees", "2020", 5500])  # a year among its cells
    assert names_a_year("What were revenues?", operations)  # no year asked
