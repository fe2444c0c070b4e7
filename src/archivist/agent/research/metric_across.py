"""A metric's change, mean or sum across fiscal years, worked from each year's computed value.

Pure text over the values the metric path computed for each year. A change is the last
year's value less the first's: in percentage points for a percent metric, else as a
difference in the metric's unit with its percent change. The worked line shows each value
to two more places than the result, so the arithmetic shown is the arithmetic done. The
sentence says the movement plainly (``rose``, ``fell``) and calls it an improvement or a
worsening only for a metric whose better direction is known
(:func:`archivist.filings.comparison.better_direction`); a yes/no question about the
movement is answered yes or no first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from archivist.filings.comparison import moved_words
from archivist.filings.metrics import round_half_up

__all__ = ["Summary", "average_summary", "change_summary", "each_summary", "sign_answer",
           "total_summary"]

_SCALES = ("thousands", "millions", "billions")
#: A yes/no question about a figure's sign ("Does X have positive working capital?").
_YES_NO = re.compile(r"^\W*(?:does|did|do|has|have|had|is|was|were|are)\b", re.I)
_SIGN = re.compile(r"\b(positive|negative)\b", re.I)
_BOUND_ASKED = re.compile(r"\b(?P<side>above|over|below|under|at (?:least|most)|(?:greater|more|"
                          r"higher|less|lower) than|exceed(?:s|ed|ing)?)\s+(?P<limit>-?\d[\d,]*"
                          r"(?:\.\d+)?)(?![\d,.]|\s*(?:years?|months?|quarters?)\b)", re.I)


@dataclass(frozen=True)
class Summary:
    """The ``metric`` step's detail (``name = worked = result``) and the answer's sentence."""

    step: str
    sentence: str


def _precise(value: float, unit: str, decimals: int) -> str:
    """A value as the worked line shows it: an amount as read, else two places more."""
    if unit in _SCALES or unit == "amount":
        return f"{value:,.10g}"
    text = f"{round_half_up(value, decimals + 2):,.{decimals + 2}f}"
    return f"{text}%" if unit == "%" else f"{text} days" if unit == "days" else text


def _years(years: Sequence[int]) -> str:
    if len(years) == 2:
        return f"fiscal {years[0]} and {years[1]}"
    return f"fiscal {', '.join(str(y) for y in years[:-1])} and {years[-1]}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _answer_word(asked: str, change: float, judged: str) -> str:
    """``Yes. ``/``No. `` for a yes/no question about the movement, when it can be said."""
    if not asked:
        return ""
    said = {"up": change > 0, "down": change < 0,
            "better": judged == "improved" if judged else None,
            "worse": judged == "worsened" if judged else None}.get(asked)
    return "" if said is None else ("Yes. " if said else "No. ")


def sign_answer(question: str, value: float, amount: bool = False) -> str:
    """``Yes: it is positive.`` for a yes/no question about ``value``'s sign or bound, else ``""``.

    A sign is asked as "Does X have positive working capital?" (one sign named); a bound as
    "Is X's current ratio above 1?" ("above", "over", "greater", "more", "higher" than,
    "at least", "below", "under", "less", "lower" than), not for an ``amount``, whose
    scale the question may write otherwise. The figure itself is shown after it.
    """
    if not _YES_NO.search(question):
        return ""
    bound = None if amount else _BOUND_ASKED.search(question)
    if bound is not None:
        limit = float(bound.group("limit").replace(",", ""))
        side = bound.group("side").casefold()
        over = not re.match(r"below|under|less|lower|at most", side)
        if side.startswith("at "):  # at least, at most: the bound itself holds
            holds = value >= limit if over else value <= limit
        else:
            holds = value > limit if over else value < limit
        return f"{'Yes' if holds else 'No'}: it is {_number(value)}.\n"
    asked = {word.casefold() for word in _SIGN.findall(question)}
    if len(asked) != 1:  # no sign named, or both ("positive or negative")
        return ""
    sign = "positive" if value > 0 else "negative" if value < 0 else "zero"
    return f"{'Yes' if sign in asked else 'No'}: it is {sign}.\n"


def _number(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def change_summary(metric: str, owner: str, years: tuple[int, int], values: tuple[float, float],
                   shown: tuple[str, str], show: Callable[[float], str], unit: str,
                   decimals: int, better: str = "", asked: str = "") -> Summary:
    """The change of ``metric`` from ``years[0]`` to ``years[1]``.

    ``values`` are the two years' values and ``shown`` them as the answer states them;
    ``show`` puts a difference in the metric's unit and scale; ``better`` is ``higher`` or
    ``lower`` when that is plainly better; ``asked`` what a yes/no question asks
    (``better``, ``worse``, ``up``, ``down``).
    """
    first, last = values
    change = last - first
    if unit == "%":
        result = f"{round_half_up(change, decimals):,.{decimals}f} percentage points"
        size = f"{round_half_up(abs(change), decimals):,.{decimals}f} percentage points"
    else:
        percent = f" ({round_half_up(change / abs(first) * 100, decimals):+,.{decimals}f}%)" \
            if first else ""
        result, size = f"{show(change)}{percent}", f"{show(abs(change))}{percent}"
    worked = f"{_precise(last, unit, decimals)} - {_precise(first, unit, decimals)}"
    name = f"change in {metric} from fiscal {years[0]} to fiscal {years[1]}"
    moved, judged = moved_words(round_half_up(change, decimals + 2), better)
    when = f"from {shown[0]} in fiscal {years[0]} to {shown[1]} in fiscal {years[1]}"
    if moved == "was unchanged":
        said = f"{_capital(metric)}{owner} was unchanged {when}"
    else:
        said = f"{_capital(metric)}{owner} {moved} {when}, by {size}"
    if judged:
        said += f": it {judged} ({better} is better for this metric)"
    sentence = f"{_answer_word(asked, change, judged)}{said}."
    return Summary(f"{name} = {worked} = {result}", sentence)


def average_summary(metric: str, owner: str, years: Sequence[int], values: Sequence[float],
                    show: Callable[[float], str], unit: str, decimals: int) -> Summary:
    """The mean of ``metric`` over ``years`` (``values`` each year's, in order)."""
    mean = sum(values) / len(values)
    terms = " + ".join(_precise(v, unit, decimals) for v in values)
    worked = f"({terms}) / {len(values)}"
    name = f"average {metric} over {_years(years)}"
    sentence = f"The average {metric}{owner} over {_years(years)} is {show(mean)}."
    return Summary(f"{name} = {worked} = {show(mean)}", sentence)


def total_summary(metric: str, owner: str, years: Sequence[int], values: Sequence[float],
                  show: Callable[[float], str]) -> Summary:
    """The sum of an amount ``metric`` over ``years`` (``values`` each year's, in order).

    Each amount is shown as read; ``show`` puts the sum in the metric's scale.
    """
    total = sum(values)
    worked = " + ".join(f"{v:,.10g}" for v in values)
    name = f"total {metric} over {_years(years)}"
    sentence = f"Total {metric}{owner} over {_years(years)}: {show(total)}."
    return Summary(f"{name} = {worked} = {show(total)}", sentence)


def each_summary(metric: str, owner: str, years: Sequence[int], shown: Sequence[str]
                 ) -> Summary:
    """``metric`` in each of ``years`` (``shown``: each year's result as the answer states it)."""
    values = ", ".join(f"{value} in fiscal {year}" for year, value in zip(years, shown,
                                                                          strict=True))
    name = f"{metric} in {_years(years)}"
    return Summary(f"{name} = {'; '.join(shown)}", f"{_capital(metric)}{owner}: {values}.")
