"""Typed graph state (snake_case keys) for the agent and its research sub-agents.

Per-turn lists use :func:`extend_or_reset`: a node (or the turn's input) sends ``None`` to
clear the list at the start of a turn, and any list to append to it. Parallel research
branches therefore merge their sub-answers and evidence without overwriting each other.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field


def extend_or_reset(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer: ``None`` clears the list, a list is appended."""
    if right is None:
        return []
    return [*(left or []), *right]


class Evidence(TypedDict):
    """One piece of text the agent actually retrieved (a search hit or a parent read)."""

    kind: str  # "hit" or "parent"
    parent_id: str
    document_id: str
    document_name: str
    pages: str
    page_start: int | None
    page_end: int | None
    sub_question: int


class SubAnswer(TypedDict):
    """What one research sub-agent concluded about its sub-question."""

    index: int
    question: str
    answer: str
    found: bool  # False when nothing was retrieved at all
    budget_exhausted: bool


class AgentState(TypedDict, total=False):
    """The conversation graph's state; one checkpointed thread per conversation."""

    # conversation memory: finished turns (Human, AI, Human, AI, ...) and a rolling summary
    messages: Annotated[list[AnyMessage], add_messages]
    summary: str
    # the current turn
    question: str
    clarification: str  # the question to ask back, while one is pending
    clarification_rounds: int
    sub_questions: list[str]
    sub_answers: Annotated[list[SubAnswer], extend_or_reset]
    evidence: Annotated[list[Evidence], extend_or_reset]
    answer: str
    sources: list[dict[str, Any]]
    confidence: str
    status: str


class ResearchInput(TypedDict):
    """What the fan-out sends to one research sub-agent."""

    sub_question: str
    index: int
    stream_answer: bool


class ResearchOutput(TypedDict):
    """What a research sub-agent hands back to the conversation graph."""

    sub_answers: list[SubAnswer]
    evidence: list[Evidence]


class ResearchState(TypedDict, total=False):
    """A research sub-agent's working memory."""

    sub_question: str
    index: int
    stream_answer: bool
    messages: Annotated[list[AnyMessage], add_messages]
    notes: str
    queries_run: Annotated[list[str], extend_or_reset]
    parents_read: Annotated[list[str], extend_or_reset]
    tool_calls: int
    iterations: int
    hits_seen: int
    compressions: int
    budget_exhausted: bool
    evidence: Annotated[list[Evidence], extend_or_reset]
    sub_answers: list[SubAnswer]


class QuestionAnalysis(BaseModel):
    """Structured output of question analysis: rewritten sub-questions, or a clarification."""

    is_clear: bool = Field(
        default=True,
        description="False only when the question depends on something unresolved "
        "(e.g. 'that thing', 'it' with no earlier referent). Named terms, acronyms and "
        "new topics are clear.",
    )
    clarification_question: str = Field(
        default="",
        description="When unclear: one specific question to ask the user.",
    )
    sub_questions: list[str] = Field(
        default_factory=list,
        description="Self-contained retrieval questions (1 to 3), with references from the "
        "conversation resolved. Split only truly separate needs.",
    )

    @classmethod
    def scripted_default(cls, question: str) -> QuestionAnalysis:
        """The scripted model's built-in reply: clear, one sub-question (the question)."""
        return cls(is_clear=True, sub_questions=[question])
