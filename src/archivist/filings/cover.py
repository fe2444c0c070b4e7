"""A filing's identity read from its own first pages: registrant, form, fiscal period.

Pure functions over a document's Markdown; the file name is never used. A 10-K, 10-Q or
8-K is known by its cover page (``FORM 10-K``, ``(Exact name of registrant as specified in
its charter)``, ``For the fiscal year ended ...``); an earnings release by a headline that
reports results. A document that is neither gets no filing metadata (``None``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import date

from archivist.filings.naming import filer_year, named_like, year_end_of
from archivist.filings.periods import (
    DATE,
    dates_after,
    fiscal_quarter,
    fiscal_year_of,
    iso_date,
    parse_date,
    parse_month_day,
)
from archivist.filings.release import (
    RESULTS,
    ReportedPeriod,
    named_period,
    release_period,
    results_period,
)

__all__ = ["EARNINGS", "FilingInfo", "core_name", "filing_info", "plain_text"]

EARNINGS = "earnings release"
_COVER_CHARS = 6_000  # a cover page's text, markup removed
_HEAD_CHARS = 60_000  # where names and the fiscal year end are counted
_TICKER_CHARS = 200_000  # where a ticker is looked for (a 10-K names it in Item 5)

_MARKUP = re.compile(r"</?mark>|<sup>|</sup>|\*\*|__|^#+\s*|\|", re.M)
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K)(?:405|T)?\b", re.I)
_REPORT_KIND = (("10-K", re.compile(r"\bANNUAL REPORT PURSUANT TO SECTION 13", re.I)),
                ("10-Q", re.compile(r"\bQUARTERLY REPORT PURSUANT TO SECTION 13", re.I)),
                ("8-K", re.compile(r"\bCURRENT REPORT\s+PURSUANT TO SECTION 13", re.I)))
_COVER_MARKS = re.compile(r"SECURITIES AND EXCHANGE COMMISSION|Commission File Number|"
                          r"exact name of (?:the )?registrant|PURSUANT TO SECTION 13", re.I)
"""What only a cover page prints (a press release does not)."""
_REGISTRANT = re.compile(r"\(?\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
_NOT_A_NAME = re.compile(
    r"^\W*\(|commission file|file number|I\.R\.S|employer identification|jurisdiction|"
    r"incorporation|organization|^\W*\d|\bFORM\s+\d|annual report|quarterly report|current "
    r"report|transition report|fiscal year ended|period ended|securities and exchange|"
    r"washington,? d\.?c", re.I)
"""A cover line that is no registrant's name (a label, a number, a form's title)."""
_SUFFIX = (r"(?:plc|PLC|Inc\.?|Incorporated|Corporation|Corp\.|Company|Co\.|Ltd\.?|Limited|"
           r"N\.V\.|S\.A\.|AG|SE|LLC|L\.P\.)")
_NAMED = re.compile(r"\b((?:[A-Z][\w'&.-]*,?\s+|&\s+){0,4}[A-Z][\w'&.-]*),?\s+" + _SUFFIX
                    + r"(?![\w])")
_EXCHANGE = re.compile(r"\(?(?:NYSE|NASDAQ|Nasdaq|NYSE American|ASX|LSE|TSX)\s*:\s*"
                       r"([A-Z][A-Z.]{0,5})\b")
_SYMBOL = re.compile(r"(?:symbol|ticker)\s*[“\"']([A-Z][A-Z.]{0,5})[”\"']")
_TRADING = re.compile(r"Trading\s+Symbol\(?s?\)?", re.I)
_NOT_TICKERS = frozenset({"NYSE", "NASDAQ", "LLC", "USD", "N/A", "NA", "ASX", "THE", "INC",
                          "CO", "PAR", "ADR", "ADS"})
_CHECK_BOXES = re.compile(r"reporting company|growth company|accelerated filer|shell company|"
                          r"seasoned issuer|holding company", re.I)
"""Cover-page phrases that end like a company's name but name none."""
_HEADLINE = re.compile(r"^\s*([A-Z][\w'&.,-]*(?:\s+[A-Z&][\w'&.,-]*){0,3})\s+"
                       r"(?:reports?|announces?|delivers?|posts?|REPORTS|ANNOUNCES|DELIVERS|POSTS)\b",
                       re.M)
