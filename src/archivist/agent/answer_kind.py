"""What kind of thing a question asks for, and whether a sentence states one.

A question asking "what year" or "when" is answered by a year, one asking "how many" or
"how much" by a number; of any other question nothing is assumed. The evidence units
that state the kind asked come first (``units.py``), and a quoted answer is taken from
such a sentence (``policy/answer.py``).
"""

from __future__ import annotations

import re

#: "when" asks for a time only opening or closing a question: "What happens when the
#: process is killed?" asks for no year.
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b|^\W*when\b|\bwhen\W*$", re.IGNORECASE)
_ASKS_NUMBER = re.compile(r"\bhow\s+(?:many|much)\b", re.IGNORECASE)
_STATES_YEAR = re.compile(r"\b(?:1[0-9]|20)\d\d\b")
_STATES_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"hundred|thousand|million|billion|once|twice|dozens?)\b", re.IGNORECASE)


def asks_for_a_kind(question: str) -> bool:
    """Whether ``question`` asks for a year or a number (see :func:`states_what_is_asked`)."""
    return bool(_ASKS_YEAR.search(question) or _ASKS_NUMBER.search(question))


def states_what_is_asked(question: str, sentence: str) -> bool:
    """Whether ``sentence`` states the kind of thing ``question`` asks for, where it says one.

    A question asking "what year" or "when" needs a year, "how many" or "how much" a
    number; any other question, any sentence. Of a section's sentences ("Before the
    presidency, X was a commander." after "X (1924-2005) was the seventh President."), only
    the one with a year can answer "In what year was the president born?".
    """
    if _ASKS_YEAR.search(question):
        return bool(_STATES_YEAR.search(sentence))
    if _ASKS_NUMBER.search(question):
        return bool(_STATES_NUMBER.search(sentence))
    return True
