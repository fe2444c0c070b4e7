"""Which metric a made-up question asks for, and the rounding and unit its instructions ask."""

from __future__ import annotations

import pytest

from archivist.agent.question.answer_format import AnswerFormat, answer_format
from archivist.agent.question.instructions import split_instructions
from archivist.filings.asked import AskedMetric, asked_metric, without_names


def _asked(text: str) -> tuple[AskedMetric | None, str]:
    split = split_instructions(text)
    return asked_metric(split.question, " ".join(split.instructions))


def test_a_definition_the_question_gives_is_the_metric() -> None:
    metric, reason = _asked(
        "What was Brindlewood Traders' FY2024 days payable outstanding? DPO is defined as: "
        "365 * (average accounts payable between FY2023 and FY2024) / (FY2024 COGS + change "
        "in inventory between FY2023 and FY2024). Round your answer to one decimal place.")
    assert reason == "" and metric is not None
    assert (metric.name, metric.unit, metric.year) == ("DPO", "days", 2024)
    assert metric.formula.startswith("365 * (average accounts payable")


@pytest.mark.parametrize(("question", "formula", "year"), [
    ("What is Brindlewood's FY2024 current ratio?", "current_ratio", 2024),
    ("What was the gross profit margin of Brindlewood in fiscal 2023?", "gross_margin", 2023),
    ("What is Brindlewood's working capital?", "working_capital", None),
    ("What was the company's return on assets (ROA) for FY24?", "roa", 2024),
])
def test_a_standard_metric_named(question: str, formula: str, year: int | None) -> None:
    metric, _ = _asked(question)
    assert metric is not None and (metric.formula, metric.year) == (formula, year)


@pytest.mark.parametrize(("question", "item", "year"), [
    ("What was Brindlewood's year-over-year revenue growth in FY2024?", "revenue", 2024),
    ("By what percentage did Brindlewood's net income increase from FY2023 to FY2024?",
     "net income", 2024),
    ("What was the growth in net revenues for fiscal 2024?", "net revenues", 2024),
    ("What was the year-over-year change in Brindlewood Traders' operating income in FY2024, "
     "in percent?", "operating income", 2024),
])
def test_a_growth_named(question: str, item: str, year: int) -> None:
    metric, _ = _asked(question)
    assert metric is not None and (metric.growth_of, metric.unit, metric.year) == (
        item, "%", year)


@pytest.mark.parametrize(("question", "reason"), [
    ("Why did Brindlewood's gross margin fall in 2024?", "more than the metric's value"),
    ("Which segment had the highest operating margin in 2024?", "more than the metric's value"),
    ("What was Brindlewood's adjusted EBITDA in FY2024?", "more than the metric's value"),
    ("How did the current ratio change over FY2021, FY2022 and FY2023?",
     "change or comparison"),
    ("Why did Brindlewood's operating margin improve from FY2023 to FY2024?",
     "more than the metric's value"),
    ("How did Brindlewood's adjusted operating margin change from FY2023 to FY2024?",
     "more than the metric's value"),
    ("How did the gross margin of each segment change from 2023 to 2024?",
     "more than the metric's value"),
    ("What was revenue growth from FY2021 to FY2024?", "more than one year"),
])
def test_a_metric_named_without_one_years_value_asked_says_why(question: str,
                                                               reason: str) -> None:
    metric, said = _asked(question)
    assert metric is None and reason in said


def test_a_metric_in_each_year_listed_is_asked_for_each() -> None:
    metric, reason = _asked("What was the current ratio each year from 2021 to 2024?")
    assert reason == "" and metric is not None and metric.across is not None
    assert (metric.formula, metric.across.kind, metric.across.years, metric.year) == (
        "current_ratio", "each", (2021, 2022, 2023, 2024), 2024)


def test_a_question_naming_no_metric() -> None:
    assert _asked("What were Brindlewood's store openings in 2024?") == (None, "")


@pytest.mark.parametrize(("instructions", "expected"), [
    (["Round your answer to two decimal places."], AnswerFormat(decimals=2)),
    (["Round to 1 decimal."], AnswerFormat(decimals=1)),
    (["Round to the nearest whole number."], AnswerFormat(decimals=0)),
    (["Answer in USD billions."], AnswerFormat(scale="billions", currency="USD")),
    (["Give the answer in millions of dollars, to the nearest tenth."],
     AnswerFormat(decimals=1, scale="millions", currency="USD")),
    (["Express it as a percentage."], AnswerFormat(percent=True)),
    (["Assume you are an analyst."], AnswerFormat()),
])
def test_the_rounding_and_unit_asked(instructions: list[str], expected: AnswerFormat) -> None:
    assert answer_format(instructions) == expected


