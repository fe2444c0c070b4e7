"""Year columns named in the table rows a small model reads.

A PDF's financial table reaches the model as a header of years and rows of bare numbers::

    2017 2016 2015 2017 vs. 2016 2016 vs. 2015
    Paid memberships at end of period 52,810 47,905 43,401 4,905 10% 4,504 10 %

Qwen2.5-1.5B, shown exactly that row, replied that the documents do not contain the
number of paid memberships at the end of 2017: it cannot line a value up with its column.
:func:`label_year_columns` writes the year beside each of the first values of such a row
(``Paid memberships at end of period [2017: 52,810; 2016: 47,905; 2015: 43,401] 4,905
10% 4,504 10 %``), for the model only; the stored text and the citations do not change.
"""

from __future__ import annotations

import re

from archivist.agent.text import PERIOD_YEAR

_VERSUS = re.compile(rf"\b{PERIOD_YEAR}\s*(?:vs\.?|versus|to|-|–)\s*{PERIOD_YEAR}\b", re.IGNORECASE)
_HEADER = re.compile(rf"^(?P<lead>[^\d]*?)(?P<years>(?:\b{PERIOD_YEAR}\b[\s,]*){{2,}})$")
_VALUE = re.compile(r"^\(?[-−–]?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[-—–]$")
_FOOTNOTE = re.compile(r"^\(\d\)$")


def _header_years(line: str) -> list[str]:
    """The year columns a header line names, in order ("2017 vs. 2016" columns dropped)."""
    text = _VERSUS.sub(" ", line.replace("*", "").replace("_", " ")).strip(" |:")
    match = _HEADER.match(text)
    if not match or len(match.group("lead")) > 80:
        return []
    return re.findall(PERIOD_YEAR, match.group("years"))


def _values(tokens: list[str]) -> list[str]:
    """Tokens joined into values: "$ 9.43" is one value, "10 %" is "10%"."""
    values: list[str] = []
    pending = ""
    for token in tokens:
        if token == "$":
            pending = "$"
        elif token == "%" and values:
            values[-1] += "%"
        else:
            values.append(pending + token)
            pending = ""
    return values


def _labelled(line: str, years: list[str]) -> str:
    tokens = line.split()
    start = len(tokens)
    while start > 0 and (tokens[start - 1] in ("$", "%") or _VALUE.match(tokens[start - 1])):
        start -= 1
    label = tokens[:start]
    if not any(c.isalpha() for c in " ".join(label)):
        return line
    rest = tokens[start:]
    if rest and _FOOTNOTE.match(rest[0]):  # "additions during period (1) 23,786 ..."
        label, rest = [*label, rest[0]], rest[1:]
    values = _values(rest)
    if len(values) < len(years):
        return line
    named = "; ".join(f"{year}: {value}" for year, value in zip(years, values, strict=False))
    tail = " ".join(values[len(years):])
    return f"{' '.join(label)} [{named}]" + (f" {tail}" if tail else "")


def label_year_columns(text: str) -> str:
    """``text`` with each table row under a header of years written as ``label [year: value]``.

    Rows need at least as many values as the header has years; other lines are unchanged.
    """
    if not re.search(rf"{PERIOD_YEAR}\D+{PERIOD_YEAR}", text):
        return text
    years: list[str] = []
    out: list[str] = []
    for line in text.split("\n"):
        found = _header_years(line)
        if found:
            years = found
            out.append(line)
        elif years and line.strip():
            out.append(_labelled(line, years))
        else:
            out.append(line)
    return "\n".join(out)
