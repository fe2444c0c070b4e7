"""A filing's fiscal year as the filer names it, read from made-up covers and releases."""

from __future__ import annotations

from datetime import date

from archivist.filings.cover import filing_info
from archivist.filings.naming import filer_year, shifted

RETAIL_10K = """FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended January 28, 2023
Commission File Number 001-31415
Pemberly Home Goods, Inc.
(Exact name of registrant as specified in its charter)
Item 1. Business
Our fiscal year ends on the Saturday nearest January 31. {naming} Net sales grew 4%.
"""

STARTS_IN = "Fiscal 2022 consisted of the 52 weeks ended January 28, 2023."
ENDS_IN = "References to fiscal 2023 are to the 52 weeks ended January 28, 2023."
BY_A_COMPARATIVE = ("Fiscal 2022 grew on fiscal 2021, which ended January 29, 2022, and "
                    "fiscal 2020.")


def _year(text: str) -> tuple[int | None, str | None, str | None]:
    info = filing_info(text)
    assert info is not None
    return info.fiscal_year, info.period, info.fiscal_year_end


def test_a_10k_takes_the_fiscal_year_its_own_text_names() -> None:
    assert _year(RETAIL_10K.format(naming=STARTS_IN)) == (2022, "2023-01-28", "01-28")
    assert _year(RETAIL_10K.format(naming=ENDS_IN)) == (2023, "2023-01-28", "01-28")
    assert _year(RETAIL_10K.format(naming=BY_A_COMPARATIVE)) == (2022, "2023-01-28", "01-28")
    assert _year(RETAIL_10K.format(naming="")) == (2023, "2023-01-28", "01-28")  # none named


RETAIL_10Q = """FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended October 29, 2022
Pemberly Home Goods, Inc.
(Exact name of registrant as specified in its charter)
Our fiscal year ends on the Saturday nearest January 31. {naming}
"""


def test_a_10q_takes_the_year_its_text_names_with_a_day() -> None:
    for naming in ("The thirteen weeks ended October 29, 2022 (the \u201cthird quarter of "
                   "fiscal 2022\u201d) saw sales rise.",
                   "Sales rose from the third quarter of fiscal 2021 ended October 30, 2021."):
        info = filing_info(RETAIL_10Q.format(naming=naming))
        assert info is not None
        assert (info.fiscal_year, info.fiscal_quarter, info.period) == (2022, 3, "2022-10-29")


def test_a_phrase_in_a_filing_s_body_may_be_a_comparative_and_names_no_year() -> None:
    info = filing_info(RETAIL_10Q.format(naming="Net sales for the third quarter of fiscal "
                                                "2021 were restated."))
    assert info is not None and (info.fiscal_year, info.fiscal_quarter) == (2023, 3)


CALENDAR_10K = """FORM 10-K
For the fiscal year ended December 31, 2022
Ravensholt Chemicals Corporation
(Exact name of registrant as specified in its charter)
Our fiscal 2023 outlook calls for growth. FY24 targets are unchanged, and the fourth quarter
of fiscal 2021 was weaker than that of fiscal 2020.
"""


def test_a_calendar_year_is_never_named_by_the_year_before_it() -> None:
    assert _year(CALENDAR_10K) == (2022, "2022-12-31", "12-31")


def test_the_year_named_with_a_day_places_the_period_whatever_the_year_end() -> None:
    end, year_end = date(2022, 10, 29), (1, 28)
    assert filer_year("the third quarter of fiscal 2022 ended October 29, 2022", "", end, 3,
                      2023, None) == 2022
    assert filer_year("the 52 weeks ended January 28, 2023 (\u201cfiscal 2022\u201d)", "", end,
                      3, 2023, None) == 2022
    assert filer_year("the 13 weeks ended October 29, 2022 (fiscal 2023)", "", end, 3, 2023,
                      year_end) is None  # a quarter's day, its quarter not named
    assert filer_year("", "Q3 FY23 sales rose; Q3 FY22 sales fell.", end, 3, 2023,
                      year_end) == 2023
    assert filer_year("", "Q3 FY22 sales rose; Q3 FY21 sales fell.", end, 3, 2023,
                      year_end) == 2022
    assert filer_year("", "Q4 FY21 sales rose.", date(2022, 12, 31), 4, 2022, (12, 31)) is None
    assert filer_year("Sales rose in fiscal 2019.", "", end, 3, 2023, year_end) is None
    assert shifted(date(2022, 10, 31), 3) == date(2023, 1, 31)
    assert shifted(date(2022, 11, 30), 3) == date(2023, 2, 28)


RESULTS_8K = """FORM 8-K
CURRENT REPORT
Pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934
Date of Report (Date of earliest event reported): {reported}
Calloway Footwear, Inc.
(Exact name of registrant as specified in its charter)
Item 2.02 Results of Operations and Financial Condition.
Exhibit 99.1
Calloway Footwear Reports {quarter} Quarter Results
NEW YORK -- Calloway Footwear, Inc. (NYSE: CLWY) today reported results for the {quarter}
quarter ended {ended}. Comparable sales rose 2%.{year_end}
"""


def test_8ks_of_one_fiscal_year_get_that_year_whether_or_not_they_print_the_year_end() -> None:
    first = filing_info(RESULTS_8K.format(reported="May 20, 2022", quarter="First",
                                          ended="April 30, 2022", year_end=""))
    second = filing_info(RESULTS_8K.format(
        reported="August 19, 2022", quarter="Second", ended="July 30, 2022",
        year_end=" Our fiscal year ends on January 28, 2023."))
    assert first is not None and second is not None
    assert (first.period, first.fiscal_year, first.fiscal_quarter) == ("2022-05-20", 2023, 1)
    assert (second.period, second.fiscal_year, second.fiscal_quarter) == ("2022-08-19", 2023, 2)


def test_an_8k_whose_text_names_its_quarter_s_fiscal_year_takes_that_name() -> None:
    named = filing_info(RESULTS_8K.format(
        reported="May 20, 2022", quarter="First", ended="April 30, 2022",
        year_end=" Sales for the first quarter of fiscal 2022 were $2.1 billion."))
    assert named is not None and (named.fiscal_year, named.fiscal_quarter) == (2022, 1)


def test_an_8k_furnishing_no_results_keeps_the_year_of_its_date() -> None:
    info = filing_info("FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event "
                       "reported): May 5, 2023\nOstrava Beverages Corporation\n(Exact name of "
                       "registrant as specified in its charter)\nItem 5.02 Departure of "
                       "Directors. Our fiscal year ends on June 30.\n")
    assert info is not None and (info.fiscal_year, info.fiscal_quarter) == (2023, None)
