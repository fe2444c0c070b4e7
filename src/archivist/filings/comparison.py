"""A metric asked across fiscal years: its change between two years, its mean or its sum.

Pure functions over a question's text. A change is asked by a word of movement ("change",
"improve", "decline", "percentage points", "compared") with two years named (the first
and the last of a range), or one year named and the metric's movement asked ("improving as
of FY2017": that year against the one before). An average is asked as "average ... over
FY2015, FY2016 and FY2017", "the three-year average ... FY2015-FY2017" or "average ...
from 2021 to 2023" (every year of the range). A total is asked as "combined", "in total",
"summed", "cumulative" or "added together" with two years or more named (a range: every
year in it). A movement with one year named ("Did the operating margin improve in
FY2017?", "the year-over-year change in FY2017", "improving as of FY2017") asks for the
change from the year before; "over the last three years as of FY2017" for the change from
FY2015. Two years or more listed with no movement, mean or sum ("in FY2016 and FY2017",
"FY2015-FY2017") ask for each year's value, unless they make one value ("between FY2022
and FY2023" of an average balance).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from archivist.filings.metrics import BETTER

__all__ = ["Across", "across_years", "better_direction", "moved_words"]

_COUNT = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_BALANCE = (r"(?:total\s+|common\s+|(?:share|stock)holders['’]?\s+)?(?:assets|equity|"
            r"inventor\w*|(?:accounts\s+|trade\s+)?(?:receivables?|payables?)|balances?)\b")
_AVERAGE = re.compile(rf"\b(?:(?P<count>two|three|four|five|[2-5])[- ]year\s+)?average(?:d)?\b"
                      rf"(?!\s+(?:of\s+)?(?:the\s+)?{_BALANCE})", re.I)
_AVERAGE_WORDS = re.compile(r"\b(?:the\s+|an?\s+)?(?:(?:two|three|four|five|[2-5])[- ]year\s+)?"
                            r"average\s+(?:of\s+)?(?:the\s+|its\s+)?", re.I)
#: Words asking for a sum across years ("combined", "in total"); taken out of the question.
#: "in total" only where no line item follows ("change in total assets" is no sum).
_TOTAL_WORDS = re.compile(r"\b(?:combined|summed(?: over| up)?|in total(?!\s+(?!(?:for|over|"
                         r"across|from|between|during|in|of|through|and)\b)(?-i:[a-z]))|"
                         r"cumulative(?:ly)?|added together|altogether|taken together)\b", re.I)
_YEAR = r"(?:FY\s?'?|fiscal(?:\s+year)?\s+)?((?:19|20)?\d{2})"
_RANGE = re.compile(rf"\b{_YEAR}\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\buntil\b)\s*{_YEAR}\b",
                    re.I)
_MOVED = re.compile(
    r"\b(?:chang\w*|improv\w*|declin\w*|increas\w*|decreas\w*|ris(?:e|en|es|ing)|rose|"
    r"f[ae]ll(?:en|s|ing)?|drop\w*|grow(?:n|s|ing)?|grew|compar\w*|differen\w*|trend\w*|"
    r"percentage points?|higher|lower|deteriorat\w*|worsen\w*|expand\w*|contract\w*|"
    r"shr[iu]nk\w*|mov(?:e|ed|es|ing)|better|worse)\b", re.I)
_MOVING = re.compile(r"\b(?:improving|declining|increasing|decreasing|rising|falling|"
                     r"dropping|growing|trending|deteriorating|worsening|expanding|"
                     r"contracting|shrinking)\b", re.I)
_LAST_YEARS = re.compile(r"\b(?:last|past|previous|prior)\s+(two|three|four|five|[2-5])\s+"
                         r"(?:fiscal\s+)?years\b", re.I)
#: Two years that make one value: "between FY2022 and FY2023" of an average balance.
_NOT_EACH = re.compile(r"\b(?:between|average|averaged|mean)\b", re.I)
_YES_NO = re.compile(r"^\W*(?:did|has|have|is|was|were|does|do|are)\b", re.I)
_DIRECTIONS = (
    ("better", re.compile(r"\bimprov\w*|\bbetter\b", re.I)),
    ("worse", re.compile(r"\b(?:deteriorat\w*|worsen\w*|worse)\b", re.I)),
    ("up", re.compile(r"\b(?:increas\w*|ris(?:e|en|es|ing)|rose|grow\w*|grew|higher|"
                      r"expand\w*)\b", re.I)),
    ("down", re.compile(r"\b(?:decreas\w*|declin\w*|f[ae]ll\w*|drop\w*|lower|contract\w*|"
                        r"shr[iu]nk\w*)\b", re.I)),
)


@dataclass(frozen=True)
class Across:
    """A metric asked across fiscal years.

    ``kind`` is ``change`` (from ``years[0]`` to ``years[-1]``), ``average`` (the mean over
    ``years``), ``total`` (their sum) or ``each`` (each year's value); an empty ``years``
    asks the change into the filing's own fiscal year.
    ``asked`` is what a yes/no question asks of the movement (``better``, ``worse``, ``up``,
    ``down``) or ``""``; ``question`` the question with the average's words taken out.
    """

    kind: str
    years: tuple[int, ...]
    asked: str = ""
    question: str = ""


def _full_year(text: str) -> int:
    value = int(text)
    return value + 2000 if value < 100 else value


def _range(question: str) -> tuple[int, int] | None:
    """The first and last year of a range the question names ("FY2015-FY2017")."""
    found = _RANGE.search(question)
    if found is None:
        return None
    first, last = _full_year(found.group(1)), _full_year(found.group(2))
    return (first, last) if 0 < last - first <= 10 else None


def _asked_direction(question: str) -> str:
    """The movement a yes/no question asks about, when it asks about one only."""
    if not _YES_NO.search(question):
        return ""
    found = [name for name, pattern in _DIRECTIONS if pattern.search(question)]
    return found[0] if len(found) == 1 else ""


def across_years(question: str, years: list[int]) -> Across | None:
    """The change, average or total across fiscal years ``question`` asks for, else ``None``.

    ``years`` are the years it names, in order. An average needs two years or more (a
    range counts every year in it; "three-year average ... FY2017" the three years to
    2017), and so do a total and each year's value; a change two, or one (from the year
    before).
    """
    span = _range(question)
    if _TOTAL_WORDS.search(question):
        chosen = list(range(span[0], span[1] + 1)) if span is not None else list(years)
        text = " ".join(_TOTAL_WORDS.sub(" ", question).split())
        return Across("total", tuple(chosen), question=text) if len(chosen) >= 2 else None
    average = _AVERAGE.search(question)
    if average is not None:
        count = _COUNT.get((average.group("count") or "").lower())
        if span is not None:
            chosen = list(range(span[0], span[1] + 1))
        elif count and len(years) == 1:
            chosen = list(range(years[0] - count + 1, years[0] + 1))
        else:
            chosen = list(years)
        if len(chosen) < 2 or (count and len(chosen) != count):
            return None
        text = _AVERAGE_WORDS.sub("", question, count=1)
        return Across("average", tuple(chosen), question=text)
    chosen = list(span) if span is not None else list(years)
    last = _LAST_YEARS.search(question)
    if last is not None and len(chosen) == 1:  # "the last three years as of FY2017"
        chosen = [chosen[0] - _COUNT[last.group(1).lower()] + 1, chosen[0]]
    if not _MOVED.search(question) and not _MOVING.search(question):
        every = list(range(chosen[0], chosen[-1] + 1)) if span or last else chosen
        listed = len(every) >= 2 and not _NOT_EACH.search(question)
        return Across("each", tuple(every), question=question) if listed else None
    if len(chosen) == 1:
        chosen = [chosen[0] - 1, chosen[0]]
    if len(chosen) == 0:
        return Across("change", (), _asked_direction(question), question)
    if len(chosen) != 2:
        return None
    return Across("change", tuple(chosen), _asked_direction(question), question)


def better_direction(key: str | None) -> str:
    """``higher`` or ``lower`` when that is plainly better for the metric, else ``""``."""
    return BETTER.get(key or "", "")


def moved_words(change: float, better: str) -> tuple[str, str]:
    """The plain movement (``rose``, ``fell``, ``was unchanged``) and its judgement.

    The judgement is ``improved`` or ``worsened`` only for a metric whose better direction
    is known (``better``: ``higher`` or ``lower``), else ``""``.
    """
    if change == 0:
        return "was unchanged", ""
    moved = "rose" if change > 0 else "fell"
    if not better:
        return moved, ""
    return moved, "improved" if (change > 0) == (better == "higher") else "worsened"
