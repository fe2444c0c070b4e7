"""A made-up metric's change and mean across fiscal years, worked and said in words."""

from __future__ import annotations

from archivist.agent.research.metric_across import (
    average_summary,
    change_summary,
    sign_answer,
    total_summary,
)


def _percent(value: float) -> str:
    return f"{value:.2f}%"


def _millions(value: float) -> str:
    return f"USD {value:,.2f} million"


def test_a_percent_metrics_change_is_in_percentage_points_and_judged() -> None:
    said = change_summary("operating margin", " of Quillfeather Ltd", (2022, 2023),
                          (8.4, 9.1234), ("8.40%", "9.12%"), _percent, "%", 2,
                          better="higher", asked="better")
    assert said.step == ("change in operating margin from fiscal 2022 to fiscal 2023 = "
                         "9.1234% - 8.4000% = 0.72 percentage points")
    assert said.sentence == ("Yes. Operating margin of Quillfeather Ltd rose from 8.40% in "
                             "fiscal 2022 to 9.12% in fiscal 2023, by 0.72 percentage points: "
                             "it improved (higher is better for this metric).")


def test_a_rise_where_lower_is_better_is_a_worsening() -> None:
    said = change_summary("days sales outstanding", "", (2022, 2023), (41.0, 44.5),
                          ("41.00 days", "44.50 days"), lambda v: f"{v:.2f} days", "days", 2,
                          better="lower", asked="better")
    assert said.sentence.startswith("No. Days sales outstanding rose from 41.00 days")
    assert said.sentence.endswith("by 3.50 days (+8.54%): it worsened (lower is better for "
                                  "this metric).")


def test_a_metric_read_either_way_is_only_said_to_rise_or_fall() -> None:
    said = change_summary("current ratio", "", (2021, 2023), (1.5, 1.2), ("1.50", "1.20"),
                          lambda v: f"{v:.2f}", "ratio", 2, asked="better")
    assert said.step.endswith("= 1.2000 - 1.5000 = -0.30 (-20.00%)")
    assert said.sentence == ("Current ratio fell from 1.50 in fiscal 2021 to 1.20 in fiscal "
                             "2023, by 0.30 (-20.00%).")  # no yes or no: better is unknown


def test_an_amounts_change_is_in_its_scale_with_the_percent_change() -> None:
    said = change_summary("capital expenditure", "", (2022, 2023), (610.0, 583.0),
                          ("USD 610.00 million", "USD 583.00 million"), _millions, "millions",
                          2, asked="down")
    assert said.step == ("change in capital expenditure from fiscal 2022 to fiscal 2023 = "
                         "583 - 610 = USD -27.00 million (-4.43%)")
    assert said.sentence.startswith("Yes. Capital expenditure fell from USD 610.00 million")


def test_an_unchanged_metric_is_said_so() -> None:
    said = change_summary("gross margin", "", (2022, 2023), (30.0, 30.0), ("30.00%", "30.00%"),
                          _percent, "%", 2, better="higher", asked="up")
    assert said.sentence == ("No. Gross margin was unchanged from 30.00% in fiscal 2022 to "
                             "30.00% in fiscal 2023.")


def test_a_mean_over_years_shows_each_value() -> None:
    said = average_summary("net margin", " of Quillfeather Ltd", (2021, 2022, 2023),
                           (4.5, 5.25, 6.0), _percent, "%", 2)
    assert said.step == ("average net margin over fiscal 2021, 2022 and 2023 = "
                         "(4.5000% + 5.2500% + 6.0000%) / 3 = 5.25%")
    assert said.sentence == ("The average net margin of Quillfeather Ltd over fiscal 2021, "
                             "2022 and 2023 is 5.25%.")


def test_a_sum_over_years_shows_each_amount() -> None:
    said = total_summary("net sales", " of Quillfeather Ltd", (2021, 2022, 2023),
                         (410.0, 455.5, 502.25), _millions)
    assert said.step == ("total net sales over fiscal 2021, 2022 and 2023 = "
                         "410 + 455.5 + 502.25 = USD 1,367.75 million")
    assert said.sentence == ("Total net sales of Quillfeather Ltd over fiscal 2021, 2022 and "
                             "2023: USD 1,367.75 million.")


def test_a_yes_no_question_about_a_figures_sign_is_answered_first() -> None:
    question = "Does Quillfeather have positive working capital based on FY2024 data?"
    assert sign_answer(question, 2_203.7) == "Yes: it is positive.\n"
    assert sign_answer(question, -15.0) == "No: it is negative.\n"
    assert sign_answer("Was Quillfeather's free cash flow negative in 2024?", -3.0) == (
        "Yes: it is negative.\n")
    assert sign_answer("What is Quillfeather's working capital in FY2024?", 2_203.7) == ""
    assert sign_answer("Is the change positive or negative?", 1.0) == ""


def test_a_yes_no_question_about_a_bound_is_answered_first() -> None:
    assert sign_answer("Is Quillfeather's current ratio above 1 in FY2024?", 1.4) == (
        "Yes: it is 1.4.\n")
    assert sign_answer("Was Quillfeather's gross margin at least 40% in 2024?", 38.25) == (
        "No: it is 38.25.\n")
    assert sign_answer("Is Quillfeather's debt-to-equity ratio at most 2?", 2.0) == (
        "Yes: it is 2.\n")
    assert sign_answer("Is the quick ratio below 1?", 0.8) == "Yes: it is 0.8.\n"
    # an amount's bound may be written in another scale ("above $10 billion"): not judged
    assert sign_answer("Was revenue above 10 billion?", 11_692_713, amount=True) == ""
    assert sign_answer("Is Quillfeather's DPO above 30 days?", 35.0) == "Yes: it is 35.\n"
    assert sign_answer("Has Quillfeather paid a dividend for more than 3 years?", 1.2) == ""
