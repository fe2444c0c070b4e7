"""Which change or average across fiscal years a made-up question asks for, and its wording."""

from __future__ import annotations

import pytest

from archivist.filings.comparison import Across, across_years, better_direction, moved_words
from archivist.filings.scope import named_years


def _across(question: str) -> Across | None:
    return across_years(question, sorted(named_years(question)))


@pytest.mark.parametrize(("question", "kind", "years"), [
    ("How did the quick ratio change from FY2021 to FY2023?", "change", (2021, 2023)),
    ("What was the difference in operating margin between 2022 and 2023?", "change",
     (2022, 2023)),
    ("Compare the net margin in fiscal 2023 with fiscal 2022.", "change", (2022, 2023)),
    ("Is the gross margin improving in FY24?", "change", (2023, 2024)),
    ("Is the gross margin improving?", "change", ()),
    ("Did the operating margin improve in FY2023?", "change", (2022, 2023)),
    ("What is the FY2021 to FY2023 change in total assets?", "change", (2021, 2023)),
    ("What was the net income in total FY2021-FY2023?", "total", (2021, 2022, 2023)),
    ("Was the current ratio lower in fiscal 2023?", "change", (2022, 2023)),
    ("Did the net margin decline?", "change", ()),
    ("What was the year-over-year change in the net margin in FY2023?", "change",
     (2022, 2023)),
    ("How does the FY2023 current ratio compare with the prior year?", "change", (2022, 2023)),
    ("How did the operating margin change over the last three years as of FY2023?", "change",
     (2021, 2023)),
    ("What was the gross margin in FY2021, FY2022 and FY2023?", "each", (2021, 2022, 2023)),
    ("What were the operating margins for fiscal years 2022 and 2023?", "each", (2022, 2023)),
    ("What was the quick ratio for FY2021-FY2023?", "each", (2021, 2022, 2023)),
    ("What was the current ratio in each of the past two years as of FY2023?", "each",
     (2022, 2023)),
    ("What was the average ROA over FY2021, FY2022 and FY2023?", "average",
     (2021, 2022, 2023)),
    ("What is the 3-year average operating margin as of FY2023?", "average",
     (2021, 2022, 2023)),
    ("What was the average gross margin from 2019 to 2022?", "average",
     (2019, 2020, 2021, 2022)),
])
def test_the_years_a_comparison_asks_for(question: str, kind: str,
                                         years: tuple[int, ...]) -> None:
    found = _across(question)
    assert found is not None and (found.kind, found.years) == (kind, years)


@pytest.mark.parametrize("question", [
    "What was the FY2023 gross margin?",
    "What was the gross margin in FY2023, up from the year before?",  # one year, no movement
    "How did the operating margin change over FY2021, FY2022 and FY2023?",  # three years
    "What is the three-year average operating margin for FY2022-FY2023?",  # two, not three
    "What was the return on average equity in FY2023?",
    "What was the ROA on average total assets between FY2022 and FY2023?",
])
def test_no_comparison_is_read_where_none_is_asked(question: str) -> None:
    assert _across(question) is None


@pytest.mark.parametrize(("question", "years"), [
    ("How much did capital spending come to over FY2021, FY2022 and FY2023 combined?",
     (2021, 2022, 2023)),
    ("What was the net income over 2020-2023 in total?", (2020, 2021, 2022, 2023)),
    ("What were capital expenditures in 2022 and 2023 added together?", (2022, 2023)),
])
def test_a_sum_across_years(question: str, years: tuple[int, ...]) -> None:
    found = _across(question)
    assert found is not None and (found.kind, found.years) == ("total", years)
    assert "combined" not in found.question and "in total" not in found.question


def test_a_sum_needs_two_years() -> None:
    assert _across("What were the combined net sales of both segments in FY2023?") is None


def test_the_average_words_are_taken_out_of_the_question() -> None:
    found = _across("What is the three-year average of R&D as a % of sales for FY2021-FY2023?")
    assert found is not None
    assert found.question == "What is R&D as a % of sales for FY2021-FY2023?"


@pytest.mark.parametrize(("question", "asked"), [
    ("Did the operating margin improve from FY2022 to FY2023?", "better"),
    ("Has the debt-to-equity ratio worsened from FY2022 to FY2023?", "worse"),
    ("Did DSO increase from FY2022 to FY2023?", "up"),
    ("Did the current ratio decline from FY2022 to FY2023?", "down"),
    ("Did the current ratio increase or decrease from FY2022 to FY2023?", ""),
    ("How did the operating margin improve from FY2022 to FY2023?", ""),  # not yes or no
])
def test_the_movement_a_yes_no_question_asks_about(question: str, asked: str) -> None:
    found = _across(question)
    assert found is not None and found.asked == asked


def test_only_a_metric_with_a_plain_better_direction_is_judged() -> None:
    assert better_direction("operating_margin") == "higher"
    assert better_direction("dso") == better_direction("debt_to_equity") == "lower"
    assert better_direction("current_ratio") == better_direction("effective_tax_rate") == ""
    assert moved_words(0.4, "higher") == ("rose", "improved")
    assert moved_words(0.4, "lower") == ("rose", "worsened")
    assert moved_words(-0.4, "lower") == ("fell", "improved")
    assert moved_words(-0.4, "") == ("fell", "")
    assert moved_words(0.0, "higher") == ("was unchanged", "")