"""``<Company> reports ...``, in capitals too (a capital ``REPORT`` is a form's title)."""
_ISSUER = r"(?:^|\n\s*|[—–]\s*|\s-{1,2}\s*)((?:[A-Z][\w'&.-]*,?\s+|&\s+){0,5}[A-Z][\w'&.-]*)"
_REPORTED = (r"\s*,?\s*(?:today|on \w+day|this morning)?\s*,?\s*(?:reported|announced|reports|"
             r"announces|released|posted)\b")
_DATELINES = (re.compile(_ISSUER + r"\s*\((?:NYSE|NASDAQ|Nasdaq|ASX|LSE|TSX|OTC)[^()\n]{1,40}\)"
                         + r"(?:\s*\([^()]{1,80}\))?" + _REPORTED),
              re.compile(_ISSUER + r"\s*(?:\([^()\n]{2,40}\))?" + _REPORTED))
"""``<Company> (NYSE: XYZ) today reported``: the company that issues a release. After the
ticker may come the name it goes by (``("Company")``), broken over a line."""
_ANNUAL = re.compile(r"for the (?:fiscal )?year ended\s*:?\s*", re.I)
_QUARTERLY = re.compile(r"for the (?:quarterly period|quarter) ended\s*:?\s*", re.I)
_EVENT = re.compile(r"date of report\s*(?:\([^)]*\))?\s*:?\s*", re.I)
_YEAR_END = re.compile(r"fiscal year[- ]?end(?:s|ed|ing|s on)?\s*(?:on\s*)?:?\s*"
                       r"|(?:twelve|12) months ended\s*", re.I)

_WEEKDAY = re.compile(r"^\s*(?:the\s+)?(?:last\s+)?(?:Saturday|Sunday|Friday)\s+"
                      r"(?:nearest|closest)(?:\s+to)?\s+", re.I)
"""``the Saturday nearest January 31``: a 52/53-week year end, read as its month and day."""


@dataclass
class FilingInfo:
    """What a filing says of itself; any field may be unknown (``None``)."""

    company: str | None = None
    ticker: str | None = None
    form: str | None = None
    """``10-K``, ``10-Q``, ``8-K`` (as the cover names it) or ``earnings release``."""
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    fiscal_year_end: str | None = None
    """The fiscal year's last day as ``MM-DD`` (``12-31``)."""
    period: str | None = None
    """The last day of the period reported (an 8-K: the date of the event), ``YYYY-MM-DD``."""

    def as_fields(self) -> dict[str, str | int | None]:
        """The catalog columns (``archivist.types.FILING_FIELDS``)."""
        return asdict(self)


def plain_text(markdown: str) -> str:
    """Markdown without emphasis, heading marks, table pipes and highlight tags."""
    return _MARKUP.sub(" ", markdown).replace("\u00a0", " ")


def filing_info(markdown: str) -> FilingInfo | None:
    """The filing metadata of a document's Markdown, or ``None`` when it is no filing."""
    head = plain_text(markdown[:_HEAD_CHARS * 2])[:_HEAD_CHARS]
    cover = head[:_COVER_CHARS]
    form = _form(cover)
    if form is None:
        return None
    company = _registrant(cover) or _filer_heading(cover) or (
        _issuer(head[:3_000], head) if form in (EARNINGS, "8-K") else None) \
        or _named_company(head)
    info = FilingInfo(form=form, company=company,
                      ticker=_ticker(plain_text(markdown[:_TICKER_CHARS])))
    year_end, cited = _year_end(head)
    end = _period_end(cover, form)
    if form == EARNINGS:
        info.fiscal_year, info.fiscal_quarter, end = release_period(head, year_end, cited)
        info.period = iso_date(end) if end is not None else None
    elif end is not None:
        info.period = iso_date(end)
        if form == "10-K":  # the cover's period closes the fiscal year
            year_end = (end.month, end.day)
        info.fiscal_year = fiscal_year_of(end, year_end)
        if form == "10-Q":
            info.fiscal_quarter = fiscal_quarter(end, year_end)
    if end is not None and form == EARNINGS and info.fiscal_quarter == 4:
        year_end = (end.month, end.day)  # a fourth quarter closes its fiscal year
    if form == "8-K":
        _furnished(info, head, year_end, cited)
    elif end is not None and info.fiscal_year is not None:
        info.fiscal_year = _own_year(
            plain_text(markdown[:_TICKER_CHARS]), ReportedPeriod(
                info.fiscal_year, 4 if form == "10-K" else info.fiscal_quarter, end),
            year_end, head[:3_000] if form == EARNINGS else "")
    if year_end is not None:
        info.fiscal_year_end = f"{year_end[0]:02d}-{year_end[1]:02d}"
    return info


