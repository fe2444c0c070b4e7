"""Typed state of the research sub-agent: its input, its working memory, its output."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from archivist.agent.state import Evidence, SubAnswer, extend_or_reset


class ResearchInput(TypedDict):
    """What the fan-out sends to one research sub-agent."""

    sub_question: str
    index: int
    stream_answer: bool
    route: NotRequired[str]  # "web" starts with web search; anything else, the documents


class ResearchOutput(TypedDict):
    """What a research sub-agent hands back to the conversation graph."""

    sub_answers: list[SubAnswer]
    evidence: list[Evidence]


class ResearchState(TypedDict, total=False):
    """A research sub-agent's working memory."""

    sub_question: str
    index: int
    stream_answer: bool
    route: str
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
    graded: Annotated[list[str], extend_or_reset]  # keys of passages already graded ...
    rejected: Annotated[list[str], extend_or_reset]  # ... and those graded irrelevant
    web_only: bool  # the kept evidence came from the web (answer without tools)
    web_tried: bool
    sub_answers: list[SubAnswer]
