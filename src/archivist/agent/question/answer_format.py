"""The rounding and unit a question's instructions ask for, read in code.

"Round your answer to two decimal places." asks for 2 decimals, "to the nearest whole
number" for 0; "Answer in USD millions." for the scale ``millions`` in ``USD``; "as a
percentage" for a percent. What is not asked stays unset, and the step that writes a figure
keeps its own default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["AnswerFormat", "answer_format"]

_NUMBERS = {"no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DECIMALS = re.compile(r"\b(\d|no|zero|one|two|three|four|five|six)\s+decimals?(?:\s+places?)?"
                       r"|\bdecimal places?\s*(?:of|:)?\s*(\d)\b", re.I)
_NEAREST = re.compile(r"\bnearest\s+(whole(?:\s+\w+)?|integer|unit|dollar|percent\w*|tenth|"
                      r"hundredth|cent|thousand|million|billion)\b", re.I)
_NEAREST_DECIMALS = {"tenth": 1, "hundredth": 2, "cent": 2}
_SCALE = re.compile(
    r"\b(?:in|as|into|to)\s+(?:the\s+)?(?:(USD|US\$|\$|dollars|EUR|euros?|GBP)\s+)?"
    r"(thousands?|millions?|billions?)\b(?:\s+(?:of\s+)?(USD|US\s+dollars|dollars))?", re.I)
_PERCENT = re.compile(r"\b(?:as|in)\s+(?:a\s+)?percent(?:age)?\b|\bin\s+%|\bin\s+percentage\s+"
                      r"terms\b", re.I)


@dataclass(frozen=True)
class AnswerFormat:
    """What the instructions ask of a figure: decimals, scale, currency, percent."""

    decimals: int | None = None
    scale: str = ""  # "thousands", "millions" or "billions"
    currency: str = ""
    percent: bool = False

    def describe(self) -> str:
        """The format in words (``2 decimal places, in USD millions``), or ``""``."""
        parts = []
        if self.decimals is not None:
            parts.append(f"{self.decimals} decimal place{'s' if self.decimals != 1 else ''}")
        if self.scale:
            parts.append(f"in {self.currency + ' ' if self.currency else ''}{self.scale}")
        if self.percent:
            parts.append("as a percentage")
        return ", ".join(parts)


def _currency(word: str | None) -> str:
    if not word:
        return ""
    word = word.upper()
    return "USD" if "DOLLAR" in word or word in ("US$", "$") else word.rstrip("S")


def answer_format(texts: Iterable[str]) -> AnswerFormat:
    """The rounding, scale, currency and percent asked for in ``texts`` (instructions)."""
    text = " ".join(texts)
    decimals: int | None = None
    scale = ""
    match = _DECIMALS.search(text)
    if match:
        decimals = int(match.group(2)) if match.group(2) else _NUMBERS.get(
            match.group(1).lower(), int(match.group(1)) if match.group(1).isdigit() else 2)
    nearest = _NEAREST.search(text)
    if nearest and decimals is None:
        word = nearest.group(1).lower()
        decimals = _NEAREST_DECIMALS.get(word, 0)
        if word in ("thousand", "million", "billion"):
            scale = word + "s"
    currency = ""
    found = _SCALE.search(text)
    if found:
        scale = found.group(2).lower().rstrip("s") + "s"
        currency = _currency(found.group(1) or found.group(3))
    return AnswerFormat(decimals, scale, currency, bool(_PERCENT.search(text)))
