"""Dates and fiscal periods as filings print them: ``December 31, 2017``, ``FY2023``, ``Q4``.

Pure functions. A fiscal year is named by the calendar year it ends in (a year ended
June 30, 2023 is fiscal 2023; one ended January 28, 2023 is fiscal 2023 too), and its
quarters are counted from the month after the fiscal year end. A filing that names its
year otherwise is catalogued by its own name (:mod:`archivist.filings.naming`).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = [
    "MONTHS", "dates_after", "fiscal_quarter", "fiscal_year_close", "fiscal_year_of", "iso_date",
    "last_year_close", "parse_date", "parse_month_day", "quarter_end",
]

MONTHS = {name: number for number, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec")), start=1) for name in names}

_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|" \
         r"aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
DATE = re.compile(_MONTH + r"\s+(?P<day>\d{1,2})\s*,?\s*(?P<year>(?:19|20)\d{2})\b", re.I)
#: A date written in figures, month first as US filings print it: ``3/25/2023``.
NUMERIC_DATE = re.compile(r"(?<![\d/])(?P<month>\d{1,2})/(?P<day>\d{1,2})/"
                          r"(?P<year>(?:19|20)\d{2})\b")
MONTH_DAY = re.compile(_MONTH + r"\s+(?P<day>\d{1,2})\b", re.I)


def parse_date(text: str) -> date | None:
    """The first ``Month day, year`` (or ``month/day/year``) in ``text`` as a date, or ``None``."""
    found = [m for m in (DATE.search(text), NUMERIC_DATE.search(text)) if m]
    if not found:
        return None
    match = min(found, key=lambda m: m.start())
    month = match["month"]
    try:
        return date(int(match["year"]), int(month) if month.isdigit() else
                    MONTHS[month.lower().rstrip(".")], int(match["day"]))
    except (KeyError, ValueError):
        return None


def dates_after(pattern: re.Pattern[str], text: str) -> list[date]:
    """Each date printed right after a match of ``pattern`` (``ended March 25, 2023``)."""
    found = []
    for match in pattern.finditer(text):
        after = text[match.end():match.end() + 30].lstrip()
        day = parse_date(after) if DATE.match(after) else None
        if day is not None:
            found.append(day)
    return found


def parse_month_day(text: str) -> tuple[int, int] | None:
    """The first ``Month day`` in ``text`` as ``(month, day)``, or ``None``."""
    match = MONTH_DAY.search(text)
    if not match:
        return None
    month, day = MONTHS[match["month"].lower().rstrip(".")], int(match["day"])
    return (month, day) if 1 <= day <= 31 else None


def iso_date(value: date) -> str:
    """``2017-12-31``."""
    return value.isoformat()


def _months_after(end: tuple[int, int], day: date) -> int:
    """Months from the last fiscal year end (month, day) to ``day``, rounded: 0 to 11."""
    months = (day.month - end[0]) % 12 + (day.day - end[1]) / 30.5
    return round(months) % 12


def _year_end_in(year: int, end: tuple[int, int]) -> date:
    day = end[1]
    while True:
        try:
            return date(year, end[0], day)
        except ValueError:  # February 29 in a common year
            day -= 1


def fiscal_year_of(day: date, year_end: tuple[int, int] | None) -> int:
    """The fiscal year ``day`` falls in, for a fiscal year ending on ``year_end`` (month, day).

    It is the year of the first fiscal year end on or after ``day`` (a week's slack for
    52/53-week years); the calendar year when ``year_end`` is unknown or falls in the first
    week of January (a 52/53-week year ending near December 31).
    """
    if year_end is None or _near_new_year(year_end):  # 52/53 weeks near Dec 31
        return day.year if year_end is None or day.month > 1 or day.day > 7 else day.year - 1
    end = _year_end_in(day.year, year_end)
    return day.year if (day - end).days <= 7 else day.year + 1


def _near_new_year(year_end: tuple[int, int]) -> bool:
    return year_end[0] == 1 and year_end[1] <= 7


def fiscal_year_close(fiscal_year: int, year_end: tuple[int, int],
                      cited: date | None = None) -> date:
    """The last day of ``fiscal_year``, for a year ending on ``year_end`` (month, day).

    It falls in the calendar year ``fiscal_year``, or the next one for a 52/53-week year
    ending in the first week of January (as :func:`fiscal_year_of` names years). ``cited``
    is a year end the filing prints with its year: when that is no month's last day the
    year has 52 or 53 weeks, and every year of it closes on the same weekday, so the close
    is the day on that weekday nearest ``year_end`` (January 2, 2022 a Sunday: fiscal 2022
    closes on January 1, 2023).
    """
    close = _year_end_in(fiscal_year + (1 if _near_new_year(year_end) else 0), year_end)
    if cited is None or (cited + timedelta(days=1)).month != cited.month:
        return close
    return close + timedelta(days=(cited.weekday() - close.weekday() + 3) % 7 - 3)


def last_year_close(day: date, year_end: tuple[int, int], cited: date | None = None) -> date:
    """The last fiscal year close (:func:`fiscal_year_close`) on or before ``day``."""
    return max(close for close in (fiscal_year_close(year, year_end, cited)
                                   for year in range(day.year - 2, day.year + 2))
               if close <= day)


def fiscal_quarter(day: date, year_end: tuple[int, int] | None) -> int | None:
    """The fiscal quarter (1-4) a period ending on ``day`` closes, or ``None``.

    ``None`` when ``day`` is no quarter end of a year ending on ``year_end`` (the calendar
    year when unknown).
    """
    months = _months_after(year_end or (12, 31), day)
    if months % 3:
        return None
    return 4 if months == 0 else months // 3


def quarter_end(fiscal_year: int, quarter: int, year_end: tuple[int, int] | None) -> date:
    """The last day of ``quarter`` (1-4) of ``fiscal_year``, for a year ending on ``year_end``.

    A year end on a month's last day gives quarter ends on months' last days; a 52/53-week
    year's quarters end within a week of the date given.
    """
    month, day = year_end or (12, 31)
    if month == 1 and day <= 7:  # a 52/53-week year ending near December 31
        month, day = 12, 31
    back = month - 3 * (4 - quarter)
    year = fiscal_year if back > 0 else fiscal_year - 1
    back = back if back > 0 else back + 12
    month_end = _year_end_in(year, (back, 31))
    if day >= _year_end_in(fiscal_year, (month, 31)).day:  # the year ends on a month's end
        return month_end
    return month_end.replace(day=min(day, month_end.day))
