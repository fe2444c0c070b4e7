"""Progress reporting from inside nodes: visible steps and per-stage timings.

Both go through LangGraph's custom stream (``get_stream_writer``); outside a streamed run
the writer is a no-op, so nodes can call these unconditionally.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from langgraph.config import get_stream_writer

F = TypeVar("F", bound=Callable[..., Any])


class StepKind(StrEnum):
    """Every kind of visible step; the value is the wire name API and UI clients see."""

    # the question
    STRATEGY = "strategy"
    PROFILE = "profile"  # the model's profile (small / capable) and what decided it
    DEPTH = "depth"
    MEMORY = "memory"
    ROUTE = "route"
    CLEAR = "clear"
    CLARIFICATION = "clarification"
    NO_SPLIT = "no_split"
    SPLIT_BY_PARTS = "split_by_parts"
    REWRITE = "rewrite"
    INSTRUCTIONS = "instructions"  # definitions, format and standpoint set apart
    REWRITE_DROPPED = "rewrite_dropped"
    SUB_QUESTIONS = "sub_questions"
    ANALYSIS_RETRY = "analysis_retry"
    ANALYSIS_FALLBACK = "analysis_fallback"
    ANALYSIS_SALVAGED = "analysis_salvaged"  # the finished fields of an analysis cut short
    # the evidence
    SEARCH = "search"
    READ_PARENT = "read_parent"
    WEB_SEARCH = "web_search"
    WEB_UNAVAILABLE = "web_unavailable"
    WEB_FALLBACK = "web_fallback"
    GRADE = "grade"
    GATE = "gate"
    GRADE_RETRY = "grade_retry"
    GRADE_FALLBACK = "grade_fallback"
    OFF_SUBJECT = "off_subject"
    QUERY_DROPPED = "query_dropped"
    RETRY = "retry"
    NEXT_HOP = "next_hop"
    REPEAT_SKIPPED = "repeat_skipped"
    INVALID_TOOL_CALL = "invalid_tool_call"
    BUDGET = "budget"
    COMPRESS = "compress"
    TABLES = "tables"
    SQL = "sql"
    SQL_ERROR = "sql_error"
    TABLE_FALLBACK = "table_fallback"
    METRIC = "metric"  # a filing's metric computed in code: the formula with its figures
    METRIC_FALLBACK = "metric_fallback"  # ... or why it was not, before the usual path
    EVIDENCE = "evidence"  # the units the writer sees
    WITHIN_DOCUMENT = "within_document"  # a search kept to the document the question names
    STATEMENTS = "statements"  # a filing's statements shown for the line items asked
    DOCUMENT = "document"  # a whole-document question: which document, which sections
    READING = "reading"  # "reading section 12 of 48" (a section summarised by the model)
    SUMMARIES = "summaries"  # sections summarised before (cached) or by their opening
    # the answer
    CLAIMS = "claims"  # how many sentences the passages they cite support
    SECOND_LOOK = "second_look"
    QUOTED = "quoted"  # an answer of citations alone, made the cited sentences
    DECISION = "decision"  # answer or abstain, with the score that decided it
    REPEATS = "repeats"  # sentences the writer said again, dropped
    YEARS_NOT_COVERED = "years_not_covered"
    DROPPED_CITATION = "dropped_citation"


def _writer() -> Callable[[Any], None]:
    try:
        return get_stream_writer()
    except RuntimeError:  # called outside a graph run (a unit test calling a node)
        return lambda _chunk: None


def emit_step(kind: StepKind, detail: str, **extra: Any) -> None:
    """Report a visible step (see :class:`StepKind`)."""
    _writer()({"step": str(StepKind(kind)), "detail": detail, **extra})


def report_step(kind: str, detail: str) -> None:
    """:func:`emit_step` for a caller that names the kind as text (a :class:`StepKind` value)."""
    emit_step(StepKind(kind), detail)


def timed(stage: str) -> Callable[[F], F]:
    """Decorate a node so its wall time is reported under ``stage``."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                _writer()({"timing": stage, "start": start, "end": time.perf_counter()})

        return wrapper  # type: ignore[return-value]

    return decorate


def message_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)