def _form(cover: str) -> str | None:
    """The form a cover page names, else ``earnings release`` for a results headline.

    A form named in running text (a release citing its ``Form 10-Q`` filed with the
    Securities and Exchange Commission) is no cover page: below a results headline a form
    counts only when a cover page's marks print above that headline.
    """
    release = RESULTS.search(cover[:3_000])
    marked = _COVER_MARKS.search(cover, 0, release.start()) if release else None
    top = release.start() if release and not marked else len(cover)
    for match in _FORM.finditer(cover[:top]):  # "FORM 10-K", or "Form 10-K" opening a line
        line_start = cover.rfind("\n", 0, match.start()) + 1
        if match.group(0).startswith("FORM") or not cover[line_start:match.start()].strip():
            return match.group(1).upper()
    for form, pattern in _REPORT_KIND:
        if pattern.search(cover[:top]):
            return form
    return EARNINGS if release else None


def _clean_name(text: str) -> str | None:
    name = " ".join(text.replace("(", " ").split()).strip(" ,;:")
    name = re.sub(r"^.*Commission File Number\s*:?\s*[\d-]+\s*", "", name, flags=re.I)
    return name if 2 <= len(name) <= 90 and any(c.isalpha() for c in name) else None


def _registrant(cover: str) -> str | None:
    """The name printed above ``(Exact name of registrant as specified in its charter)``.

    Of the three lines above the label (or its own line before it), the nearest name with
    a legal form (``Inc.``), else the nearest that reads as a name; a file number, a
    jurisdiction or a form's title is passed over, and a legal form alone on its line
    ends the name above it. Of several
    registrants (a combined filing) the first is the filer.
    """
    match = _REGISTRANT.search(cover)
    if not match:
        return None
    before = cover[:match.start()].rstrip()
    lines: list[str] = []
    for line in (line for line in before.split("\n") if line.strip()):
        if lines and re.fullmatch(_SUFFIX, plain_text(line).strip(" ,*")):
            lines[-1] += " " + line  # a name broken before its legal form
        else:
            lines.append(line)
    names = [n for n in map(_clean_name, reversed(lines[-3:])) if n and not _NOT_A_NAME.search(n)]
    return next((n for n in names if _NAMED.search(n)), names[0] if names else None)


def _filer_heading(cover: str) -> str | None:
    """The name a cover without the registrant label prints right after its file number.

    ``Commission File Number 001-12345`` then ``NORTHWIND CORPORATION`` on its own line:
    the first line after the number is the filer when it reads as a name (no digits, no
    label, a few words).
    """
    match = re.search(r"Commission File Number\s*:?\s*[\d-]+[ \t]*", cover, re.I)
    if not match:
        return None
    line = next((line for line in cover[match.end():match.end() + 300].split("\n")
                 if line.strip()), "")
    name = _clean_name(line)
    if name is None or not name[0].isupper() or any(c.isdigit() for c in name) \
            or len(name.split()) > 8 or _NOT_A_NAME.search(name) or _CHECK_BOXES.search(name):
        return None
    return name


_LEGAL_FORM = re.compile(r"[,\s]+" + _SUFFIX.replace(r"\.", r"\.?") + r"\s*$", re.IGNORECASE)


def core_name(company: str) -> str:
    """A company name without its legal forms, in any case.

    ``Netflix, Inc.`` -> ``Netflix``; ``ACME CO., INC.`` -> ``ACME``.
    """
    name = company.strip()
    while (shorter := _LEGAL_FORM.sub("", name).strip(" ,.")) not in (name, ""):
        name = shorter
    name = re.sub(r"^(?:the)\s+", "", name, flags=re.I)
    return name.strip(" ,.") or company.strip()


def _issuer(top: str, head: str) -> str | None:
    """The company a release's dateline or headline says reports (``X today reported``).

    A dateline naming a ticker first, then any dateline, then the headline; a short name
    (``Amcor``) is given in full when ``head`` prints it with its legal form.
    """
    for pattern in (*_DATELINES, _HEADLINE):
        for match in pattern.finditer(top):
            name = _clean_name(match.group(1))
            if name and core_name(name).split()[0].lower() not in ("the", "our", "we", "it") \
                    and not _NOT_A_NAME.search(name):
                full = Counter(c for c in map(_clean_name, (m.group(0) for m in
                                                            _NAMED.finditer(head)))
                               if c and core_name(c) == core_name(name))
                return full.most_common(1)[0][0] if full else name
    return None