def test_a_percent_metric_defined_as_a_fraction_is_computed_in_percent() -> None:
    margin, _ = _asked("What is Brindlewood's FY2024 operating margin? Operating margin is "
                       "defined as operating income / net sales. Round to two decimals.")
    assert margin is not None and margin.unit == "%"
    assert margin.formula == "(operating income / net sales) * 100"
    scaled, _ = _asked("What is Brindlewood's FY2024 tax rate? Tax rate is defined as income "
                       "tax divided by income before income taxes x 100.")
    assert scaled is not None and scaled.unit == "%" and not scaled.formula.startswith("(")
    turnover, _ = _asked("What is Brindlewood's FY2024 asset turnover? Asset turnover is "
                         "defined as revenue / total assets.")
    assert turnover is not None and (turnover.unit, turnover.formula) == (
        "ratio", "revenue / total assets")  # a ratio, not made a percent


@pytest.mark.parametrize(("question", "formula"), [
    ("What is the FY2024 capital expenditure amount (in USD millions) for Brindlewood?",
     "capex"),
    ("What was Brindlewood's capex in fiscal 2024?", "capex"),
    ("What is Brindlewood's FY2024 free cash flow?", "free_cash_flow"),
    ("What is Brindlewood's effective tax rate for FY2024?", "effective_tax_rate"),
    ("What was Brindlewood's FY2024 interest coverage ratio?", "interest_coverage"),
    ("What was Brindlewood's return on shareholders' equity in FY2024?", "roe"),
])
def test_cash_tax_and_return_metrics_named(question: str, formula: str) -> None:
    metric, _ = _asked(question)
    assert metric is not None and (metric.formula, metric.year) == (formula, 2024)


@pytest.mark.parametrize(("question", "formula"), [
    ("What is Brindlewood's FY2024 capital expenditure to revenue ratio?",
     "capital expenditure / revenue"),
    ("What was the ratio of Brindlewood's FY2024 capital expenditures to its total revenue?",
     "capital expenditures / total revenue"),
    ("What is the ratio of EBITDA to interest expense for Brindlewood in FY2024?",
     "(operating income + depreciation and amortization) / interest expense"),
])
def test_the_ratio_of_two_amounts_is_their_quotient(question: str, formula: str) -> None:
    metric, reason = _asked(question)
    assert reason == "" and metric is not None
    assert (metric.formula, metric.unit, metric.year) == (formula, "", 2024)


def test_an_amount_asked_as_a_ratio_of_an_unknown_item_is_not_the_amount() -> None:
    metric, reason = _asked("What is Brindlewood's FY2024 capital expenditure to headcount "
                            "ratio?")
    assert metric is None and "ratio of the metric" in reason


def test_a_line_item_of_one_year_is_asked_as_itself() -> None:
    for question, item, year in (
            ("What was Quillfeather Mills' operating income in fiscal 2022?",
             "operating income", 2022),
            ("What is Quillfeather Mills' FY2021 total revenue?", "total revenue", 2021),
            ("What were Quillfeather's total assets at March 31, 2023?", "total assets", 2023),
            ("What was the FY2020 net income of Quillfeather Mills?", "net income", 2020),
            ("What was Quillfeather's operating income in the second quarter of 2023?",
             "operating income", 2023),
            ("What was the net income attributable to common shareholders of Quillfeather "
             "Mills in FY2022?", "net income attributable to common shareholders", 2022),
            ("How much revenue did Quillfeather Mills report in fiscal 2022?", "revenue", 2022),
            ("What was the net income for The Quillfeather Group in 2022?", "net income", 2022),
            ("How much cash did Quillfeather have at the end of 2022?", "cash", 2022),
            ("What were Quillfeather's total assets at the end of fiscal year 2022 in USD "
             "millions?", "total assets", 2022),
            ("How much cash did Quillfeather generate from operating activities in 2022?",
             "cash from operating activities", 2022),
            ("What was Quillfeather's FY2022 cash from operations?", "cash from operations",
             2022),
            ("What is Quillfeather's FY2022 depreciation and amortization from the cash flow "
             "statement?", "depreciation and amortization", 2022),
            ("What is the year-end FY2022 value of Quillfeather's net PP&E?", "net PP&E",
             2022)):
        metric, reason = _asked(question)
        assert metric == AskedMetric(item, item, unit="amount", year=year), question
        assert reason == ""


