"""The agent's words, years, titles and citation marks: one definition of each.

Every check that reads a year, a section title or a ``[n]`` marker uses these, so two parts
of the agent can never disagree on what a year or a title is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from archivist.stopwords import content_words

#: A year as documents write them: 1000 to 2099, not inside a longer number.
YEAR = re.compile(r"(?<![\d,.])(1\d\d\d|20\d\d)(?!\d|,\d)")
#: A reporting period's year, as a table's column headers name it: 1900 to 2099 (a bare
#: 1500 in a table is a figure). A pattern to build a header's regex from.
PERIOD_YEAR = r"(?:19|20)\d{2}"
#: A unit citation: ``[2]``, ``[1, 3]``, ``[2-4]``.
CITATION = re.compile(r"\[(\d{1,3}(?:\s*(?:[,;]|[-–])\s*\d{1,3})*)\]")
#: A title's qualifier: "Springfield, Oregon" and "Echo (album)" are titled "Springfield", "Echo".
_QUALIFIER = re.compile(r"\s*(?:\(.*\)|,.*)$")
#: A word of a name or a claim ("Woman's", "Saxby-Junna").
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def years(text: str) -> list[str]:
    """The years ``text`` names, in order, each once."""
    return list(dict.fromkeys(YEAR.findall(text)))


def title(headings: Iterable[str] | None) -> str:
    """A section's title (its deepest heading) without a qualifier; "" when it has none."""
    path = list(headings or [])
    if not path:
        return ""
    return _QUALIFIER.sub("", " ".join(path[-1].split()))


#: The shortest stem a term may share with a word to count as named by it ("German"
#: names "Germany"); numbers and shorter terms count only whole.
STEM = 5


def named(term: str, found: set[str]) -> bool:
    """Whether ``term`` (lower case) is among ``found`` words, whole or by a shared stem."""
    if term in found:
        return True
    if term.isdigit() or len(term) < STEM:
        return False
    return any(w.startswith(term[:STEM]) for w in found if len(w) >= STEM)


def words(text: str) -> set[str]:
    """The content words of ``text`` (lower case, stop words out)."""
    return content_words(text)


def parse_citations(text: str) -> list[int]:
    """The unit numbers in ``text``'s ``[n]`` markers (``[2-4]`` is 2, 3 and 4)."""
    out: list[int] = []
    for group in CITATION.findall(text):
        for part in re.split(r"[,;]", group):
            bounds = [int(b) for b in re.split(r"[-–]", part) if b.strip()]
            if len(bounds) == 2 and 0 < bounds[1] - bounds[0] < 20:
                out.extend(range(bounds[0], bounds[1] + 1))
            else:
                out.extend(bounds)
    return list(dict.fromkeys(out))


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` markers."""
    cleaned = CITATION.sub("", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(cleaned.split())).strip()
