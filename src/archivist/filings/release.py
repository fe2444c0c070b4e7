"""The fiscal period an earnings release reports, read from its headline, dateline and text.

Pure functions over a release's plain text (markup removed). A period printed with its
date (``the 12 weeks ended March 25, 2023``) decides; else the headline's words
(``fourth quarter and full year 2022``) give the fiscal year and quarter, and a fourth
quarter closes on the fiscal year's last day.
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from archivist.filings.naming import year_end_of
from archivist.filings.periods import (
    dates_after,
    fiscal_quarter,
    fiscal_year_close,
    fiscal_year_of,
    last_year_close,
    parse_date,
)

__all__ = ["RESULTS", "ReportedPeriod", "named_period", "release_period", "results_period"]

RESULTS = re.compile(
    r"\b(?:reports?|reported|announce[sd]?|delivers?|posts?)\b[^.\n]{0,90}\b(?:results|earnings)\b"
    r"|\b(?:quarter|fiscal|full[- ]year|annual)\b[^.\n]{0,40}\b(?:results|earnings release)\b",
    re.I)
"""A headline or dateline that reports results."""
_TOP_CHARS = 2_500  # a release's headline and dateline
_BODY_CHARS = 8_000  # where a release prints the period it reports
_PERIOD_END = re.compile(
    r"(?:three|3|twelve|12) months ended\s*|quarter ended\s*"
    r"|\b\w+[- ]weeks?(?:\s+period)?\s*(?:\([^()]{0,40}\)\s*)?ended\s*", re.I)
"""``three months ended``, ``quarter ended``, ``12 weeks ended``, ``fifty-two-week period
("fiscal year") ended``: a label a period's last day follows."""
_FISCAL_NAMED = re.compile(r"\b(?:fiscal(?: year)?|FY)\s?'?((?:19|20)?\d{2})\b", re.I)
_QUARTER_NAMED = re.compile(r"\b(first|second|third|fourth)[- ]quarter\b|\bQ([1-4])\b", re.I)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_FULL_YEAR = re.compile(r"\bfull[- ]year\b|\bfiscal (?:year )?(?:19|20)\d{2} results\b", re.I)


class ReportedPeriod(NamedTuple):
    """A fiscal year and quarter and the period's last day; any may be unknown."""

    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    end: date | None = None


def named_period(top: str) -> ReportedPeriod:
    """The fiscal year and quarter a headline or dateline names.

    ``Fourth-Quarter 2022 Results``, ``results for the fourth quarter and full year 2022``
    and ``fiscal 2022`` all name fiscal 2022, quarter 4; ``First Quarter Results`` names
    quarter 1 of no year.
    """
    top = " ".join(top.split())  # a headline broken over lines
    years = re.findall(r"\b((?:19|20)\d{2})\b(?=[^.\n]{0,40}\bresults\b)"
                       r"|(?<=\bresults for\b)[^.\n]{0,40}?\b((?:19|20)\d{2})\b", top, re.I)
    years = [a or b for a, b in years] or _FISCAL_NAMED.findall(top)
    quarter = _QUARTER_NAMED.search(top)
    number: int | None = 4 if years and _FULL_YEAR.search(top) else None
    if quarter:
        number = _ORDINALS.get((quarter.group(1) or "").lower()) or int(quarter.group(2))
    if not years:
        return ReportedPeriod(None, number)
    return ReportedPeriod(int(years[0]) + (2000 if int(years[0]) < 100 else 0), number)


def release_period(head: str, year_end: tuple[int, int] | None,
                   cited: date | None) -> ReportedPeriod:
    """The period an earnings release reports.

    The latest date printed after a period's label (``weeks ended``, ``quarter ended``)
    is its last day, placed in a fiscal year by ``year_end`` (unknown: the year the
    headline's quarter, ending that day, belongs to); the headline's quarter stands when
    that day is no quarter's end. Else the headline names the year and
    quarter, and a fourth quarter closes on the last fiscal year end on or before the
    release's date (its first date printed), so a year ending in January is the one that
    ended just before the release, whatever year the headline names it by. ``cited`` is a
    year end printed with its year (see :func:`fiscal_year_close`).
    """
    named = named_period(head[:_TOP_CHARS])
    found = dates_after(_PERIOD_END, head[:_BODY_CHARS])
    if found:
        end = max(found)
        if year_end is None and named.fiscal_quarter:  # the quarter named places the year
            year_end = year_end_of(end, named.fiscal_quarter)
        return ReportedPeriod(fiscal_year_of(end, year_end),
                              fiscal_quarter(end, year_end) or named.fiscal_quarter, end)
    if named.fiscal_year is None or named.fiscal_quarter != 4 or year_end is None:
        return named
    issued = parse_date(head[:_TOP_CHARS])
    if issued is not None:
        close = last_year_close(issued, year_end, cited)
        if abs(fiscal_year_of(close, year_end) - named.fiscal_year) <= 1:
            return ReportedPeriod(fiscal_year_of(close, year_end), 4, close)
    return ReportedPeriod(named.fiscal_year, 4,
                          fiscal_year_close(named.fiscal_year, year_end, cited))


def results_period(head: str) -> ReportedPeriod:
    """The fiscal year and quarter of the results an 8-K furnishes, when it names them.

    ``fourth quarter and fiscal year 2022 results`` is fiscal 2022, quarter 4; the 8-K
    keeps its date of report as its period.
    """
    text = " ".join(head.split())  # a headline broken over lines
    for match in RESULTS.finditer(text):
        named = named_period(text[max(0, match.start() - 160):match.end() + 160])
        if named.fiscal_year is not None:
            return named
    return ReportedPeriod()
