"""Filing metadata read from made-up cover pages and headlines, never from a file name."""

from __future__ import annotations

from datetime import date

from archivist.filings.cover import core_name, filing_info
from archivist.filings.periods import (
    fiscal_quarter,
    fiscal_year_close,
    fiscal_year_of,
    last_year_close,
)

TEN_K = """#### UNITED STATES SECURITIES AND EXCHANGE COMMISSION
**Washington, D.C. 20549**
#### FORM 10-K
x **ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934**
**For the fiscal year ended January 28, 2023**
**Commission File Number: 001-12345**
#### Larkspur Outfitters, Inc.
(Exact name of registrant as specified in its charter)
|Title of each class|Trading Symbol(s)|Name of each exchange on which registered|
|---|---|---|
|Common Stock, $0.10 par value|LKSP|New York Stock Exchange|
"""

TEN_Q = """FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended December 31, 2022
Brindlewood Packaging plc
(Exact name of registrant as specified in its charter)

Our fiscal year ends on June 30. Results for interim periods are not indicative.
"""

EIGHT_K = """FORM 8-K
CURRENT REPORT
Pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934
Date of Report (Date of earliest event reported): May 5, 2023
Ostrava Beverages Corporation
(Exact name of registrant as specified in its charter)
"""

RELEASE = """# Highlights
**Tamarind Health reports fourth-quarter and full-year 2022 results**
NEW BRUNSWICK - Tamarind Health Company (NYSE: TMH) today announced sales of $9.1 billion.
Tamarind Health Company expects growth in fiscal 2023. Contact: press@tamarind.example
The company's fiscal year ended December 31, 2022.
"""

MANUAL = """# Garden irrigation manual
Set the valve to position two. This manual is not a filing, though our parent company's
annual report on Form 10-K for the fiscal year ended December 31, 2021 mentions us.
""" + "Water the beds at dawn. " * 400


def test_a_10k_cover_gives_registrant_ticker_and_a_52_week_fiscal_year() -> None:
    info = filing_info(TEN_K)
    assert info is not None
    assert (info.company, info.ticker, info.form) == ("Larkspur Outfitters, Inc.", "LKSP", "10-K")
    assert (info.period, info.fiscal_year, info.fiscal_year_end) == ("2023-01-28", 2023, "01-28")
    assert info.fiscal_quarter is None


def test_a_10q_of_a_june_year_end_is_the_second_quarter_of_the_next_fiscal_year() -> None:
    info = filing_info(TEN_Q)
    assert info is not None
    assert (info.company, info.form, info.period) == ("Brindlewood Packaging plc", "10-Q",
                                                      "2022-12-31")
    assert (info.fiscal_year, info.fiscal_quarter, info.fiscal_year_end) == (2023, 2, "06-30")


def test_an_8k_is_dated_by_its_event() -> None:
    info = filing_info(EIGHT_K)
    assert info is not None
    assert (info.company, info.form, info.period) == ("Ostrava Beverages Corporation", "8-K",
                                                      "2023-05-05")


def test_an_earnings_release_is_known_by_its_headline_and_names_its_company() -> None:
    info = filing_info(RELEASE)
    assert info is not None
    assert (info.form, info.company, info.ticker) == ("earnings release",
                                                      "Tamarind Health Company", "TMH")
    assert (info.fiscal_year, info.fiscal_quarter, info.period) == (2022, 4, "2022-12-31")


def test_a_document_that_only_mentions_a_form_later_is_no_filing() -> None:
    assert filing_info(MANUAL) is None
    assert filing_info("") is None


def test_fiscal_periods_and_names() -> None:
    assert fiscal_year_of(date(2022, 10, 29), (1, 28)) == 2023
    assert fiscal_year_of(date(2023, 1, 28), (1, 28)) == 2023
    assert fiscal_year_of(date(2022, 12, 31), (6, 30)) == 2023
    assert fiscal_year_of(date(2022, 12, 31), None) == 2022
    assert fiscal_quarter(date(2022, 10, 29), (1, 28)) == 3
    assert fiscal_quarter(date(2023, 6, 30), (6, 30)) == 4
    assert fiscal_quarter(date(2023, 5, 15), None) is None
    assert core_name("Netherby Mills, Inc.") == "Netherby Mills"
    assert core_name("Brindlewood Packaging plc") == "Brindlewood Packaging"
    assert core_name("WYNDCREST OUTFITTERS CO., INC.") == "WYNDCREST OUTFITTERS"
    assert core_name("SELBORNE CORPORATION") == "SELBORNE"
    assert core_name("Maarsveld N.V.") == "Maarsveld"


