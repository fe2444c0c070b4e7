"""Scoping made-up questions to made-up filings by company, ticker, form and period."""

from __future__ import annotations

from archivist.filings.scope import named_forms, named_quarters, named_years, scope

DOCS = [
    {"document_id": "k22", "company": "Quillfeather Instruments, Inc.", "ticker": "QFI",
     "form": "10-K", "fiscal_year": 2022, "fiscal_quarter": None},
    {"document_id": "k23", "company": "Quillfeather Instruments, Inc.", "ticker": "QFI",
     "form": "10-K", "fiscal_year": 2023, "fiscal_quarter": None},
    {"document_id": "q23", "company": "Quillfeather Instruments, Inc.", "ticker": "QFI",
     "form": "10-Q", "fiscal_year": 2023, "fiscal_quarter": 2},
    {"document_id": "hb", "company": "Harborline Foods Corporation", "ticker": "HBLF",
     "form": "earnings release", "fiscal_year": 2023, "fiscal_quarter": 4},
    {"document_id": "jj", "company": "Tamarind & Tamarind", "ticker": "TMT",
     "form": "8-K", "fiscal_year": 2022, "fiscal_quarter": None},
    {"document_id": "manual", "company": None, "form": None, "fiscal_year": None},
]


def test_a_company_by_name_then_its_form_and_year() -> None:
    assert scope("What was Quillfeather's FY2022 operating margin?", DOCS) == ["k22"]
    assert scope("Quillfeather Instruments revenue in its second quarter of fiscal 2023?",
                 DOCS) == ["q23"]
    assert scope("Per the 10-K, what is Quillfeather's capex in fiscal 2023?", DOCS) == ["k23"]
    assert sorted(scope("Has Quillfeather Instruments ever cut its dividend?", DOCS)) == [
        "k22", "k23", "q23"]


def test_a_ticker_and_a_name_with_an_ampersand() -> None:
    assert scope("Did HBLF beat guidance in Q4?", DOCS) == ["hb"]
    assert scope("Which segment grew fastest at Tamarind and Tamarind?", DOCS) == ["jj"]
    assert scope("Is the hblf outlook better?", DOCS) == []  # a ticker is written in capitals


def test_a_year_only_held_as_a_comparative_finds_the_next_filing() -> None:
    assert scope("What was Quillfeather's FY2021 net income?", DOCS) == ["k22"]
    assert sorted(scope("Quillfeather's net income in 2015?", DOCS)) == ["k22", "k23", "q23"]


def test_a_form_or_period_without_a_company_and_no_scope_at_all() -> None:
    assert scope("Which earnings release reports a dividend increase?", DOCS) == ["hb"]
    assert scope("How do I water the garden beds?", DOCS) == []
    assert scope("What did Brandvale Motors earn?", DOCS) == []
    assert scope("What was revenue?", []) == []


def test_what_a_question_names() -> None:
    assert named_forms("the 10-K and the 10Q and an 8-K") == {"10-K", "10-Q", "8-K"}
    assert named_years("FY23 against fiscal year 2021, and in 2019, not $2,019") == {
        2023, 2021, 2019}
    assert named_quarters("Q3 versus the fourth quarter") == {3, 4}


def test_a_company_whose_cover_prints_its_name_in_capitals() -> None:
    docs = [{"document_id": "w23", "company": "WYNDCREST OUTFITTERS CO., INC.", "ticker": "WYO",
             "form": "10-K", "fiscal_year": 2023, "fiscal_quarter": None},
            {"document_id": "s23", "company": "SELBORNE CORPORATION", "ticker": "SLB1",
             "form": "10-K", "fiscal_year": 2023, "fiscal_quarter": None},
            {"document_id": "t23", "company": "Tollgate Media plc", "ticker": "TGM",
             "form": "10-K", "fiscal_year": 2023, "fiscal_quarter": None}]
    assert scope("What was Wyndcrest Outfitters' FY2023 revenue?", docs) == ["w23"]
    assert scope("Does Selborne have positive working capital in FY2023?", docs) == ["s23"]
    assert scope("Is Wyndcrest's margin rising?", docs) == ["w23"]  # its first word
    assert scope("Is wyndcrest's margin rising?", docs) == []  # a first word is capitalised


RETAILER = [
    {"document_id": "k23", "company": "Wrenfield Stores, Inc.", "ticker": "WRN", "form": "10-K",
     "fiscal_year": 2022, "fiscal_quarter": None, "period": "2023-01-28"},
    {"document_id": "k22", "company": "Wrenfield Stores, Inc.", "ticker": "WRN", "form": "10-K",
     "fiscal_year": 2021, "fiscal_quarter": None, "period": "2022-01-29"},
    {"document_id": "q23", "company": "Wrenfield Stores, Inc.", "ticker": "WRN", "form": "10-Q",
     "fiscal_year": 2023, "fiscal_quarter": 2, "period": "2023-07-29"},
]
UNNAMED = [  # a 10-K whose text names no year, and a 10-Q that names its year by its start
    {"document_id": "k", "company": "Tessaly Cosmetics, Inc.", "ticker": "TSLY", "form": "10-K",
     "fiscal_year": 2023, "fiscal_quarter": None, "period": "2023-01-28"},
    {"document_id": "q", "company": "Tessaly Cosmetics, Inc.", "ticker": "TSLY", "form": "10-Q",
     "fiscal_year": 2022, "fiscal_quarter": 2, "period": "2022-07-30"},
]


def test_a_year_named_by_its_start_finds_the_filing_the_filer_names_so() -> None:
    assert scope("What were Wrenfield's fiscal 2022 net sales?", RETAILER) == ["k23"]
    assert scope("What were Wrenfield's fiscal 2021 net sales?", RETAILER) == ["k22"]
    assert scope("Wrenfield's FY2020 net sales?", RETAILER) == ["k22"]  # a comparative column
    assert scope("Wrenfield's second quarter of fiscal 2023 sales?", RETAILER) == ["q23"]


def test_a_year_s_report_ending_the_next_january_is_kept_when_none_is_named_that_year() -> None:
    assert sorted(scope("What were Tessaly's fiscal 2022 net sales?", UNNAMED)) == ["k", "q"]
    assert scope("Tessaly's second quarter of fiscal 2022 sales?", UNNAMED) == ["q"]
    assert scope("Tessaly's fiscal 2023 net sales?", UNNAMED) == ["k"]


def test_a_company_by_the_first_word_of_a_web_or_hyphenated_name() -> None:
    docs = [{"document_id": "z", "company": "ZEPHYRINE.COM, INC.", "form": "10-K",
             "fiscal_year": 2022},
            {"document_id": "m", "company": "Marlowe-Kent Holdings Inc", "form": "10-K",
             "fiscal_year": 2022},
            {"document_id": "k", "company": "Kent Brothers Corp", "form": "10-K",
             "fiscal_year": 2022}]
    assert scope("What was Zephyrine's FY2022 revenue?", docs) == ["z"]
    assert scope("What was Marlowe-Kent's FY2022 revenue?", docs) == ["m"]
    assert scope("Did marlowe kent grow?", docs) == []  # a first word is capitalised

