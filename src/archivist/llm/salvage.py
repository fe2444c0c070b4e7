"""What a structured reply that did not parse still holds: its finished, valid fields.

A reply cut at its token cap stops inside its JSON; one that is malformed breaks at some
point. :func:`finished_fields` reads a JSON object's top-level fields up to that point,
keeping only values that were complete; :func:`reply_fields` does so for a model's reply
(its text, or its tool call's arguments) and keeps the fields ``schema`` accepts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def finished_fields(text: str) -> dict[str, Any]:
    """The top-level fields of the first JSON object in ``text`` whose values are complete.

    Reading stops at the first key or value that is cut off or malformed; every field
    before it is kept. A number counts only when a ``,`` or ``}`` follows it (``12`` may
    be the start of ``125``).
    """
    start = text.find("{")
    if start < 0:
        return {}
    fields: dict[str, Any] = {}
    pos = start + 1
    while True:
        pos = _skip(text, pos)
        try:
            key, pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            return fields
        pos = _skip(text, pos)
        if not isinstance(key, str) or not text.startswith(":", pos):
            return fields
        try:
            value, pos = _DECODER.raw_decode(text, _skip(text, pos + 1))
        except json.JSONDecodeError:
            return fields
        pos = _skip(text, pos)
        ends = text[pos:pos + 1]
        if ends not in (",", "}") and isinstance(value, int | float) and not isinstance(
                value, bool):
            return fields
        fields[key] = value
        if ends != ",":
            return fields
        pos += 1


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def reply_text(raw: Any) -> str | dict[str, Any]:
    """What a reply says: its first tool call's arguments, else its text ("" for none)."""
    for call in getattr(raw, "tool_calls", None) or []:
        if isinstance(call.get("args"), dict):
            return dict(call["args"])
    for call in getattr(raw, "invalid_tool_calls", None) or []:
        if isinstance(call.get("args"), str):
            return str(call["args"])
    content = getattr(raw, "content", "")
    if isinstance(content, list):  # content blocks: their text, in order
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                       if isinstance(b, str | dict))
    return str(content or "")


def reply_fields(raw: Any, schema: type[BaseModel]) -> dict[str, Any]:
    """The finished fields of ``raw`` that ``schema`` has and whose values it accepts."""
    said = reply_text(raw)
    fields = said if isinstance(said, dict) else finished_fields(said)
    kept: dict[str, Any] = {}
    for name, value in fields.items():
        field = schema.model_fields.get(name)
        if field is None or field.annotation is None:
            continue
        try:
            kept[name] = TypeAdapter(field.annotation).validate_python(value)
        except ValidationError:
            continue
    return kept
