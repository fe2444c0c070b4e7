"""A numeric answer scored against its gold figure: some number it states is within 1%.

Numbers are read as printed (``$1,234.5``, ``(238)``, ``18.5%``) with the scale word after
them (``thousand``, ``million``, ``billion``; ``k``, ``m``, ``bn``). A gold figure with a
unit naming a scale (``USD millions``) is compared at that scale, so ``$1.05 billion``
matches 1,048 in millions. Signs are ignored: "fell by 5%" states -5.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TOLERANCE", "numbers_in", "numeric_match", "scale_of"]

TOLERANCE = 0.01
_SCALES = {"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6,
           "m": 1e6, "mn": 1e6, "mm": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
           "trillion": 1e12}
_NUMBER = re.compile(r"(?<![\w.])\(?-?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\)?\s*"
                     r"(thousands?|millions?|billions?|trillion|bn|mn|mm|[kmb])?(?![\w])", re.I)


def scale_of(unit: str | None) -> float:
    """The factor a unit names (``USD millions`` = 1e6); 1 when it names none."""
    for word in re.findall(r"[a-z]+", (unit or "").lower()):
        if word in _SCALES and len(word) > 1:
            return _SCALES[word]
    return 1.0


def numbers_in(text: str) -> list[tuple[float, float]]:
    """Each number in ``text`` with the scale written after it (1 when none)."""
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match.group(1).replace(",", "") + (match.group(2) or ""))
        found.append((value, _SCALES.get((match.group(3) or "").lower(), 1.0)))
    return found


def _close(value: float, gold: float, tolerance: float) -> bool:
    return abs(abs(value) - abs(gold)) <= tolerance * abs(gold) if gold else value == 0


def numeric_match(answer: str, gold: float, unit: str | None = None,
                  tolerance: float = TOLERANCE) -> float:
    """1.0 when some number ``answer`` states is within ``tolerance`` of ``gold``, else 0.0."""
    gold_scale = scale_of(unit)
    numbers: Iterable[tuple[float, float]] = numbers_in(answer)
    for value, scale in numbers:
        if scale == 1.0 and _close(value, gold, tolerance):
            return 1.0
        if scale != 1.0 and _close(value * scale / gold_scale, gold, tolerance):
            return 1.0
    return 0.0