def test_a_cover_without_the_registrant_line_never_names_a_check_box() -> None:
    cover = ("FORM 10-K\nFor the fiscal year ended June 30, 2023\nLarge Accelerated Filer x\n"
             "Smaller Reporting Company \u2610 Emerging Growth Company \u2610\n"
             "See the definitions of Smaller Reporting Company and Emerging Growth Company; "
             "a Smaller Reporting Company may elect. Our common stock trades under the "
             "symbol \u201cOSTV.\u201d Ostrava Beverages Corporation makes tea.\n")
    info = filing_info(cover)
    assert info is not None
    assert (info.company, info.ticker) == ("Ostrava Beverages Corporation", "OSTV")


def test_a_52_week_year_ending_in_the_first_days_of_january_is_the_calendar_year() -> None:
    assert fiscal_year_of(date(2023, 8, 30), (1, 1)) == 2023
    assert fiscal_year_of(date(2023, 1, 1), (1, 1)) == 2022
    assert fiscal_quarter(date(2023, 7, 2), (1, 1)) == 2


SUBSIDIARY_ON_TOP = """BRAMBLECOTE WIRELESS LLC
A subsidiary of the registrant; Bramblecote Wireless LLC, Bramblecote Wireless LLC and
Bramblecote Wireless LLC brands appear throughout this report.
UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended September 30, 2022
Commission File Number 001-45678
Harrowgate Communications Corporation
Delaware
(State or other jurisdiction of incorporation)
(Exact name of registrant as specified in its charter)
"""

COMBINED = """FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2022
Commission File Number 1-1111
Pellingham Energy Holdings, Inc.
(Exact name of registrant as specified in its charter)
Commission File Number 1-2222
Pellingham Electric Company
(Exact name of registrant as specified in its charter)
"""

RELEASE_CITING_A_10Q = """Fennimore Robotics reports third quarter 2023 results
AUSTIN, Texas, Nov. 2, 2023 -- Fennimore Robotics, Inc. (NASDAQ: FNRB) today reported
revenue of $412 million for the quarter ended September 30, 2023. Its Quillstar Systems, Inc.
unit grew; Quillstar Systems, Inc. and Quillstar Systems, Inc. products sold well. Details
are in the Company's Quarterly Report on
Form 10-Q for the quarter ended September 30, 2023, to be filed with the SEC.
"""

EIGHT_K_WITH_RESULTS = """FORM 8-K
CURRENT REPORT
Pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934
Date of Report (Date of earliest event reported): February 8, 2023
Wexcombe Foods Corporation
(Exact name of registrant as specified in its charter)
Item 2.02 Results of Operations and Financial Condition.
On February 8, 2023, the Company issued a press release on its results of operations.
Exhibit 99.1
Wexcombe Foods Reports Fourth Quarter and Fiscal Year
2022 Results
"""


def test_the_registrant_line_wins_over_a_name_printed_above_the_cover() -> None:
    info = filing_info(SUBSIDIARY_ON_TOP)
    assert info is not None
    assert (info.company, info.form, info.fiscal_year) == (
        "Harrowgate Communications Corporation", "10-K", 2022)


def test_a_combined_filing_is_filed_by_its_first_registrant() -> None:
    info = filing_info(COMBINED)
    assert info is not None and info.company == "Pellingham Energy Holdings, Inc."


def test_a_release_is_issued_by_the_company_in_its_dateline_and_cites_its_10q() -> None:
    info = filing_info(RELEASE_CITING_A_10Q)
    assert info is not None
    assert (info.form, info.company, info.ticker) == ("earnings release",
                                                      "Fennimore Robotics, Inc.", "FNRB")
    assert (info.fiscal_year, info.fiscal_quarter, info.period) == (2023, 3, "2023-09-30")


