"""``--where`` filters: parsed with clear errors, matched against filing metadata."""

from __future__ import annotations

import pytest

from archivist.filings.where import filtered_ids, matches, parse_where
from archivist.types import DocumentRecord


def _record(document_id: str, **filing: object) -> DocumentRecord:
    return DocumentRecord(document_id, "default", f"/x/{document_id}", f"{document_id}.pdf",
                          "h", 1, 1, 1, 1, "", **filing)  # type: ignore[arg-type]


RECORDS = [
    _record("a", company="Quillfeather Instruments, Inc.", ticker="QFI", form="10-K",
            fiscal_year=2022, period="2022-06-30", fiscal_year_end="06-30"),
    _record("b", company="Harborline Foods Corporation", ticker="HBLF", form="earnings release",
            fiscal_year=2023, fiscal_quarter=4, period="2023-12-31"),
    _record("c"),  # no filing
]


def test_filters_match_word_starts_tickers_forms_and_numbers() -> None:
    assert filtered_ids(RECORDS, parse_where(["company=quillfeather"])) == ["a"]
    assert filtered_ids(RECORDS, parse_where(["company=Quill"])) == []  # a whole word
    assert filtered_ids(RECORDS, parse_where(["company=HBLF"])) == ["b"]
    assert filtered_ids(RECORDS, parse_where(["form=10-k", "fiscal_year=FY2022"])) == ["a"]
    assert filtered_ids(RECORDS, parse_where(["form=earnings", "fiscal_quarter=Q4"])) == ["b"]
    assert filtered_ids(RECORDS, parse_where(["period=2023"])) == ["b"]
    assert filtered_ids(RECORDS, parse_where(["fiscal_year=2021"])) == []
    assert not matches(RECORDS[2], {"company": "Quillfeather"})


@pytest.mark.parametrize(("items", "message"), [
    (["company"], "is not key=value"),
    (["colour=red"], "unknown filter key 'colour'"),
    (["form="], "has no value"),
    (["form=10-K", "form=10-Q"], "given twice"),
    (["fiscal_year=last"], "must be a number"),
])
def test_a_bad_filter_is_named_with_the_reason(items: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_where(items)
