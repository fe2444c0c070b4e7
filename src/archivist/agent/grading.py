"""Structured calls that survive bad output, and relevance grading (corrective RAG).

:func:`invoke_structured` asks for a pydantic schema; when the reply cannot be parsed it
asks once more with the error shown to the model, then gives up with ``None`` so that the
caller degrades (question analysis: clear and unsplit; grading: passages kept ungraded).

:class:`Grader` grades every passage of one research round in ONE call on the fast model:
the reply lists the ids of the relevant passages and, when there are none, a rewritten
search query. Irrelevant passages are dropped before anything is shown to the answering
model, so they never reach the answer or the Sources.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

from archivist.agent import prompts
from archivist.agent.state import Evidence, RelevanceGrades
from archivist.agent.steps import emit_step, timed
from archivist.agent.tools import evidence_block

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
_ID = re.compile(r"(\d+)")


def structured_output(llm: BaseChatModel, schema: type[M]) -> Runnable[Any, Any]:
    """``llm.with_structured_output(schema, include_raw=True)`` with a method that works.

    OpenAI-compatible servers other than OpenAI's (llama.cpp, vLLM, LM Studio) differ in
    what they accept: llama-cpp-python rejects ``response_format: json_schema`` (HTTP 500),
    and its grammar-constrained function calling takes seconds per token with a large
    vocabulary. ``ChatOpenAI`` with a custom base URL therefore gets *prompted* JSON: the
    schema is described in the prompt and the plain reply is parsed here.
    """
    inner = getattr(llm, "inner", llm)  # RetryingChatModel wraps the provider's model
    base = str(getattr(inner, "openai_api_base", "") or "")
    if type(inner).__name__ == "ChatOpenAI" and base and "api.openai.com" not in base:
        return prompted_json(llm, schema)
    return llm.with_structured_output(schema, include_raw=True)


def prompted_json(llm: BaseChatModel, schema: type[M]) -> Runnable[Any, Any]:
    """Structured output by prompt: ask for a JSON object, parse the first one in the reply.

    Returns what ``with_structured_output(..., include_raw=True)`` returns: a dict with
    ``raw``, ``parsed`` and ``parsing_error``.
    """
    fields = json.dumps(schema.model_json_schema().get("properties", {}))
    instruction = prompts.JSON_REPLY.format(name=schema.__name__, fields=fields)

    def call(messages: list[BaseMessage]) -> dict[str, Any]:
        raw = llm.invoke([*messages, HumanMessage(instruction)])
        text = str(raw.content) if isinstance(raw.content, str) else json.dumps(raw.content)
        start, end = text.find("{"), text.rfind("}")
        try:
            if start < 0 or end < start:
                raise ValueError("the reply holds no JSON object")
            parsed = schema.model_validate_json(text[start:end + 1])
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}

    return RunnableLambda(call, name=f"{schema.__name__}Prompted")


def _unpack(result: Any, schema: type[M]) -> tuple[M | None, str]:
    """The parsed object, or ``None`` and why it could not be parsed (one line)."""
    if isinstance(result, schema):
        return result, ""
    if not isinstance(result, dict):
        return None, f"unexpected reply type {type(result).__name__}"
    parsed = result.get("parsed")
    if isinstance(parsed, schema):
        return parsed, ""
    error = result.get("parsing_error")
    if error is not None:
        text = " ".join(str(error).split())
        return None, f"{type(error).__name__}: {text[:300]}"
    raw = result.get("raw")
    content = " ".join(str(getattr(raw, "content", "") or "").split())
    return None, f"no {schema.__name__} object in the reply (got text: {content[:120]!r})"


def invoke_structured(
    runnable: Runnable[Any, Any], messages: list[BaseMessage], schema: type[M], what: str,
    fallback: str = "",
) -> M | None:
    """Ask for ``schema``; on a parse failure retry once showing the error, then ``None``.

    Each failure is a visible step: ``{what}_retry`` with the error, then
    ``{what}_fallback`` with the error and ``fallback`` (what the caller does instead).
    """
    attempt_messages = list(messages)
    for attempt in range(2):
        parsed, error = _unpack(runnable.invoke(attempt_messages), schema)
        if parsed is not None:
            return parsed
        log.warning("%s: unparseable structured output (attempt %d): %s", what, attempt + 1, error)
        if attempt == 0:
            emit_step(f"{what}_retry", error)
            attempt_messages = [
                *messages, HumanMessage(prompts.STRUCTURED_RETRY.format(error=error))
            ]
        else:
            emit_step(f"{what}_fallback", f"{error}; {fallback}" if fallback else error)
    return None


@dataclass
class GradeOutcome:
    """The passages kept and dropped by one grading call, and a query to retry with."""

    kept: list[Evidence] = field(default_factory=list)
    dropped: list[Evidence] = field(default_factory=list)
    rewritten_query: str = ""
    degraded: bool = False


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

    def __init__(self, fast_llm: BaseChatModel) -> None:
        self.runnable = structured_output(fast_llm, RelevanceGrades)

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
                                   "passages kept ungraded")
        if grades is None:
            kept = [Evidence(**{**item, "grade": "ungraded"}) for item in items]  # type: ignore[typeddict-item]
            emit_step("grade", f"grading failed: {len(items)} passages kept ungraded",
                      sub_question=sub_question, kept=len(items), dropped=0)
            return GradeOutcome(kept=kept, degraded=True)
        relevant = _ids(list(grades.relevant), len(items))
        outcome = GradeOutcome(rewritten_query=" ".join(grades.rewritten_query.split())[:300])
        for number, item in enumerate(items, start=1):
            if number in relevant:
                outcome.kept.append(Evidence(**{**item, "grade": "relevant"}))  # type: ignore[typeddict-item]
            else:
                outcome.dropped.append(item)
        emit_step("grade", f"{len(outcome.kept)} of {len(items)} passages relevant",
                  sub_question=sub_question, kept=len(outcome.kept), dropped=len(outcome.dropped))
        return outcome
