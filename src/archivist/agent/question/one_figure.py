"""Whether a question joining several things asks for one figure over them, kept whole.

"What were the combined sales of the Alder and Birch divisions?", "Which was the largest
cost: rent, wages or freight?" and "Which division earned more in 2022, and how much?"
join names with "and", "or" or a second clause, yet ask for one computation over them (a
sum, a difference, a ranking) and the figure it gives. Split, no part can be answered (the
sum needs both addends, "How much?" alone names nothing), so such a question is
researched whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["asks_one_figure"]

_OVER_ALL = re.compile(
    r"\b(?:combined|added together|summed|altogether|in total|plus|sum of|total of|"
    r"difference between|by how (?:much|many))\b|\bwhich\b.*\b(?:highest|lowest|largest|"
    r"smallest|biggest|most|least|more|less|higher|lower|greater|fewer)\b", re.IGNORECASE)
_FIGURE_OF_IT = re.compile(
    r"^\s*(?:and\s+)?(?:by\s+)?(?:how (?:much|many)|what (?:was|is|were) (?:it|that|the "
    r"(?:amount|figure|value))|with what (?:amount|figure|value))\s*\??\s*$", re.IGNORECASE)


def asks_one_figure(question: str, parts: Sequence[str]) -> bool:
    """Whether ``question`` (in its clause ``parts``) asks for one figure over what it joins.

    True when every part after the first only asks the first part's figure ("and how
    much?"), or when a one-part question asks to sum, subtract or rank what it names.
    """
    if len(parts) > 1:
        return all(_FIGURE_OF_IT.match(part) for part in parts[1:])
    return bool(_OVER_ALL.search(question))
