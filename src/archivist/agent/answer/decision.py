"""One decision per answer: show it, show it with its weak sentences flagged, or abstain.

An answer's score is the share of its sentences the units they cite support, times how
well it addresses the question: the share of the question's named subjects that the units
the writer read, the passages they were cut from, or the answer name, halved when the
question asks for a year, a time or a number and the answer states none. An answer
scoring at least the threshold of the ``agent.strictness`` setting is shown, any
unsupported sentence marked; below it, the answer is the abstention that says what was
found. Every profile is judged the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from archivist.agent.answer.draft import Draft
from archivist.agent.evidence.gate import mentioned
from archivist.agent.question import ParsedQuestion
from archivist.agent.question.parsed import NUMBER, TIME, YEAR
from archivist.agent.state import Evidence
from archivist.agent.text import named, strip_citations

_TOKENS = re.compile(r"[a-z0-9+#]+")
#: The decision threshold of each ``agent.strictness`` level (see docs/evaluation.md for
#: what each level costs in answers and wrong answers).
STRICTNESS = {"lenient": 0.25, "balanced": 0.5, "strict": 0.75}
#: What an answer's score is cut by when it does not state the kind of thing asked.
KIND_MISSED = 0.5

ANSWER, ABSTAIN = "answer", "abstain"


@dataclass(frozen=True)
class Decision:
    """What is done with an answer, and the figures that decided it."""

    outcome: str  # "answer" or "abstain"
    score: float
    support: float  # share of sentences supported
    addressing: float  # subjects named x kind stated

    def as_step(self) -> dict[str, float | str]:
        """The figures as a step's details."""
        return {"outcome": self.outcome, "score": round(self.score, 3),
                "support": round(self.support, 3), "addressing": round(self.addressing, 3)}


def subjects_named(question: ParsedQuestion, units: list[Evidence], answer: str = "") -> float:
    """The share of the question's named subjects that ``units`` (or ``answer``) name.

    A unit's section headings and document name count with its text. 1.0 when the
    question names no subject.
    """
    if not question.subjects:
        return 1.0
    words = mentioned(units) | set(_TOKENS.findall(answer.lower()))
    return sum(named(t, words) for t in question.subjects) / len(question.subjects)


def addressing(question: ParsedQuestion, draft: Draft) -> float:
    """How well ``draft`` addresses ``question``: subjects named, times the kind stated."""
    stated = " ".join(c.text for c in draft.supported) or strip_citations(draft.text)
    share = subjects_named(question, [*draft.units, *draft.passages], stated)
    if question.kind in (YEAR, TIME, NUMBER) and not question.states_what_is_asked(stated):
        share *= KIND_MISSED
    return share


def decide(draft: Draft, threshold: float) -> Decision:
    """Answer when the supported share times the addressing reaches ``threshold``."""
    claims = draft.claims
    support = len(draft.supported) / len(claims) if claims else 0.0
    addressed = addressing(draft.question, draft) if claims else 0.0
    score = support * addressed
    return Decision(ANSWER if claims and score >= threshold else ABSTAIN, score, support,
                    addressed)
