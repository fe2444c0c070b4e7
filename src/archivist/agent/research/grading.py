"""Relevance grading (corrective RAG), by a model call or by code.

:class:`Grader` grades every passage of one research round in ONE call on the fast model:
the reply lists the ids of the relevant passages and, when there are none, a rewritten
search query. :class:`ScoreGate` (the small-model policy) decides by code instead, with no
call: the search's rank order, the question's named subjects and words
(``evidence/gate.py``). Either way irrelevant passages are dropped before anything is
shown to the answering model, so they never reach the answer or the Sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from archivist.agent import prompts
from archivist.agent.evidence.gate import score_gate
from archivist.agent.state import Evidence, RelevanceGrades, graded_as
from archivist.agent.steps import StepKind, emit_step, report_step, timed
from archivist.agent.tools import evidence_block
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.llm.structured import invoke_structured, structured_output

_ID = re.compile(r"(\d+)")


@dataclass
class GradeOutcome:
    """The passages kept and dropped by one grading call, and a query to retry with."""

    kept: list[Evidence] = field(default_factory=list)
    dropped: list[Evidence] = field(default_factory=list)
    rewritten_query: str = ""
    next_query: str = ""
    degraded: bool = False


class Gate(Protocol):
    """What decides which passages of a round are evidence."""

    def grade(self, question: str, items: list[Evidence], sub_question: int = 0) -> GradeOutcome:
        """Keep the relevant ``items``; with none relevant, maybe suggest another query."""
        ...


@dataclass
class ScoreGate:
    """Relevance by code (no model call): see :func:`archivist.agent.evidence.gate.score_gate`."""

    #: the search's first hits kept whatever they name (``agent.search_hits_kept``)
    top_hits: int = 0

    @timed("grading")
    def grade(self, question: str, items: list[Evidence], sub_question: int = 0) -> GradeOutcome:
        """Keep the best passages that name the question's subjects and words."""
        kept, dropped = score_gate(question, items, top_hits=self.top_hits)
        emit_step(StepKind.GATE, f"{len(kept)} of {len(items)} passages kept by search rank "
                  "and the question's words", sub_question=sub_question, kept=len(kept),
                  dropped=len(dropped))
        return GradeOutcome(kept=[graded_as(item, "relevant") for item in kept],
                            dropped=dropped)


def _as_is(query: str) -> str:
    return " ".join(query.split())[:300]


def _ids(values: list[Any], count: int) -> set[int]:
    """Passage numbers from ids the model wrote ("P2", "p2", "2", 2), within range."""
    numbers = set()
    for value in values:
        match = _ID.search(str(value))
        if match and 1 <= int(match.group(1)) <= count:
            numbers.add(int(match.group(1)))
    return numbers


class Grader:
    """Grades a round's passages against a question in one structured call."""

    def __init__(self, fast_llm: BaseChatModel, profile: ModelProfile = DEFAULT_PROFILE) -> None:
        self.runnable = structured_output(fast_llm, RelevanceGrades, profile)

    @timed("grading")
    def grade(self, question: str, items: list[Evidence], sub_question: int = 0) -> GradeOutcome:
        """Keep the relevant ``items``; with none relevant, suggest a rewritten query.

        When the grader's output cannot be parsed even after a retry, every item is kept
        and marked ``ungraded`` (the answer's confidence is then low).
        """
        if not items:
            return GradeOutcome()
        passages = "\n".join(
            evidence_block(item, passage_id=f"P{n}") for n, item in enumerate(items, start=1)
        )
        messages: list[BaseMessage] = [
            SystemMessage(prompts.GRADE_SYSTEM),
            HumanMessage(prompts.GRADE_USER.format(question=question, passages=passages)),
        ]
        grades = invoke_structured(self.runnable, messages, RelevanceGrades, "grade",
                                   "passages kept ungraded", report=report_step)
        if grades is None:
            kept = [graded_as(item, "ungraded") for item in items]
            emit_step(StepKind.GRADE, f"grading failed: {len(items)} passages kept ungraded",
                      sub_question=sub_question, kept=len(items), dropped=0)
            return GradeOutcome(kept=kept, degraded=True)
        relevant = _ids(list(grades.relevant), len(items))
        outcome = GradeOutcome(
            rewritten_query=_as_is(grades.rewritten_query),
            next_query=_as_is(grades.next_query) if relevant else "",
        )
        for number, item in enumerate(items, start=1):  # in the search's rank order
            if number in relevant:
                outcome.kept.append(graded_as(item, "relevant"))
            else:
                outcome.dropped.append(item)
        emit_step(StepKind.GRADE, f"{len(relevant)} of {len(items)} passages relevant",
                  sub_question=sub_question, kept=len(outcome.kept), dropped=len(outcome.dropped))
        return outcome
