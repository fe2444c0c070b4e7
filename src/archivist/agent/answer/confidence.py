"""How sure an answer is: ``high``, ``medium`` or ``low``, derived by code, never by the model.

The rule looks only at what the grader kept (see ``grading.py``) and at coverage, i.e.
which sub-questions have kept evidence:

- **low**: the answer abstains; or some sub-question has no kept evidence; or any kept
  document passage is ``ungraded`` (the grader's output could not be parsed); or there is
  no evidence at all (a direct reply, a retrieval-only answer without the LLM).
- **high**: every sub-question has at least two distinct passages from the user's
  documents graded relevant (a section read in full counts as the passage that led to
  it; passages kept only as ``context`` do not count), the answer cites the documents it
  used, and the units name every subject of the question: a passage about another
  "capital" for a question on a country's capital gives no high confidence.
- **medium**: everything in between: a sub-question rests on a single passage, the
  evidence is only from the web, or the answer names no document it used.
"""

from __future__ import annotations

from collections.abc import Iterable

from archivist.agent.prompts import abstains
from archivist.agent.state import Evidence

HIGH, MEDIUM, LOW = "high", "medium", "low"
LEVELS = (HIGH, MEDIUM, LOW)


def _distinct(items: Iterable[Evidence]) -> int:
    """Distinct passages; a section read in full adds nothing to a passage found in it."""
    chosen = list(items)
    passages = {(e["parent_id"], e.get("text", "")[:200])
                for e in chosen if e["kind"] != "parent"}
    found_in = {parent for parent, _ in passages}
    sections = {e["parent_id"] for e in chosen if e["kind"] == "parent"} - found_in
    return len(passages) + len(sections)


def confidence(
    answer: str, evidence: list[Evidence], sub_questions: Iterable[int], cited: bool = True,
    on_subject: bool = True,
) -> str:
    """The confidence of ``answer`` given the kept ``evidence`` per sub-question index.

    ``cited`` says whether the answer names the documents it used (see ``sources.py``);
    ``on_subject`` whether the units name every subject of the question (the decision's
    addressing, ``answer/decision.py``): high needs both.
    """
    indices = list(sub_questions)
    if abstains(answer) or not evidence or not indices:
        return LOW
    documents = [e for e in evidence if e["kind"] != "web"]
    if any(e.get("grade", "relevant") == "ungraded" for e in documents):
        return LOW
    level = HIGH if cited and on_subject else MEDIUM
    for index in indices:
        own = [e for e in evidence if e["sub_question"] == index]
        if not own:
            return LOW
        if _distinct(e for e in own if e["kind"] != "web"
                     and e.get("grade", "relevant") == "relevant") < 2:
            level = MEDIUM
    return level
