"""Which line item a phrase of a question names, with no other words.

Pure functions over text. "Amcor's FY2023 net sales" names net sales; "net sales in Europe"
names a part of it, which no statement's line holds, so no item. A known name whose own
words hold a word that usually ends an item ("cash from operations", "income from
operations") is read whole: the longest run of words naming a known line item wins, and
only a period, a unit or the company may follow it.
"""

from __future__ import annotations

import re

from archivist.filings.concepts import concept_named
from archivist.filings.item_qualifiers import qualifies_item

__all__ = ["bare_item", "item_of", "item_words", "line_item", "without_owner"]

_NOT_ITEM_WORDS = re.compile(r"\b(?:unadjusted|as reported|reported|GAAP|(?:fiscal )?year[- ]end"
                             r"(?:ing)?)\b", re.I)
_ITEM_END = re.compile(r"\s*\(.*$|\s+(?:in|for|during|at|as of|on|from|between|over|"
                      r"compared|versus|vs)\b.*$|[?,;:].*$", re.I)
_OF_COMPANY = re.compile(r"\s+of\s+[A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*)*$")
_OWNER = re.compile(r"^(?:the\s+)?(?:[\w&.-]+\s+){0,3}?[\w&.-]+['’]s?\s+")
_YEAR_WORDS = re.compile(r"\b(?:FY\s?'?\d{2,4}|fiscal(?: year)? (?:19|20)\d{2}|(?:19|20)\d{2})\b"
                        r"|\s+(?:amount|figure|value)$", re.I)
#: A span of years written before the item ("FY2016 to FY2017 change in ...").
_SPAN_BEFORE = re.compile(r"^(?:from\s+|between\s+)?(?:FY\s?'?\d{2,4}|(?:19|20)\d{2})\s*(?:-|–|—|"
                          r"to|and|through)\s*(?:FY\s?'?\d{2,4}|(?:19|20)\d{2})\s+", re.I)


def line_item(phrase: str, from_end: bool) -> str | None:
    """The longest run of words of ``phrase`` naming a line item, at its end or its start."""
    words = phrase.split()
    spans = [words[i:] for i in range(len(words))] if from_end else \
        [words[:j] for j in range(len(words), 0, -1)]
    for span in spans:
        text = " ".join(span).strip(" .,'’")
        if concept_named(text) is not None:
            return text
    return None


def bare_item(phrase: str) -> str:
    """A line item's words alone, as a statement's row would be named.

    Without an article, the dash of a year range ("FY2021 - FY2023"), "year end", or a word
    saying the figure is the printed one ("unadjusted", "GAAP").
    """
    words = " ".join(_NOT_ITEM_WORDS.sub(" ", phrase).split())
    return re.sub(r"^(?:(?:the|its)\s+|[\s\-–—:,]+)+|[\s\-–—:,]+$", "", words, flags=re.I)


def without_owner(phrase: str) -> str:
    """``phrase`` without its owner ("Acme's") and a span of years before the item."""
    text = _OWNER.sub("", phrase) if re.search(r"['’]s?\s", phrase) else phrase
    return _SPAN_BEFORE.sub("", text.strip())


def _whole_name(phrase: str) -> str | None:
    """A known line item whose name holds a word that usually ends one ("cash from operations").

    The longest run of words from the phrase's start that is a known item's own name, when
    what follows it only names a period, a unit or the company, and the name holds such a
    word.
    """
    words = re.split(r"[?,;:(]", bare_item(_YEAR_WORDS.sub(" ", without_owner(phrase))))[0].split()
    for end in range(len(words), 1, -1):
        name = " ".join(words[:end]).strip(" .,'’")
        concept = concept_named(name)
        plain = re.sub(r"^(?:the|total)\s+", "", name.casefold())
        if concept is not None and plain in {*concept.aliases, concept.name.replace("_", " ")}:
            inner = _ITEM_END.search(name)
            if inner is None or qualifies_item(" ".join(words[end:])):
                return None
            return name
    return None


def item_of(phrase: str) -> str | None:
    """The line item a phrase names ("Amcor's FY2023 net sales"), with no other words.

    ``None`` when the words after it narrow it to a part ("net sales in Europe").
    """
    whole = _whole_name(phrase)
    if whole is not None:
        return whole
    end = _ITEM_END.search(phrase)
    if end is not None and qualifies_item(end.group(0)):
        return None
    item = " ".join(_YEAR_WORDS.sub(" ", _OF_COMPANY.sub("", _ITEM_END.sub("", phrase))).split())
    item = bare_item(_OWNER.sub("", item) if re.search(r"['’]s?\s", item) else item)
    for named in (item, re.sub(r"^net\s+", "", item, flags=re.I)):
        if named and concept_named(named) is not None:
            return named
    return None


def item_words(phrase: str) -> str | None:
    """A line item as a phrase names it, by a known name or as its printed label.

    Without owner, years and qualifiers; ``None`` when more than eight words are left.
    """
    item = item_of(phrase)
    if item is not None:
        return item
    words = bare_item(_YEAR_WORDS.sub(" ", _OWNER.sub("", _ITEM_END.sub("", phrase))))
    return words if words and len(words.split()) <= 8 else None
