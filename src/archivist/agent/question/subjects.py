"""The subjects a question offers to judge between, and whether a text names one.

"Which singer is Canadian, Lena Farrow or Dario Quist?" offers two subjects; an answer, a
passage or a section title names one by its own words ("Quist"), never by the words the
subjects share ("Regional Airport" of two airports). The claim check reads a
verdict subject by subject with them (``verdicts.py``), and the score gate and the unit
selection keep each subject's best passage (``evidence.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from archivist.agent.question.analysis import asks_to_judge
from archivist.stopwords import STOP_WORDS

_CAPITALISED = r"[A-Z][\w'’.!-]*"
#: A name: capitalised words, with small joining words inside ("Tin Lantern", "Bank of Ostland").
_NAME = rf"{_CAPITALISED}(?:\s+(?:of|the|de|da|von|van|del|la|and)?\s*{_CAPITALISED})*"
_OFFERED = re.compile(
    rf"(?:\bthe\s+)?({_NAME})\s*,?\s+(?:or|and|than|versus|vs\.?)\s+(?:the\s+)?({_NAME})"
)


def offered_subjects(question: str) -> list[str]:
    """The names a question that asks for a verdict offers, joined by "or" or "and".

    "Which singer is Canadian, Lena Farrow or Dario Quist?" offers ``Lena Farrow`` and
    ``Dario Quist``; a question that offers fewer than two (or asks for no verdict) offers none.
    """
    if not asks_to_judge(question):
        return []
    found: list[str] = []
    for match in _OFFERED.finditer(question):
        for name in match.groups():
            words = name.strip(" ,.?!").split()
            while words and words[0].lower() in _QUESTION_OPENERS:
                words = words[1:]  # "Are Brenmoor ... Airport": the question's own verb
            if words:
                found.append(" ".join(words))
    return list(dict.fromkeys(found)) if len(set(found)) >= 2 else []


_QUESTION_OPENERS = frozenset(["which", "who", "what", "are", "is", "was", "were", "do",
                               "does", "did", "can", "has", "have", "had", "the", "a", "an"])


#: A word of a name or a claim ("Woman's", "Saxby-Junna").
NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def own_words(subjects: Sequence[str]) -> dict[str, set[str]]:
    """Each subject's own words: those no other subject shares, stop words left out."""
    words = {s: {w.strip("'’.!-").lower() for w in NAME_WORD.findall(s)} - STOP_WORDS
             for s in subjects}
    out = {}
    for subject, own in words.items():
        others = set().union(*(w for s, w in words.items() if s != subject))
        out[subject] = {w for w in own - others if len(w) > 1}
    return out


def mentions(text: str, words: set[str], *, every: bool = False) -> bool:
    """Whether ``text`` names a subject by its own words, capitalised and whole.

    One word will do, or with ``every`` each of them. A claim may call Rowan King "King"; a
    passage about him names him in full, and one that says "King" alone may be about a
    king.
    """
    found = [bool(re.search(rf"(?<![\w-]){re.escape(w[0].upper() + w[1:])}(?![\w-])", text))
             for w in words]
    return bool(found) and (all(found) if every else any(found))
