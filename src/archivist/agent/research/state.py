"""Typed state of the research sub-agent: its input, its working memory, its output.

Kw-only dataclasses with defaults (LangGraph builds them from the channel values), so
nodes read ``state.tool_calls`` with no default to repeat at every use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from archivist.agent.state import Evidence, SubAnswer, extend_or_reset


@dataclass(kw_only=True)
class ResearchInput:
    """What the fan-out sends to one research sub-agent."""

    sub_question: str
    index: int = 0
    route: str = ""  # "web" starts with web search; anything else, the documents
    depth: str = ""  # "single", "multi" or "document" (see question/depth.py)
    instructions: list[str] = field(default_factory=list)  # for the writer, never searched
    #: the whole question (its instructions apart): a search keeps to the filings it names
    question: str = ""


@dataclass(kw_only=True)
class ResearchOutput:
    """What a research sub-agent hands back to the conversation graph."""

    sub_answers: list[SubAnswer] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(kw_only=True)
class ResearchState:
    """A research sub-agent's working memory."""

    sub_question: str = ""
    index: int = 0
    route: str = ""
    depth: str = ""
    instructions: list[str] = field(default_factory=list)
    #: the whole question, whose filings its searches keep to (a hop's do not, see
    #: ``Corrective._documents``)
    question: str = ""
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    notes: str = ""
    queries_run: Annotated[list[str], extend_or_reset] = field(default_factory=list)
    parents_read: Annotated[list[str], extend_or_reset] = field(default_factory=list)
    tool_calls: int = 0
    iterations: int = 0
    hits_seen: int = 0
    compressions: int = 0
    budget_exhausted: bool = False
    evidence: Annotated[list[Evidence], extend_or_reset] = field(default_factory=list)
    #: keys of passages already graded ...
    graded: Annotated[list[str], extend_or_reset] = field(default_factory=list)
    #: ... and of those graded irrelevant
    rejected: Annotated[list[str], extend_or_reset] = field(default_factory=list)
    #: the numbered evidence units the answer was written from (unit n is units[n - 1])
    units: list[Evidence] = field(default_factory=list)
    web_only: bool = False  # the kept evidence came from the web (answer without tools)
    web_tried: bool = False
    table_tried: bool = False  # the table path ran (see research/tables.py)
    table_answered: bool = False  # ... and answered from a query's result
    metric_answered: bool = False  # a filing's metric computed (see research/metric_answer.py)
    document_answered: bool = False  # answered from a whole document's sections
    write_prompt: str = ""  # the user message of the writing call (a second look continues it)
    hops: int = 0  # bridge hops run (``Corrective.hop``), at most ``agent.max_hops`` ...
    hop_found: bool = False  # ... the last one kept new passages: the answer is written again
    hop_query: str = ""  # ... the hops' queries, one per line
    hop_sections: list[str] = field(default_factory=list)  # the sections they found (parent ids)
    sub_answers: list[SubAnswer] = field(default_factory=list)