def _named_company(head: str) -> str | None:
    """The company named most often with its legal form, a ticker or a results headline."""
    found = [m.group(0) for m in _NAMED.finditer(head)]
    found += [m.group(1) for m in _HEADLINE.finditer(head[:3_000])]
    found += [head[max(0, m.start() - 60):m.start()].split("\n")[-1].strip()
              for m in _EXCHANGE.finditer(head)]
    names: Counter[str] = Counter()
    for raw in found:
        name = _clean_name(raw)
        if name and core_name(name).split()[0].lower() not in ("the", "our", "net", "a") \
                and not _CHECK_BOXES.search(name):
            names[name] += 1
    if not names:
        return None
    scored = Counter({n: head.count(core_name(n)) + names[n] for n in names})
    return scored.most_common(1)[0][0]


def _ticker(head: str) -> str | None:
    for pattern in (_EXCHANGE, _SYMBOL):
        match = pattern.search(head)
        if match and match.group(1).rstrip(".") not in _NOT_TICKERS:
            return match.group(1).rstrip(".")
    match = _TRADING.search(head[:_COVER_CHARS])
    if match:
        after = head[match.end():match.end() + 400]
        for word in re.findall(r"(?<![\w$])([A-Z]{1,5}(?:\.[A-Z])?)(?![\w])", after):
            if word not in _NOT_TICKERS and len(word) >= 2:
                return word
    return None


def _year_end(head: str) -> tuple[tuple[int, int] | None, date | None]:
    """The fiscal year end (month, day) a filing prints first, and its date when it has one.

    A year ending on a weekday nearest a day (``the Saturday nearest January 31``) ends on
    that day, give or take three days.
    """
    for match in _YEAR_END.finditer(head):
        after = head[match.end():match.end() + 80]
        after = _WEEKDAY.sub("", after, count=1)[:30]
        found = parse_month_day(after[:24])
        if found is not None:
            return found, parse_date(after) if DATE.match(after.lstrip()) else None
    return None, None


def _period_end(cover: str, form: str) -> date | None:
    """The period's last day a 10-K or 10-Q cover prints; an 8-K's date of report."""
    pattern = {"10-K": _ANNUAL, "10-Q": _QUARTERLY, "8-K": _EVENT}.get(form)
    if pattern is None:
        return None
    found = dates_after(pattern, cover)
    if not found and form == "8-K":  # the date printed above its label
        for match in _EVENT.finditer(cover):
            found = [d for d in map(parse_date, [cover[max(0, match.start() - 40):
                                                       match.start()]]) if d is not None]
    return found[0] if found else None


def _own_year(text: str, reported: ReportedPeriod, year_end: tuple[int, int] | None,
              top: str) -> int:
    """The fiscal year of the period ``reported`` as the filing names it.

    By a year its text names with its day, else as the top of a release (``top``) names
    the quarter reported in a phrase or its results headline, else the year as reported.
    """
    year, quarter, end = reported
    assert year is not None and end is not None
    if year_end is None and quarter:
        year_end = year_end_of(end, quarter)
    own = filer_year(text, top, end, quarter, year, year_end)
    headline = named_period(DATE.sub(" ", top))  # a date's year names no fiscal year
    if own is None and headline.fiscal_quarter == quarter \
            and named_like(headline.fiscal_year, year, year_end):
        own = headline.fiscal_year
    return own if own is not None else year


def _furnished(info: FilingInfo, head: str, year_end: tuple[int, int] | None,
               cited: date | None) -> None:
    """Place an 8-K that furnishes results in the fiscal year and quarter it reports.

    Read as an earnings release from its results headline on (the period's last day, the
    year end printed or the one the quarter named implies, the filer's own name for the
    year); the 8-K keeps its date of report as its period. An 8-K furnishing no results
    keeps the fiscal year of that date.
    """
    text = " ".join(head.split())
    found = RESULTS.search(text)
    if found is None:
        return
    part = text[max(0, found.start() - 300):]
    reported = release_period(part, year_end, cited)
    if reported.end is not None and reported.fiscal_year is not None:
        info.fiscal_quarter = reported.fiscal_quarter
        info.fiscal_year = _own_year(part, reported, year_end, part[:3_000])
        return
    furnished = results_period(head)
    if furnished.fiscal_year is not None:
        info.fiscal_year, info.fiscal_quarter = furnished.fiscal_year, furnished.fiscal_quarter
