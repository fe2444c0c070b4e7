"""The fiscal year a filer names its own reporting period by.

The catalog names a fiscal year by the calendar year it ends in (:mod:`periods`); some
filers name a year that ends in January by the year it starts in (``fiscal 2022``: the 52
weeks ended January 28, 2023). A filing's own text shows its naming in two ways: a fiscal
year named with the day it, or one of its quarters, ended (``fiscal 2021 ended January 29,
2022``, ``January 28, 2023 ("fiscal 2022")``, ``the third quarter of fiscal 2022 ended
October 29, 2022``), and a period phrase naming the quarter or year the filing reports
(``fourth quarter of fiscal 2022``, ``Q3 FY23``, ``fiscal 2022 results``). Pure functions
over plain text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import date, timedelta

from archivist.filings.periods import DATE, parse_date

__all__ = ["filer_year", "named_like", "shifted", "year_end_of"]

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_DAY = DATE.pattern.replace("?P<", "?P<d_")
"""``Month day, year``, its groups renamed so that a pattern may hold it beside a year."""


def _quarter_words(name: str) -> str:
    return rf"(?:(?P<{name}>first|second|third|fourth)[- ]quarter(?:\s+of)?|\bQ(?P<{name}n>[1-4]))"


def _name(group: str = "year") -> str:
    return rf"\b(?:fiscal(?:\s+year)?|FY)\s?['’]?(?P<{group}>(?:19|20)\d{{2}}|\d{{2}})\b"


_NOT_ANOTHER = r"(?:(?!fiscal|\bFY)[^.;])"
"""A gap that names no other fiscal year."""
_NAMED_THEN_ENDED = re.compile(
    rf"(?:{_quarter_words('before')}\s+)?{_name()}(?:\s+{_quarter_words('after')})?"
    rf"{_NOT_ANOTHER}{{0,60}}?\b(?:ended|ending|ends|closed)\s+(?:on\s+)?(?P<day>{_DAY})", re.I)
"""``the third quarter of fiscal 2022 ended October 29, 2022``: a year named, then its day."""
_ENDED_THEN_NAMED = re.compile(
    rf"(?P<label>[^.;]{{0,30}})\b(?:ended|ending)\s+(?P<day>{_DAY})\s*,?\s*\(\s*(?:the\s+)?[“\"']?\s*"
    rf"(?:{_quarter_words('inside')}\s+)?{_name()}", re.I)
"""``the 52 weeks ended January 28, 2023 ("fiscal 2022")``: a day, then the year it names."""
_PHRASES = re.compile(
    rf"{_quarter_words('before')}\s+(?:and\s+(?:full[- ]year\s+)?)?{_name('year')}"
    rf"|{_name('year2')}\s+{_quarter_words('after')}"
    rf"|{_name('year3')}\s+(?:annual\s+|full[- ]year\s+)?results", re.I)
"""A period phrase: ``fourth quarter of fiscal 2022``, ``FY23 Q3``, ``fiscal 2022 results``."""
_A_QUARTER = re.compile(r"quarter|months|\b(?:twelve|thirteen|fourteen|sixteen|1[2346])[- ]weeks",
                        re.I)
"""A period's label that names a quarter's length."""


def _year(match: re.Match[str]) -> int:
    text = next(match[g] for g in ("year", "year2", "year3")
                if g in match.re.groupindex and match[g])
    value = int(text)
    return value + 2000 if value < 100 else value


def _quarter(match: re.Match[str], *groups: str) -> int | None:
    for group in groups:
        word, number = match.group(group), match.group(group + "n")
        if word or number:
            return _ORDINALS.get((word or "").lower()) or int(number)
    return None


def shifted(day: date, months: int) -> date:
    """``day`` moved ``months`` months on (its day of month, or the month's last day)."""
    total = day.month - 1 + months
    year, month = day.year + total // 12, total % 12 + 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))


def _year_of(end: date, close: date, named: int) -> int:
    """The name of the fiscal year holding ``end``, the year closing on ``close`` being ``named``.

    A week's slack allows for 52/53-week years.
    """
    return named + math.ceil(((end - close).days - 7) / 365.25)


def _close(day: date, quarter: int | None) -> date:
    """The fiscal year's last day, ``day`` being that of ``quarter`` (``None``: of the year)."""
    return shifted(day, 3 * (4 - quarter)) if quarter else day


def _dated_years(text: str, end: date) -> list[int]:
    """The name of ``end``'s fiscal year by each year the text names with its day."""
    years = []
    for match in _NAMED_THEN_ENDED.finditer(text):
        day = parse_date(match["day"])
        if day is not None:
            years.append(_year_of(end, _close(day, _quarter(match, "before", "after")),
                                  _year(match)))
    for match in _ENDED_THEN_NAMED.finditer(text):
        day = parse_date(match["day"])
        quarter = _quarter(match, "inside")
        if day is None or (quarter is None and _A_QUARTER.search(match["label"])):
            continue  # a quarter's day with no quarter named: not the year's close
        years.append(_year_of(end, _close(day, quarter), _year(match)))
    return years


def _phrased_years(text: str, quarter: int) -> list[int]:
    """The years the text names ``quarter`` of (a fourth quarter: the year's results too)."""
    years = []
    for match in _PHRASES.finditer(text):
        named = _quarter(match, "before", "after")
        if named == quarter or (named is None and quarter == 4):
            years.append(_year(match))
    return years


def year_end_of(end: date, quarter: int) -> tuple[int, int]:
    """The fiscal year end (month, day) implied by ``quarter`` ending on ``end``."""
    close = _close(end, quarter)
    return close.month, close.day


def _starts_a_year_before(year_end: tuple[int, int] | None) -> bool:
    """Whether a fiscal year ending on ``year_end`` starts in the calendar year before."""
    return year_end is not None and year_end[0] != 12 and not (year_end[0] == 1
                                                               and year_end[1] <= 7)


def named_like(year: int | None, fiscal_year: int, year_end: tuple[int, int] | None) -> bool:
    """Whether ``year`` can name the fiscal year the catalog names ``fiscal_year``.

    A year is named by its end, or by its start when it starts in the calendar year before.
    """
    return year == fiscal_year or (year == fiscal_year - 1 and _starts_a_year_before(year_end))


def filer_year(text: str, top: str, end: date, quarter: int | None, fiscal_year: int,
               year_end: tuple[int, int] | None) -> int | None:
    """The fiscal year the filing names its period by, or ``None`` when it names none.

    ``end`` is the last day of the period reported, ``quarter`` its fiscal quarter (4 for
    a year; ``None`` when unknown), ``fiscal_year`` its year named by its end for a year
    ending on ``year_end``. A year ``text`` names with its day decides (the name most of
    those give ``end``'s year, within a year of ``end``'s); else the latest year a phrase in
    ``top`` (a release's headline, where it names what it reports) names the reported
    quarter of, by its end or its start (the others are comparatives).
    """
    dated = [y for y in _dated_years(" ".join(text.split()), end) if abs(y - end.year) <= 1]
    if dated:
        return Counter(dated).most_common(1)[0][0]
    phrased = [y for y in _phrased_years(" ".join(top.split()), quarter)
               if named_like(y, fiscal_year, year_end)] if quarter else []
    return max(phrased) if phrased else None
