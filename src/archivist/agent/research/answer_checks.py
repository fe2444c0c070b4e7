"""Checks on a research sub-agent's answer before it is handed back.

* :func:`needs_second_look`: an answer that abstains, or is nothing but a citation, over
  passages kept as relevant is read again once.
* :func:`years_not_covered`: an answer for a year no passage names is not kept, and on a
  small model none is written.
"""

from __future__ import annotations

from collections.abc import Iterable

from archivist.agent.prompts import abstains, says_nothing
from archivist.agent.state import Evidence
from archivist.agent.text import YEAR


def needs_second_look(answer: str, evidence: Iterable[Evidence]) -> bool:
    """Whether ``answer`` found nothing although some passage was kept as relevant."""
    if not answer or not (abstains(answer) or says_nothing(answer)):
        return False
    return any(e.get("grade") == "relevant" for e in evidence)


def years_not_covered(question: str, evidence: Iterable[Evidence]) -> tuple[list[str], list[str]]:
    """The years the question asks about that no passage names, and the years they name.

    Only when the passages name years, and none of the asked ones ("revenue in 2019" over a
    report whose tables cover 2015-2017). Empty lists when the question names no year or a
    passage has one.
    """
    asked = set(YEAR.findall(question))
    named: set[str] = set()
    for item in evidence:
        named.update(YEAR.findall(item.get("text", "")))
    if not asked or not named or asked & named:
        return [], []
    return sorted(asked), sorted(named)
