"""Typed state of the conversation graph, and what it shares with the research sub-agents.

Also here: the items both graphs carry (evidence, sub-answers) and the structured-output
schemas of the conversation's model calls.

Graph state is a kw-only dataclass with a default for every field (LangGraph builds it
from the channel values), so nodes read ``state.summary`` and never repeat a default.
Per-turn lists use :func:`extend_or_reset`: a node (or the turn's input) sends ``None`` to
clear the list at the start of a turn, and any list to append to it. Parallel research
branches therefore merge their sub-answers and evidence without overwriting each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field


def extend_or_reset(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer: ``None`` clears the list, a list is appended."""
    if right is None:
        return []
    return [*(left or []), *right]


Route = Literal["documents", "web", "direct"]


class Evidence(TypedDict):
    """One piece of text the agent retrieved and kept (graded relevant, or ungraded).

    Only kept evidence enters the state: a passage graded irrelevant is never stored,
    shown to the answering model, or cited.
    """

    kind: str  # "hit", "parent" or "web"
    parent_id: str
    document_id: str
    document_name: str
    pages: str
    page_start: int | None
    page_end: int | None
    sub_question: int
    text: NotRequired[str]  # the quoted text (what the grader and the writer see)
    url: NotRequired[str]  # web results only
    grade: NotRequired[str]  # "relevant"; "context" (kept by the pipeline's gate); "ungraded"
    heading_path: NotRequired[list[str]]  # the section the text came from
    document_about: NotRequired[str]  # what the document is: its title and filing
    sections: NotRequired[list[list[str]] | None]  # each section the text holds, in order
    score: NotRequired[float]  # the search score (hits only)


def graded_as(item: Evidence, grade: str) -> Evidence:
    """A copy of ``item`` carrying ``grade``."""
    out = item.copy()
    out["grade"] = grade
    return out


def for_sub_question(item: Evidence, index: int) -> Evidence:
    """A copy of ``item`` attributed to sub-question ``index``."""
    out = item.copy()
    out["sub_question"] = index
    return out


class SubAnswer(TypedDict):
    """What one research sub-agent concluded about its sub-question."""

    index: int
    question: str
    answer: str
    found: bool  # False when nothing was retrieved at all
    budget_exhausted: bool
    units: NotRequired[list[Evidence]]  # the numbered units it cites (unit n: units[n - 1])


@dataclass(kw_only=True)
class AgentState:
    """The conversation graph's state; one checkpointed thread per conversation.

    Every field has a default, so a node reads ``state.summary`` whether or not an
    earlier node or turn wrote it.
    """

    # conversation memory: finished turns (Human, AI, Human, AI, ...) and a rolling summary
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    summary: str = ""
    # the current turn
    question: str = ""
    parsed: dict[str, Any] = field(default_factory=dict)  # the question read once (question/)
    route: str = ""  # "documents", "web" or "direct" (from question analysis)
    depth: str = ""  # "direct", "single" or "multi" (see question/depth.py)
    direct_reply: str = ""
    clarification: str = ""  # the question to ask back, while one is pending
    clarification_rounds: int = 0
    sub_questions: list[str] = field(default_factory=list)
    sub_answers: Annotated[list[SubAnswer], extend_or_reset] = field(default_factory=list)
    evidence: Annotated[list[Evidence], extend_or_reset] = field(default_factory=list)
    answer: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)  # each sentence, checked
    confidence: str = ""
    status: str = ""


class QuestionAnalysis(BaseModel):
    """Structured output of question analysis: route, sub-questions, or a clarification."""

    route: Route = Field(
        default="documents",
        description="'direct' for greetings, thanks and chit-chat (no search); 'web' for "
        "current events and news when web search is offered; otherwise 'documents'.",
    )
    direct_reply: str = Field(
        default="",
        description="When route is 'direct': the short, friendly reply to send.",
    )

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
    def degraded(cls, question: str) -> QuestionAnalysis:
        """What an unparseable analysis becomes: clear, unsplit, from the documents."""
        return cls(route="documents", is_clear=True, sub_questions=[question])

    @classmethod
    def salvaged(cls, fields: dict[str, Any]) -> QuestionAnalysis | None:
        """What an analysis that did not parse becomes from its finished ``fields``.

        Its route (``direct`` only with its reply finished) and its sub-questions when the
        list was finished; never an ask-back. ``None`` when it finished neither.
        """
        if "route" not in fields and "sub_questions" not in fields:
            return None
        route = fields.get("route", "documents")
        reply = str(fields.get("direct_reply") or "")
        if route == "direct" and not reply.strip():
            route = "documents"
        return cls(route=route, direct_reply=reply if route == "direct" else "", is_clear=True,
                   sub_questions=list(fields.get("sub_questions") or []))


class RelevanceGrades(BaseModel):
    """Structured output of grading: which retrieved passages bear on the question."""

    relevant: list[str] = Field(
        default_factory=list,
        description="The ids (e.g. 'P1') of the passages that help answer the question. "
        "Empty when none does.",
    )
    rewritten_query: str = Field(
        default="",
        description="When no passage is relevant: a better search query (other words, "
        "synonyms, the key terms). Otherwise empty.",
    )
    next_query: str = Field(
        default="",
        description="When the relevant passages name what the question asks about "
        "indirectly (a person, work, place) but do not state the fact it needs: a search "
        "query for that next fact. Otherwise empty.",
    )
