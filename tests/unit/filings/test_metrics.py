"""Metrics over made-up statements: formula, figures put in, rounding, pages and SQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from archivist.filings.formula import FormulaError, definition_in, parse_formula
from archivist.filings.metrics import StatementFigures, compute, growth
from archivist.filings.periods import quarter_end
from archivist.index.table_store import TableStore
from archivist.storage.database import Database
from archivist.types import DataTable


def _statement(name: str, columns: list[str], rows: list[list[object]], page: int) -> DataTable:
    names = ["line_item", *columns, "page"]
    return DataTable(caption=name, columns=names, labels=names,
                     kinds=["text", *["number"] * len(columns), "number"],
                     rows=[[*row, page] for row in rows], unit="millions",  # type: ignore[misc]
                     page_start=page, page_end=page, name=name)


INCOME = _statement("income_statement", ["fy2023", "fy2022"], [
    ["Total net revenues", 5200, 4800], ["Cost of goods sold", -3100, -2950],
    ["Operating income", 1050, 850], ["Net income", 760, 605]], 51)
BALANCE = _statement("balance_sheet", ["d2023_01_28", "d2022_01_29"], [
    ["Cash and cash equivalents", 640, 420], ["Accounts receivable, net", 730, 610],
    ["Merchandise inventories", 880, 820], ["Total current assets", 2250, 1850],
    ["Total assets", 4150, 3600], ["Accounts payable", 510, 470],
    ["Total current liabilities", 810, 750]], 53)
CASH = _statement("cash_flow_statement", ["fy2023", "fy2022"], [
    ["Net income", 760, 605], ["Depreciation and amortization", 150, 140]], 55)


@pytest.fixture
def statements(tmp_path: Path) -> Iterator[StatementFigures]:
    database = Database(f"sqlite:///{tmp_path / 'archivist.sqlite'}")
    store = TableStore(database)
    store.add("default", "doc1", [INCOME, BALANCE, CASH])
    yield StatementFigures.of_document(store, "default", "doc1")
    database.close()


def test_a_standard_metric_shows_its_formula_figures_pages_and_sql(
    statements: StatementFigures,
) -> None:
    dpo = compute("dpo", statements, 2023, decimals=2)
    assert dpo.error is None
    assert dpo.formula == "365 * average accounts payable / cost of revenue"
    assert dpo.worked == "365 × ((510 + 470) ÷ 2) ÷ 3,100"  # a cost printed negative: its size
    assert dpo.rounded == 57.69 and dpo.unit == "days"
    assert [(f.line_item, f.period, f.page) for f in dpo.inputs] == [
        ("Accounts payable", "d2023_01_28", 53), ("Accounts payable", "d2022_01_29", 53),
        ("Cost of goods sold", "fy2023", 51)]
    assert all(f.document_id == "doc1" for f in dpo.inputs)
    assert dpo.sql[0] == ('SELECT line_item, "d2023_01_28", page FROM "balance_sheet" '
                          "WHERE line_item = 'Accounts payable'")
    assert "p. 51" in dpo.text()


@pytest.mark.parametrize(("metric", "decimals", "expected"), [
    ("gross_margin", 1, 40.4), ("operating_margin", 2, 20.19), ("net_margin", 3, 14.615),
    ("dso", 0, 47), ("dio", 2, 100.08), ("working_capital", 0, 1440),
    ("current_ratio", 2, 2.78), ("quick_ratio", 2, 1.69), ("ebitda", 0, 1200),
    ("roa", 2, 19.61), ("ebitda_margin", 2, 23.08), ("asset_turnover", 2, 1.34),
    ("inventory_turnover", 2, 3.65),
])
def test_each_standard_metric(statements: StatementFigures, metric: str, decimals: int,
                              expected: float) -> None:
    result = compute(metric, statements, 2023, decimals=decimals)
    assert result.error is None, result.error
    assert result.rounded == expected


def test_growth_and_a_formula_the_question_defines(statements: StatementFigures) -> None:
    assert growth("revenue", statements, 2023, decimals=2).rounded == 8.33
    question = ("What is the FY2023 DPO? DPO is defined as: 365 * (average accounts payable "
                "between FY2022 and FY2023) / (FY2023 COGS + change in inventory between FY2022 "
                "and FY2023). Round your answer to two decimal places.")
    found = definition_in(question)
    assert found is not None
    name, formula = found
    assert name.endswith("DPO")
    result = compute(formula, statements, 2023, decimals=2, metric="DPO")
    assert result.error is None
    assert result.worked == "365 × (((510 + 470) ÷ 2)) ÷ (3,100 + (880 - 820))"
    assert result.rounded == 56.6


def test_what_cannot_be_computed_says_why(statements: StatementFigures) -> None:
    assert compute("revenue per employee * 2", statements, 2023).error == (
        "no line item for revenue per employee in the statements")
    assert compute("dpo", statements, 2021).error == (
        "the balance sheet has no column for fiscal 2021")
    assert "no line item for total equity" in (compute("net income / equity", statements,
                                                       2023).error or "")
    empty = StatementFigures([], {})
    assert compute("ebitda", empty, 2023).error == "no income statement was found in the filing"
    with pytest.raises(FormulaError, match="not a complete formula"):
        parse_formula("revenue / (cost of revenue")
    with pytest.raises(FormulaError, match="cannot read '\\^ 2'"):
        parse_formula("revenue ^ 2")


def test_a_quarter_is_named_by_its_column(tmp_path: Path) -> None:
    quarter = _statement("income_statement", ["q2023_03_31", "q2022_03_31"], [
        ["Net sales", 1300, 1200], ["Cost of sales", 800, 760], ["Operating income", 260, 210]],
        4)
    balance = _statement("balance_sheet", ["d2023_03_31", "d2022_12_31"], [
        ["Total current assets", 900, 860], ["Total current liabilities", 450, 430]], 5)
    database = Database(f"sqlite:///{tmp_path / 'quarter.sqlite'}")
    store = TableStore(database)
    store.add("default", "q1", [quarter, balance])
    figures = StatementFigures.of_document(store, "default", "q1")
    margin = compute("operating_margin", figures, "q2023_03_31", decimals=1)
    assert (margin.rounded, margin.inputs[0].period) == (20.0, "q2023_03_31")
    assert growth("net sales", figures, "q2023_03_31", decimals=2).rounded == 8.33
    ratio = compute("current_ratio", figures, "q2023_03_31")  # the balance at the quarter's end
    assert (ratio.rounded, ratio.inputs[0].period) == (2.0, "d2023_03_31")
    assert compute("operating_margin", figures, 2023).error == (
        "the income statement has no column for fiscal 2023")
    database.close()


def test_a_formula_written_in_words_and_naming_its_statement() -> None:
    cases = {
        "total current assets minus total current liabilities": (
            "t0 - t1", ["total_current_assets", "total_current_liabilities"]),
        "operating income plus depreciation and amortization from the cash flow statement": (
            "t0 + t1", ["operating_income", "depreciation_amortization"]),
        "operating income divided by interest expense": (
            "t0 / t1", ["operating_income", "interest_expense"]),
        "total liabilities / total stockholders\u2019 equity": (
            "t0 / t1", ["total_liabilities", "total_equity"]),
        "provision for income taxes / income before income taxes times 100": (
            "t0 / t1 * 100", ["income_tax", "pretax_income"]),
        "long-term debt / total shareholders' equity": (
            "t0 / t1", ["long_term_debt", "total_equity"]),
        "dividends paid divided by net income": ("t0 / t1", ["dividends_paid", "net_income"]),
        "net cash used in operating activities / revenues": (
            "t0 / t1", ["operating_cash_flow", "revenue"]),
    }
    for text, (expression, concepts) in cases.items():
        parsed = parse_formula(text)
        assert parsed.expression == expression, text
        assert [t.concept.name for t in parsed.terms] == concepts, text


def _store(tmp_path: Path, name: str, tables: list[DataTable]) -> StatementFigures:
    database = Database(f"sqlite:///{tmp_path / (name + '.sqlite')}")
    store = TableStore(database)
    store.add("default", name, tables)
    figures = StatementFigures.of_document(store, "default", name)
    database.close()
    return figures


def test_income_tax_is_an_expense_and_a_benefit_stays_negative(tmp_path: Path) -> None:
    benefit = _store(tmp_path, "benefit", [_statement("income_statement", ["fy2023"], [
        ["Revenues", 9000], ["Cost of revenues", 6000], ["Operating income", 700],
        ["Interest expense", -190], ["Income before income taxes", 510],
        ["Provision for (benefit from) income taxes", -60], ["Net income", 570]], 40)])
    rate = compute("effective_tax_rate", benefit, 2023)
    assert (rate.worked, rate.rounded) == ("-60 ÷ 510 × 100", -11.76)
    assert compute("interest_coverage", benefit, 2023).rounded == 3.68  # 700 / 190
    expense = _store(tmp_path, "expense", [_statement("income_statement", ["fy2023"], [
        ["Net sales", 4000], ["Cost of sales", -3200], ["Operating income", 410],
        ["Income before income taxes", 350], ["Income tax expense", -70],
        ["Net income", 280], ["Net income attributable to Quillon plc", 276]], 8)])
    assert compute("effective_tax_rate", expense, 2023).worked == "70 ÷ 350 × 100"


def test_capital_expenditure_and_free_cash_flow(tmp_path: Path) -> None:
    cash = _store(tmp_path, "cash", [_statement("cash_flow_statement", ["fy2023", "fy2022"], [
        ["Net cash used in operating activities", -420, 130],
        ["Purchases of property and equipment", -95, -80]], 12)])
    assert compute("capex", cash, 2023).rounded == 95
    flow = compute("free_cash_flow", cash, 2023)
    assert (flow.worked, flow.rounded) == ("-420 - 95", -515)


def test_the_column_of_a_quarter_the_question_names(tmp_path: Path) -> None:
    figures = _store(tmp_path, "release", [_statement(
        "income_statement", ["q2022_06_30", "q2023_06_30", "fy2022", "fy2023"], [
            ["Net sales", 3900, 3700, 14500, 14700], ["Cost of sales", -3100, -2950,
                                                      -11700, -11950]], 8)])
    assert quarter_end(2023, 4, (6, 30)) == date(2023, 6, 30)
    assert quarter_end(2023, 1, (6, 30)) == date(2022, 9, 30)
    assert quarter_end(2023, 2, (1, 28)) == date(2022, 7, 28)  # a 52-week year: within a week
    column = figures.quarter_column(quarter_end(2023, 4, (6, 30)))
    assert column == "q2023_06_30"
    assert compute("gross_margin", figures, column).rounded == 20.27  # 750 / 3,700
    assert figures.quarter_column(quarter_end(2023, 3, (6, 30))) is None


RELEASE = [
    _statement("income_statement", ["fy2023", "fy2022"], [
        ["Net sales", 5000, 4700], ["Cost of sales", -3600, -3450],
        ["Selling and marketing expenses", -700, -650], ["Operating income", 700, 600],
        ["Net income", 520, 450], ["Net income attributable to Ferncastle plc", 510, 440]], 7),
    _statement("cash_flow_statement", ["fy2023", "fy2022"], [
        ["Net income", 520, 450], ["Depreciation, amortization, and impairment", 240, 230],
        ["Dividends paid", -306, -280]], 8),
    _statement("balance_sheet", ["d2023_06_30", "d2022_06_30"], [
        ["Total assets", 9000, 8800],
        ["Short-term debt and current portion of long-term debt", 60, 40],
        ["Long-term debt, less current portion", 1900, 1800],
        ["Shareholders' equity", 2000, 1900]], 8),
]


def test_a_line_item_named_by_its_printed_label(tmp_path: Path) -> None:
    figures = _store(tmp_path, "labels", RELEASE)
    roa = compute("net income attributable to Ferncastle plc / total assets * 100", figures,
                  2023)
    assert (roa.worked, roa.rounded) == ("510 ÷ 9,000 × 100", 5.67)
    assert roa.inputs[0].statement == "income_statement"  # the statement that prints it
    ebitda = compute("operating income plus depreciation, amortization and impairment (from "
                     "the cash flow statement)", figures, 2023)  # no Oxford comma asked
    assert (ebitda.worked, ebitda.inputs[1].line_item) == (
        "700 + 240", "Depreciation, amortization, and impairment")
    share = compute("selling and marketing expenses / net sales * 100", figures, 2023)
    assert share.rounded == 14.0  # an expense printed negative: its size
    debt = compute("(short-term debt and current portion of long-term debt + long-term debt, "
                   "less current portion) / shareholders' equity", figures, 2023)
    assert (debt.worked, debt.rounded) == ("(60 + 1,900) ÷ 2,000", 0.98)
    assert compute("net sales less cost of sales", figures, 2023).rounded == 1400
    assert compute("payout_ratio", figures, 2022).worked == "280 ÷ 440"
    assert compute("selling expenses per store", figures, 2023).error == (
        "no line item for selling expenses per store in the statements")


def test_total_debt_is_short_and_long_term_debt(tmp_path: Path) -> None:
    figures = _store(tmp_path, "debt", RELEASE)
    assert compute("total debt / total equity", figures, 2023).worked == "(60 + 1,900) ÷ 2,000"
    assert compute("debt_to_equity", figures, 2022).rounded == 0.97  # (40 + 1,800) / 1,900
    long_only = _store(tmp_path, "long", [_statement("balance_sheet", ["fy2023"], [
        ["Long-term debt", 700], ["Total stockholders' equity", 1400]], 3)])
    ratio = compute("debt_to_equity", long_only, 2023)
    assert (ratio.worked, ratio.rounded) == ("(0 + 700) ÷ 1,400", 0.5)
    assert ratio.inputs[0].line_item == "short term debt (not in the statement: 0)"


def test_turnover_cycle_cash_and_retention_metrics(tmp_path: Path) -> None:
    """Each metric of an analyst's usual set computed from made-up statements, by hand."""
    figures = _store(tmp_path, "analyst", [
        _statement("income_statement", ["fy2024", "fy2023"], [
            ["Net sales", 7300, 6900], ["Cost of sales", -4380, -4100],
            ["Net income", 500, 450]], 30),
        _statement("balance_sheet", ["d2024_12_31", "d2023_12_31"], [
            ["Cash and cash equivalents", 300, 250], ["Short-term investments", 100, 80],
            ["Accounts receivable, net", 600, 540], ["Inventories", 720, 680],
            ["Property and equipment, net", 1500, 1420],
            ["Accounts payable", 480, 440], ["Total current liabilities", 1000, 930]], 31),
        _statement("cash_flow_statement", ["fy2024", "fy2023"], [
            ["Net cash provided by operating activities", 820, 760],
            ["Purchases of property and equipment", -310, -290],
            ["Dividends paid", -200, -180]], 33)])
    expected = {
        "fixed_asset_turnover": 7300 / ((1500 + 1420) / 2),
        "receivables_turnover": 7300 / ((600 + 540) / 2),
        "payables_turnover": 4380 / ((480 + 440) / 2),
        "cash_conversion_cycle": 365 * ((720 + 680) / 2) / 4380 + 365 * ((600 + 540) / 2) / 7300
        - 365 * ((480 + 440) / 2) / 4380,
        "cash_ratio": (300 + 100) / 1000,
        "operating_cash_flow_ratio": 820 / 1000,
        "retention_ratio": 1 - 200 / 500,
        "free_cash_flow_margin": (820 - 310) / 7300 * 100,
    }
    for metric, value in expected.items():
        result = compute(metric, figures, 2024, decimals=2)
        assert result.error is None, (metric, result.error)
        assert result.rounded == round(value, 2), metric
    assert compute("retention_ratio", figures, 2024).worked == "1 - 200 ÷ 500"