def test_an_8k_furnishing_results_is_dated_by_its_event_and_placed_by_its_results() -> None:
    info = filing_info(EIGHT_K_WITH_RESULTS)
    assert info is not None
    assert (info.form, info.company, info.period) == ("8-K", "Wexcombe Foods Corporation",
                                                      "2023-02-08")
    assert (info.fiscal_year, info.fiscal_quarter) == (2022, 4)


RELEASE_CITING_ITS_10Q_BY_THE_SEC = """# Overview

**Quenby Mills Reports Second-Quarter 2024 Results; Reaffirms Guidance**

|Col1|Second-Quarter|
|---|---|
|Net revenue growth|4.1%|

**DAYTON, Ohio - July 18, 2024** - Quenby Mills, Inc. (NYSE: QNB) today reported results for
the second quarter 2024. Please refer to Quenby Mills' Quarterly Report on Form 10-Q for the
24 weeks ended June 15, 2024 (Q2 2024
Form 10-Q) filed with the Securities and Exchange Commission (SEC) for more information.
"""


def test_a_release_citing_its_10q_filed_with_the_sec_stays_a_release() -> None:
    info = filing_info(RELEASE_CITING_ITS_10Q_BY_THE_SEC)
    assert info is not None
    assert (info.form, info.company, info.ticker) == ("earnings release", "Quenby Mills, Inc.",
                                                      "QNB")
    assert (info.fiscal_year, info.fiscal_quarter, info.period) == (2024, 2, "2024-06-15")


SUNDAY_YEAR_RELEASE = """FOR IMMEDIATE RELEASE
- 2021 Fourth-Quarter reported sales growth of 3.2% to $8.4 Billion
**Millbrook, Vt. (January 25, 2022)** - Harlow & Pike (NYSE: HLP) today announced results for
fourth quarter and full year 2021.
Risks are described in Harlow & Pike's Annual Report on Form 10-K for the fiscal year ended
January 3,

2021, and its later reports.
"""

WEEKS_RELEASE = """March 7, 2024
# Tessaly Cosmetics Announces Fourth Quarter Fiscal 2023 Results
BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Tessaly Cosmetics, Inc. (NASDAQ: TSLY) today
announced financial results for the fourteen-week period ("fourth quarter") and fifty-three-week
period ("fiscal year") ended February 3, 2024 compared to the same periods ended January
28, 2023. Risk factors are in its Annual Report on Form 10-K for the fiscal year ended
January 28, 2023.
"""

LABELLED_BY_ITS_FIRST_YEAR = """March 8, 2023
# Wrenfield Stores Reports Fourth Quarter Fiscal 2022 Results
CHICAGO -- Wrenfield Stores, Inc. (NYSE: WRN) today reported sales up 6%. Risk factors are in
its Annual Report on Form 10-K for the fiscal year ended January 29, 2022.
"""


def test_a_52_week_year_closes_on_the_weekday_of_the_year_end_it_cites() -> None:
    info = filing_info(SUNDAY_YEAR_RELEASE)
    assert info is not None
    assert (info.form, info.company) == ("earnings release", "Harlow & Pike")
    assert (info.fiscal_year, info.fiscal_quarter, info.period, info.fiscal_year_end) == (
        2021, 4, "2022-01-02", "01-02")


def test_a_release_printing_its_weeks_ended_is_placed_by_that_date() -> None:
    info = filing_info(WEEKS_RELEASE)
    assert info is not None
    assert (info.company, info.period, info.fiscal_quarter) == ("Tessaly Cosmetics, Inc.",
                                                                "2024-02-03", 4)
    assert (info.fiscal_year, info.fiscal_year_end) == (2023, "02-03")  # as its headline names it


def test_a_fourth_quarter_closes_on_the_last_year_end_before_the_release() -> None:
    info = filing_info(LABELLED_BY_ITS_FIRST_YEAR)
    assert info is not None  # the year ended January 28, 2023, named as the filer names it
    assert (info.period, info.fiscal_year, info.fiscal_quarter, info.fiscal_year_end) == (
        "2023-01-28", 2022, 4, "01-28")


