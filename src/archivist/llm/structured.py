"""Structured output that survives bad replies, by the method the model's profile names.

:func:`structured_output` builds the runnable: the provider's own
``with_structured_output(schema, include_raw=True)`` for a ``native`` profile, or
:func:`prompted_json` (the schema described in the prompt, the reply's first JSON object
parsed) for a ``prompted`` one. :func:`invoke_structured` asks once, and once more with the
parse error shown to the model (not after a reply cut at its cap), then returns what the
caller salvages from the finished fields, or ``None`` so that the caller degrades.
``max_tokens`` caps the reply at what the schema's output needs (:func:`reply_capped`): a
small model that loops inside the JSON then stops there, not at its whole reply cap.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.llm.salvage import reply_fields

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

JSON_REPLY = """Reply with ONE JSON object and nothing else (no prose, no code fence): the
{name} with these fields (JSON schema of each): {fields}"""

STRUCTURED_RETRY = """Your previous reply could not be used: {error}
Reply again, exactly in the requested structured format, with nothing else."""

#: Reports a failed attempt: ``(step kind, detail)``; the agent passes its step emitter.
Report = Callable[[str, str], None]


#: The fields that cap a reply's length, by LangChain's names: ``max_tokens`` (OpenAI,
#: Anthropic, the local model), ``num_predict`` (Ollama), ``max_output_tokens`` (Google).
_CAP_FIELDS = ("max_tokens", "num_predict", "max_output_tokens")


def reply_capped(llm: BaseChatModel, max_tokens: int | None) -> BaseChatModel:
    """A copy of ``llm`` whose replies stop after ``max_tokens`` (a lower cap of its own kept).

    ``None``, or a model with no cap field (the scripted model): ``llm`` as it is.
    """
    if max_tokens is None:
        return llm
    fields = type(llm).model_fields
    update: dict[str, Any] = {}
    for name in _CAP_FIELDS:
        if name in fields:
            current = getattr(llm, name, None)
            update[name] = max_tokens if current is None else min(int(current), max_tokens)
    extra = getattr(llm, "extra_body", None)  # OpenAI-compatible servers read it too
    if update and isinstance(extra, dict) and extra.get("max_tokens"):
        update["extra_body"] = {**extra, "max_tokens": min(int(extra["max_tokens"]), max_tokens)}
    return llm.model_copy(update=update) if update else llm


def structured_output(
    llm: BaseChatModel, schema: type[M], profile: ModelProfile = DEFAULT_PROFILE,
    max_tokens: int | None = None,
) -> Runnable[Any, Any]:
    """A runnable returning ``{"raw", "parsed", "parsing_error"}`` for ``schema``.

    The method comes from ``profile.structured``: ``native`` uses the provider's
    ``with_structured_output(schema, include_raw=True)``; ``prompted`` uses
    :func:`prompted_json`. ``max_tokens`` (None: the model's own cap) bounds the reply.
    """
    llm = reply_capped(llm, max_tokens)
    if profile.structured == "prompted":
        return prompted_json(llm, schema)
    return llm.with_structured_output(schema, include_raw=True)


def prompted_json(llm: BaseChatModel, schema: type[M]) -> Runnable[Any, Any]:
    """Structured output by prompt: ask for a JSON object, parse the first one in the reply.

    Returns what ``with_structured_output(..., include_raw=True)`` returns: a dict with
    ``raw``, ``parsed`` and ``parsing_error``.
    """
    fields = json.dumps(schema.model_json_schema().get("properties", {}))
    instruction = JSON_REPLY.format(name=schema.__name__, fields=fields)

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


#: How providers say a reply stopped at its token cap (``finish_reason``: OpenAI, the local
#: model, Google; ``done_reason``: Ollama; ``stop_reason``: Anthropic).
_CUT = {("finish_reason", "length"), ("finish_reason", "MAX_TOKENS"),
        ("done_reason", "length"), ("stop_reason", "max_tokens")}


def cut_at_cap(raw: Any) -> bool:
    """Whether a reply stopped at its token cap (its JSON is then unfinished)."""
    metadata = getattr(raw, "response_metadata", None) or {}
    return any(str(metadata.get(key)) == value for key, value in _CUT)


def unpack(result: Any, schema: type[M]) -> tuple[M | None, str]:
    """The parsed object, or ``None`` and why it could not be parsed (one line).

    A reply cut at its token cap is not used, even when a lenient parser made something
    of its unfinished JSON (a string repeating itself until the cap, say).
    """
    if isinstance(result, schema):
        return result, ""
    if not isinstance(result, dict):
        return None, f"unexpected reply type {type(result).__name__}"
    if cut_at_cap(result.get("raw")):
        return None, "the reply was cut at its token cap"
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


def _silent(_kind: str, _detail: str) -> None:
    return None


def invoke_structured(
    runnable: Runnable[Any, Any], messages: list[BaseMessage], schema: type[M], what: str,
    fallback: str = "", *, report: Report = _silent,
    salvage: Callable[[dict[str, Any]], M | None] | None = None,
) -> M | None:
    """Ask for ``schema``; on a parse failure retry once showing the error, then ``None``.

    A reply cut at its token cap is not asked again: the same prompt under the same cap
    runs into it again. With ``salvage``, the last failed reply's finished, valid fields
    (:func:`~archivist.llm.salvage.reply_fields`) are handed to it, and what it makes of
    them is returned (reported as ``{what}_salvaged``, with the fields kept). Each failure
    is reported: ``{what}_retry`` with the error, then ``{what}_fallback`` with the error
    and ``fallback`` (what the caller does instead).
    """
    attempt_messages = list(messages)
    for attempt in range(2):
        result = runnable.invoke(attempt_messages)
        parsed, error = unpack(result, schema)
        if parsed is not None:
            return parsed
        log.warning("%s: unparseable structured output (attempt %d): %s", what, attempt + 1, error)
        raw = result.get("raw") if isinstance(result, dict) else None
        if attempt == 0 and not cut_at_cap(raw):
            report(f"{what}_retry", error)
            attempt_messages = [*messages, HumanMessage(STRUCTURED_RETRY.format(error=error))]
            continue
        fields = reply_fields(raw, schema) if salvage is not None and raw is not None else {}
        rescued = salvage(fields) if salvage is not None and fields else None
        if rescued is not None:
            report(f"{what}_salvaged", f"{error}; kept {', '.join(fields)}")
            return rescued
        report(f"{what}_fallback", f"{error}; {fallback}" if fallback else error)
        break
    return None
