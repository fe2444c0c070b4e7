"""Whether the words after a line item in a question narrow it to a part of the whole.

"Revenue in fiscal 2023 for Acme" asks for the statement's total revenue; "revenue from
subscriptions", "revenue in the Americas" or "revenue of the cloud segment" ask for a part
of it, which the statement's line does not hold. Pure text: the words after the item may
only name a period (years, dates, "fiscal year", "the end of"), a unit ("in USD millions"), a
comparison between periods ("from FY2022 to FY2023"), the company ("for Acme Corp.",
"of Acme") or the statement it is read from ("from the cash flow statement"); any other
word qualifies the item. What follows a comma, colon or question
mark is another clause and is not read.
"""

from __future__ import annotations

import re

from archivist.filings.periods import MONTHS

__all__ = ["STATEMENT_NAMED", "qualifies_item"]

#: A statement named as where a figure is read ("from the cash flow statement").
STATEMENT_NAMED = re.compile(
    r"(?:\s+|(?<=\())(?:(?:as\s+)?(?:shown|reported|stated|presented)\s+)?(?:from|in|on|per)\s+the\s+"
    r"(?:consolidated\s+)?(?:income\s+statement|balance\s+sheet|cash\s+flows?\s+statement|"
    r"statements?\s+of\s+(?:cash\s+flows?|income|operations|earnings|financial\s+position)|"
    r"P\s*&\s*L(?:\s+statement)?)", re.I)

_PERIOD_WORDS = frozenset({
    "in", "for", "during", "at", "as", "of", "on", "over", "the", "end", "fiscal", "year",
    "years", "ended", "ending", "period", "full", "by", "and", "its", "calendar", "fy", "from",
    "to", "between", "compared", "versus", "vs", "through", "annual", "reported", "this",
    "last", "each", "year-end", "respectively", "company", "company's", "fiscal-year",
    "three", "six", "nine", "twelve", "month", "months", "quarter", "quarters", "quarterly",
    "first", "second", "third", "fourth", "half", "weeks", "date", "latest", "most", "recent",
    "usd", "us$", "$", "dollars", "eur", "gbp", "thousand", "thousands", "million", "millions",
    "billion", "billions", "terms",
})
#: Words that may come before a company's name: "for Acme", "of Acme", "by Acme".
_OWNER_WORDS = frozenset({"for", "of", "by"})
_WORD = re.compile(r"[\w&'’.$%-]+")


def qualifies_item(rest: str) -> bool:
    """Whether ``rest``, the words after a line item, narrow the item to a part of it."""
    clause = re.split(r"[?,;:]", re.sub(r"\([^)]*\)?", " ", STATEMENT_NAMED.sub(" ", rest)))[0]
    before = ""
    for word in _WORD.findall(clause):
        plain = word.casefold().strip(".'’")
        if any(ch.isdigit() for ch in plain) or plain in MONTHS:
            continue
        if plain == "the" and word[0].isupper() and before in _OWNER_WORDS:
            continue  # "for The Acme Group": a name's own article
        if plain in _PERIOD_WORDS:
            before = plain
            continue
        if word[0].isupper() and before in _OWNER_WORDS:
            continue  # a company's name, one word after another
        return True
    return False