def test_the_change_of_a_line_item_from_one_year_to_the_next_is_asked() -> None:
    metric, _ = _asked("By how much did Quillfeather Mills' net interest expense increase "
                       "from fiscal 2021 to fiscal 2022?")
    assert metric == AskedMetric("change in interest expense",
                                 "interest expense - prior interest expense", unit="amount",
                                 year=2022)


def test_a_line_item_with_other_words_or_years_is_no_lookup() -> None:
    for question in ("What was Quillfeather Mills' paper segment revenue in 2022?",
                     "What were Quillfeather Mills' export revenues in 2022?",
                     "What were Quillfeather Mills' revenues in 2021 and 2022?",
                     "What was Quillfeather Mills' net income in 2021 compared to 2023?",
                     "What was Quillfeather Mills' adjusted operating income in 2022?",
                     "Why did Quillfeather Mills' net income fall in 2022?",
                     "What was Quillfeather Mills' revenue from licensing in 2022?",
                     "What were Quillfeather Mills' net sales in Europe in fiscal 2022?",
                     "What was Quillfeather's revenue for the Americas segment in 2022?",
                     "What was the net income attributable to noncontrolling interests of "
                     "Quillfeather Mills in FY2022?",
                     "How much cash did Quillfeather generate from its customers in 2022?"):
        assert _asked(question) == (None, ""), question


@pytest.mark.parametrize(("question", "name", "formula"), [
    ("What is Brindlewood's FY2024 leverage? Leverage = total debt / total equity. Round to "
     "two decimals.", "Leverage", "total debt / total equity"),
    ("What was Brindlewood's cash conversion in FY2024? Cash conversion is operating cash "
     "flow divided by net income.", "Cash conversion",
     "operating cash flow divided by net income"),
    ("Calculate Brindlewood's free cash flow for FY2024, defined as cash from operations "
     "less purchases of equipment. Answer in USD millions.", "free cash flow",
     "cash from operations less purchases of equipment"),
])
def test_a_definition_written_with_equals_is_or_after_a_comma(question: str, name: str,
                                                              formula: str) -> None:
    metric, reason = _asked(question)
    assert reason == "" and metric is not None
    assert (metric.name, metric.formula, metric.year) == (name, formula, 2024)


def test_a_sentence_saying_what_a_metric_is_is_no_question() -> None:
    split = split_instructions("What was Brindlewood's FY2024 payout ratio? The payout ratio is "
                               "dividends paid divided by net income.")
    assert split.question == "What was Brindlewood's FY2024 payout ratio?"
    assert split.definitions == ["The payout ratio is dividends paid divided by net income."]
    assert split_instructions("Which is larger, revenue or cost of sales / 2?").question == (
        "Which is larger, revenue or cost of sales / 2?")


def test_a_metric_defined_by_another_definition_gets_its_formula() -> None:
    metric, _ = _asked(
        "What is Brindlewood's FY2024 EBITDA margin? EBITDA is defined as: operating income + "
        "depreciation and amortization. EBITDA margin is EBITDA / revenues. Round to two "
        "decimal places.")
    assert metric is not None and (metric.name, metric.unit) == ("EBITDA margin", "%")
    assert metric.formula == ("((operating income + depreciation and amortization) / "
                              "revenues) * 100")
    unadjusted, _ = _asked(
        "What is Brindlewood's FY2024 unadjusted EBITDA margin? Unadjusted EBITDA is operating "
        "income plus depreciation; EBITDA margin is EBITDA divided by net sales.")
    assert unadjusted is not None
    assert unadjusted.formula == ("((operating income plus depreciation) divided by net sales)"
                                  " * 100")
    named, _ = _asked("What is Brindlewood's FY2024 EBITDA to revenue ratio? The ratio is "
                      "calculated as EBITDA / revenue.")  # a standard amount metric named
    assert named is not None and named.formula == (
        "(operating income + depreciation and amortization) / revenue")


