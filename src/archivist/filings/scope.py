"""Which filings a question is about: the company, ticker, form and fiscal period it names.

Pure functions over a question's text and the documents' filing metadata (catalog rows
or mappings with the same keys). ``scope`` returns the ids of the matching documents, or
an empty list when the question names nothing a filing is known by (no scope: search
everything). Each named criterion narrows the set only while something is left, so a
question about a year a filing holds only as its comparative column still finds it. A
year is matched as the catalog names it (as the filer does, else by its end); with no
year's report so named, a year's report ending in the next January or February is kept
too (a retailer's year named by its start).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from archivist.filings.cover import EARNINGS, core_name

__all__ = ["company_key", "named_forms", "named_quarters", "named_years", "scope"]

_GENERIC = frozenset({
    "american", "best", "first", "general", "global", "group", "holdings", "international",
    "national", "united", "new", "great", "the", "company", "corporation", "bank", "royal",
    "data", "energy", "health", "home", "life", "systems", "technologies", "resorts",
})
_FORMS = (("10-K", re.compile(r"\b10-?K\b|\bannual report\b", re.I)),
          ("10-Q", re.compile(r"\b10-?Q\b|\bquarterly report\b", re.I)),
          ("8-K", re.compile(r"\b8-?K\b", re.I)),
          (EARNINGS, re.compile(r"\bearnings (?:release|report|call)|\bpress release\b", re.I)))
_FY = re.compile(r"\b(?:FY|fiscal(?: year)?)\s?'?((?:19|20)?\d{2})\b", re.I)
_YEAR = re.compile(r"(?<![\d$.,])((?:19|20)\d{2})(?!\d|[.,]\d)")
_QUARTER = re.compile(r"\bQ([1-4])\b|\b(first|second|third|fourth)[- ]quarter\b", re.I)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def _get(document: Any, key: str) -> Any:
    if isinstance(document, Mapping):
        return document.get(key)
    return getattr(document, key, None)


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.replace("&", " and ").casefold()).split())


def _names_company(question: str, company: str | None, ticker: str | None) -> bool:
    """Whether ``question`` names the company.

    By its name, its name without legal form, its first word when that is distinctive
    (and capitalised in the question; a hyphenated word whole, a web name without its
    ``.com``), or its ticker (as written, in capitals). Case does
    not matter otherwise: a cover page prints ``ACME CORPORATION``, a question "Acme's".
    """
    if ticker and re.search(rf"(?<![\w$]){re.escape(ticker)}(?!\w)", question):
        return True
    if not company:
        return False
    text = f" {_words(question)} "
    core = core_name(company)
    if any(f" {_words(name)} " in text for name in (company, core) if _words(name)):
        return True
    first = re.sub(r"\.(?:com|net|org|io)$", "", core.split()[0].strip(",."), flags=re.I)
    parts = [part.casefold() for part in re.findall(r"\w+", first)]
    if sum(len(part) for part in parts) < 4 or " ".join(parts) in _GENERIC:
        return False
    return any(word[:1].isupper() and [p.casefold() for p in re.findall(r"\w+", word)] == parts
               for word in _name_words(question))


def _name_words(question: str) -> list[str]:
    """The words of a question as a name is written: hyphenated whole, without ``'s``."""
    words = re.findall(r"[\w&'’.-]+", question)
    return [re.sub(r"['’]s?$|\.(?:com|net|org|io)$|[.'’-]+$", "", word) for word in words]


def company_key(company: str | None) -> str:
    """A registrant's name as compared across its filings: no legal form, case or stops."""
    return _words(core_name(company or ""))


def named_forms(question: str) -> set[str]:
    """The forms a question names (``10-K``, ``10-Q``, ``8-K``, ``earnings release``)."""
    return {form for form, pattern in _FORMS if pattern.search(question)}


def named_years(question: str) -> set[int]:
    """The fiscal or calendar years a question names (``FY2023``, ``FY23``, ``2023``)."""
    years = set()
    for match in _FY.finditer(question):
        value = int(match.group(1))
        years.add(value + 2000 if value < 100 else value)
    years.update(int(y) for y in _YEAR.findall(question))
    return years


def named_quarters(question: str) -> set[int]:
    """The quarters a question names (``Q2``, ``second quarter``)."""
    return {int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2).lower()]
            for m in _QUARTER.finditer(question)}


def _annual(document: Any) -> bool:
    return _get(document, "form") == "10-K" or _get(document, "fiscal_quarter") == 4


def _ends_early_in(document: Any, years: set[int]) -> bool:
    """Whether the period ends in January or February of one of ``years`` (a retail year)."""
    period = str(_get(document, "period") or "")
    return period[:4].isdigit() and int(period[:4]) in years and period[5:7] in ("01", "02")


def _narrowed(documents: list[Any], keep: list[Any]) -> list[Any]:
    return keep or documents


def scope(question: str, documents: Sequence[Any]) -> list[str]:
    """The ids of the filings ``question`` is about; ``[]`` when it names none."""
    filings = [d for d in documents if _get(d, "form")]
    named = [d for d in filings if _names_company(question, _get(d, "company"),
                                                   _get(d, "ticker"))]
    forms, years, quarters = named_forms(question), named_years(question), named_quarters(
        question)
    if not named and not forms and not years:
        return []
    chosen = named or filings
    chosen = _narrowed(chosen, [d for d in chosen if _get(d, "form") in forms])
    if years:
        exact = [d for d in chosen if _get(d, "fiscal_year") in years]
        later = [d for d in chosen if any(0 < (_get(d, "fiscal_year") or 0) - y <= 2
                                          for y in years)]
        if not exact and later:  # a year the next filings hold as comparatives
            nearest = min(_get(d, "fiscal_year") for d in later)
            exact = [d for d in later if _get(d, "fiscal_year") == nearest]
        if not any(_annual(d) for d in exact):  # a year some name by its start
            exact += [d for d in chosen if d not in exact and _annual(d)
                      and _ends_early_in(d, {y + 1 for y in years})]
        chosen = _narrowed(chosen, exact)
    if quarters:
        chosen = _narrowed(chosen, [d for d in chosen if _get(d, "fiscal_quarter") in quarters])
    if not named and len(chosen) == len(filings):  # nothing narrowed: no scope
        return []
    return [str(_get(d, "document_id")) for d in chosen]