def test_fiscal_year_closes() -> None:
    assert fiscal_year_close(2022, (6, 30)) == date(2022, 6, 30)
    assert fiscal_year_close(2022, (1, 2)) == date(2023, 1, 2)
    assert fiscal_year_close(2022, (1, 2), cited=date(2022, 1, 2)) == date(2023, 1, 1)
    assert fiscal_year_close(2023, (12, 31), cited=date(2022, 12, 31)) == date(2023, 12, 31)
    assert last_year_close(date(2023, 3, 8), (1, 29)) == date(2023, 1, 29)
    assert last_year_close(date(2023, 1, 20), (1, 29)) == date(2022, 1, 29)


COVER_WITHOUT_THE_REGISTRANT_LABEL = """#### UNITED STATES SECURITIES AND EXCHANGE COMMISSION
**Washington, D.C. 20549**
#### FORM 10-K
**☒ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934**
**For the Fiscal Year Ended September 30, 2023**
**☐ TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934**
**Commission File Number 001-55512**
#### CALDERWICK SYSTEMS CORPORATION


### OREGON 93-1234567
### (STATE OF INCORPORATION) (I.R.S. ID)
Title of each class Trading Symbol Name of exchange on which registered
**Common stock, $0.001 par value per share CWSY NASDAQ**
Item 1. Business. In 2023 we bought Fernhollow Games, Inc.; Fernhollow Games, Inc. and
Fernhollow Games, Inc. titles, and the Fernhollow Games, Inc. team, joined us.
"""

DATELINE_WITH_A_SHORT_NAME = """## **Exhibit 99.1**
# **TARNBY LEISURE GROUP REPORTS THIRD QUARTER 2023 FINANCIAL AND OPERATING RESULTS**
  - Record revenue at Tarnby Digital, LLC; Tarnby Digital, LLC grew 40%
**<mark>Reno, Nevada, November 1, 2023</mark>** <mark>– Tarnby Leisure Group (NYSE: TLG)
(“Tarnby” or the “Company”) today reported financial results for the quarter ended September 30,
2023.</mark> Tarnby Digital, LLC and Tarnby Digital, LLC partners also grew.
"""

HEADLINE_IN_CAPITALS = """# **TARNBY LEISURE GROUP REPORTS THIRD QUARTER 2023 RESULTS**
Reno, Nevada, November 1, 2023. Revenue at Tarnby Digital, LLC rose; Tarnby Digital, LLC and
Tarnby Digital, LLC partners grew.
"""


def test_a_cover_without_the_registrant_label_is_filed_by_the_name_after_its_file_number() -> None:
    info = filing_info(COVER_WITHOUT_THE_REGISTRANT_LABEL)
    assert info is not None
    assert (info.company, info.ticker, info.form, info.period) == (
        "CALDERWICK SYSTEMS CORPORATION", "CWSY", "10-K", "2023-09-30")


def test_a_dateline_naming_the_company_twice_in_brackets_names_the_issuer() -> None:
    info = filing_info(DATELINE_WITH_A_SHORT_NAME)
    assert info is not None
    assert (info.form, info.company, info.ticker) == ("earnings release",
                                                      "Tarnby Leisure Group", "TLG")
    assert (info.fiscal_year, info.fiscal_quarter, info.period) == (2023, 3, "2023-09-30")


def test_a_headline_in_capitals_names_the_issuer() -> None:
    info = filing_info(HEADLINE_IN_CAPITALS)
    assert info is not None and info.company == "TARNBY LEISURE GROUP"


EIGHT_K_NAME_BROKEN_OVER_LINES = """FORM 8-K
CURRENT
REPORT
Date of Report (Date of earliest event
reported): **March 3, 2023 (March 1, 2023)**
#### OSSINGTON
PLC**
(Exact
name of registrant as specified in its charter)
"""


def test_a_registrant_name_and_label_broken_over_lines_are_read_whole() -> None:
    info = filing_info(EIGHT_K_NAME_BROKEN_OVER_LINES)
    assert info is not None
    assert (info.form, info.company, info.period) == ("8-K", "OSSINGTON PLC", "2023-03-03")