@pytest.mark.parametrize(("question", "formula"), [
    ("What is Brindlewood's EBITDA margin for FY2024?", "ebitda_margin"),
    ("What was Brindlewood's debt-to-equity ratio at the end of FY2024?", "debt_to_equity"),
    ("What was Brindlewood's FY2024 dividend payout ratio?", "payout_ratio"),
    ("What is Brindlewood's total asset turnover in fiscal 2024?", "asset_turnover"),
    ("What was Brindlewood's inventory turnover ratio in FY2024?", "inventory_turnover"),
    # a longer name is not the shorter one it holds
    ("What was Brindlewood's fixed asset turnover ratio in FY2024?", "fixed_asset_turnover"),
    ("What is Brindlewood's FY2024 total asset turnover?", "asset_turnover"),
    ("What was Brindlewood's accounts receivable turnover for FY2024?", "receivables_turnover"),
    ("What was Brindlewood's payables turnover in fiscal 2024?", "payables_turnover"),
    ("What is Brindlewood's FY2024 cash conversion cycle?", "cash_conversion_cycle"),
    ("How many days sales in inventory did Brindlewood have in FY2024?", "dio"),
    ("What is Brindlewood's cash ratio at the end of FY2024?", "cash_ratio"),
    ("What is Brindlewood's FY2024 operating cash flow ratio?", "operating_cash_flow_ratio"),
    ("What was Brindlewood's earnings retention ratio in FY2024?", "retention_ratio"),
    ("What was Brindlewood's FY2024 free cash flow margin?", "free_cash_flow_margin"),
    ("What was Brindlewood's FY2024 free cash flow?", "free_cash_flow"),
])
def test_margin_leverage_turnover_cycle_and_cash_metrics_named(question: str,
                                                               formula: str) -> None:
    metric, _ = _asked(question)
    assert metric is not None and (metric.formula, metric.year) == (formula, 2024)


@pytest.mark.parametrize(("question", "formula"), [
    ("What percentage of its FY2024 revenues did Brindlewood spend on research and "
     "development?", "research and development / revenues * 100"),
    ("What was Brindlewood's FY2024 marketing expense as a percentage of net sales?",
     "marketing expense / net sales * 100"),
    ("What is Brindlewood's FY2024 capex as a percentage of revenue?",
     "capex / revenue * 100"),
    ("What is the FY2024 cash from operations as a percentage of net income for "
     "Brindlewood?", "cash from operations / net income * 100"),
])
def test_a_line_item_as_a_percentage_of_another(question: str, formula: str) -> None:
    metric, reason = _asked(question)
    assert reason == "" and metric is not None
    assert (metric.formula, metric.unit, metric.year) == (formula, "%", 2024)


def test_the_average_of_a_balance_over_two_years() -> None:
    metric, _ = _asked("What were Quillfeather Mills' average total assets between FY2021 and "
                       "FY2022? Answer in USD millions.")
    assert metric == AskedMetric("average total assets", "average total assets",
                                 unit="amount", year=2022)
    assert _asked("What was Quillfeather's average total assets from 2018 to 2022?") == (
        None, "")


@pytest.mark.parametrize(("question", "formula", "kind", "years", "asked"), [
    ("How did Brindlewood's current ratio change from 2023 to 2024?", "current_ratio",
     "change", (2023, 2024), ""),
    ("Did Brindlewood's operating margin improve between FY2022 and FY2024?",
     "operating_margin", "change", (2022, 2024), "better"),
    ("Is Brindlewood's gross margin declining as of FY2024?", "gross_margin", "change",
     (2023, 2024), "down"),
    ("What was Brindlewood's average net profit margin over FY2022, FY2023 and FY2024?",
     "net_margin", "average", (2022, 2023, 2024), ""),
    ("What is the three-year average EBITDA margin of Brindlewood for FY2022-FY2024?",
     "ebitda_margin", "average", (2022, 2023, 2024), ""),
])
def test_a_metric_asked_across_years(question: str, formula: str, kind: str,
                                     years: tuple[int, ...], asked: str) -> None:
    metric, reason = _asked(question)
    assert reason == "" and metric is not None and metric.across is not None
    assert (metric.formula, metric.across.kind, metric.across.years) == (formula, kind, years)
    assert metric.across.asked == asked and metric.year == years[-1]


