"""How deep a question goes, decided in code where the question allows it (Adaptive RAG).

Three depths (Jeong et al. 2024, "Adaptive-RAG"):

* ``direct``: a greeting or small talk; a reply with no retrieval;
* ``single``: one search, the evidence, one writing call;
* ``multi``: several steps: sub-questions researched side by side;
* ``document``: a question about a whole named document ("Summarize X", "List the
  sections of X"): a map-reduce over its sections (``question/document.py``).

On a small model :func:`plan_without_model` decides a fresh question's depth with no LLM
call when its text settles it: small talk, a dangling "it" to ask back about, a question
whose clauses each ask on their own, or a plain one-part question. It returns ``None``
when an analysis call is needed: earlier turns to resolve references against, an answer
to a clarification, or a question joined by "and" whose parts the model may separate.

A new research path (say, tables) is one more :class:`Depth` member, chosen here or by
the analysis, and one more branch where the research graph reads ``depth``.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from archivist.agent.question.analysis import (
    Asked,
    Plan,
    clarifying_question,
    clause_parts,
    dangling_reference,
    is_small_talk,
    keep_subjects,
    looks_compound,
)
from archivist.agent.question.document import whole_document
from archivist.agent.question.one_figure import asks_one_figure
from archivist.agent.steps import StepKind


class Depth(StrEnum):
    """How deep a question is researched (the wire name of the ``depth`` step)."""

    DIRECT = "direct"
    SINGLE = "single"
    MULTI = "multi"
    DOCUMENT = "document"


def depth_of(plan: Plan, question: str, documents: Sequence[str] = ()) -> Depth:
    """The depth a plan implies: direct, several sub-questions, a whole document, or one.

    ``documents`` are the library's file names: one sub-question that asks about a whole
    document one of them names goes to the document path. The sub-question is the
    analysis call's rewrite when there was one ("Summarize it" after a turn about a
    document names it), the question itself when code planned it (no call).
    """
    if plan.route == "direct":
        return Depth.DIRECT
    if len(plan.sub_questions) > 1:
        return Depth.MULTI
    if plan.route == "documents" and documents and whole_document(
            plan.sub_questions[0] if plan.sub_questions else question, documents):
        return Depth.DOCUMENT
    return Depth.SINGLE


def plan_without_model(asked: Asked) -> Plan | None:
    """The plan of a fresh question decided by code, or ``None`` to ask the model."""
    question = asked.question
    if not asked.fresh or asked.rounds:
        return None  # references to resolve, or a clarification to combine
    plan = Plan()
    if is_small_talk(question):
        plan.route = "direct"
        plan.note(StepKind.ROUTE, "direct", reason="greeting or small talk: no retrieval")
        return plan
    if dangling_reference(question) and asked.may_ask:
        plan.clarification = clarifying_question(question)
        return plan
    parts = clause_parts(question)
    if asks_one_figure(question, parts) and (len(parts) > 1 or looks_compound(question)):
        plan.sub_questions = [question]
        plan.note(StepKind.ROUTE, "documents")
        plan.note(StepKind.NO_SPLIT, "one figure over what the question joins: kept whole")
        return plan
    if len(parts) > 1:
        subs = [keep_subjects(question, p) for p in parts[: asked.max_sub_questions]]
        plan.sub_questions = subs
        plan.note(StepKind.ROUTE, "documents")
        plan.note(StepKind.REWRITE, " | ".join(subs), original=question)
        plan.note(StepKind.SUB_QUESTIONS, f"{len(subs)} sub-questions", items=subs)
        return plan
    if looks_compound(question):
        return None  # "X and Y": the model may see two needs in one clause
    plan.sub_questions = [question]
    plan.note(StepKind.ROUTE, "documents")
    return plan