@pytest.mark.parametrize(("question", "item", "kind", "years"), [
    ("What was Quillfeather Mills' cumulative operating income over fiscal 2019 through "
     "2021?", "operating income", "total", (2019, 2020, 2021)),
    ("What was Quillfeather's net income over FY2020-FY2022 in total?", "net income", "total",
     (2020, 2021, 2022)),
    ("What is the average operating income of Quillfeather Mills from 2019 to 2021?",
     "operating income", "average", (2019, 2020, 2021)),
    ("What was the change in Quillfeather Mills' net sales from fiscal 2019 to fiscal 2022?",
     "net sales", "change", (2019, 2022)),
    ("By how much did Quillfeather Mills' revenues grow from 2019 to 2022?", "revenues",
     "change", (2019, 2022)),
    ("What was the change in Quillfeather's total assets from 2020 to 2022?", "total assets",
     "change", (2020, 2022)),
    ("What is Quillfeather's FY2020 to FY2022 change in total assets in USD millions?",
     "total assets", "change", (2020, 2022)),
    ("Did Quillfeather Mills' net sales grow in fiscal 2022?", "net sales", "change",
     (2021, 2022)),
    ("Has Quillfeather's operating income declined in 2022?", "operating income", "change",
     (2021, 2022)),
])
def test_a_line_item_across_years_is_each_year_read(question: str, item: str, kind: str,
                                                    years: tuple[int, ...]) -> None:
    metric, reason = _asked(question)
    assert reason == "" and metric is not None and metric.across is not None, question
    assert (metric.formula, metric.unit) == (item, "amount")
    assert (metric.across.kind, metric.across.years, metric.year) == (kind, years, years[-1])


def test_a_balance_is_not_summed_across_years() -> None:
    assert _asked("What were Quillfeather's total assets for 2020, 2021 and 2022 "
                  "combined?") == (None, "")


def test_a_share_asked_of_a_known_line_item() -> None:
    metric, _ = _asked("What proportion of Brindlewood's FY2024 revenue was gross profit?")
    assert metric is not None
    assert (metric.formula, metric.unit, metric.year) == ("gross profit / revenue * 100",
                                                          "%", 2024)
    assert _asked("What share of Brindlewood's FY2024 revenue was from its cloud "
                  "business?") == (None, "")


def test_a_share_averaged_over_a_range_is_the_share_each_year() -> None:
    metric, _ = _asked("What is the three-year average of capex as a % of revenue for "
                       "Brindlewood for FY2022-FY2024? Round to two decimal places.")
    assert metric is not None and metric.across is not None
    assert (metric.formula, metric.unit) == ("capex / revenue * 100", "%")
    assert metric.across.years == (2022, 2023, 2024)


def test_a_definition_of_a_part_of_the_metric_asked_leaves_the_standard_metric() -> None:
    metric, _ = _asked("What was Brindlewood's EBITDA margin in FY2024? EBITDA is operating "
                       "income plus depreciation and amortization.")
    assert metric is not None and (metric.formula, metric.year) == ("ebitda_margin", 2024)
    whole, _ = _asked("What was Brindlewood's FY2024 EBITDA margin? EBITDA margin is defined "
                      "as: (operating income + depreciation) / net sales.")
    assert whole is not None and whole.name == "EBITDA margin"
    assert whole.formula.startswith("((operating income + depreciation) / net sales")


def test_one_years_metric_is_not_asked_across_years() -> None:
    metric, _ = _asked("What was Brindlewood's FY2024 gross margin?")
    assert metric is not None and metric.across is None and metric.year == 2024


def test_the_words_of_a_company_s_name_ask_for_nothing() -> None:
    """A name made of words a question could ask with ("Best", "Target") is only a name."""
    metric, reason = _asked("What is Best Harbor Stores' FY2023 gross margin? Round to two "
                            "decimals.")
    assert metric is not None and metric.formula == "gross_margin" and reason == ""
    assert without_names("Why did Best Harbor's best store grow? Which one?") == \
        "Why did _ _ best store grow? Which one?"
    segment, _ = _asked("What was the Paper Segment's operating income at Quillfeather in 2022?")
    assert segment is None


def test_a_change_asked_as_a_percentage_is_the_growth() -> None:
    metric, reason = _asked("By how much did Quillfeather Mills' revenues grow from FY2021 to "
                            "FY2022? Answer as a percentage change rounded to two decimals.")
    assert metric == AskedMetric("revenues growth", growth_of="revenues", unit="%", year=2022)
    assert reason == ""


def test_a_line_item_named_with_its_period_words_and_as_printed() -> None:
    """"year end", "unadjusted" and a year range's dash are no part of the line item."""
    for question, item in (
            ("What is the FY2023 unadjusted operating income (in USD millions) for "
             "Quillfeather Mills?", "operating income"),
            ("What is Quillfeather's year end FY2023 net PP&E (in USD millions)?", "net PP&E")):
        metric, _ = _asked(question)
        assert metric == AskedMetric(item, item, unit="amount", year=2023), question
    across, _ = _asked("What is the FY2021 - FY2023 3 year average of capex as a % of revenue "
                       "for Quillfeather Mills? Round to one decimal place.")
    assert across is not None and across.formula == "capex / revenue * 100"
