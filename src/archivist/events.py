"""What an answer streams to every interface (CLI, API/SSE, web UI, MCP).

A turn yields, in order: zero or more ``step`` events, then either one ``clarification``
(the turn pauses; the user's next message answers it) or ``token`` events followed by one
``sources`` event and one ``stats`` event, and always a final ``done``.

The tokens stream once, after every check that could change the answer has run: what
streamed is the answer, never taken back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass as schema_dataclass

from archivist.types import source_label

EventType = Literal[
    "step", "clarification", "token", "sources", "stats", "error", "done"
]

SOURCE_EXAMPLE: dict[str, Any] = {
    "document_id": "3f2a9c01d4e5b6a7",
    "document_name": "R-FAQ.pdf",
    "pages": "pp. 3-4",
    "page_start": 3,
    "page_end": 4,
    "heading_path": ["7 R Miscellanea", "7.1 Installing packages"],
    "score": 0.0312,
    "kind": "document",
    "url": None,
}


@schema_dataclass(config=ConfigDict(json_schema_extra={"examples": [SOURCE_EXAMPLE]}))
class Source:
    """One cited source, built by code from what the agent actually retrieved.

    The same type is the API's source schema and the ``--json`` output of ``ask``.
    ``heading_path`` is the section it came from; ``score`` the search score of the hit
    (``None`` for a section read in full or a web result).
    """

    document_id: str
    document_name: str
    pages: str = ""
    """Where in the document: ``p. 3``/``pp. 3-5``, or ``§ Installation › Linux`` for a
    document without pages (Markdown, HTML, Word); see ``types.format_location``."""
    page_start: int | None = None
    page_end: int | None = None
    heading_path: list[str] = field(default_factory=list)
    score: float | None = None
    kind: Literal["document", "web"] = "document"
    url: str | None = None
    parent_id: str | None = None  # the section the passage came from (documents only)
    passage: str = ""  # the retrieved text, as the agent read it (shortened)

    def label(self) -> str:
        """The label shown to users (see ``types.source_label``)."""
        return source_label(asdict(self))


@schema_dataclass(config=ConfigDict(json_schema_extra={"examples": [{
    "text": "A half-done ingest is purged when the library is next opened.",
    "citations": [1], "supported": True, "score": 0.81, "reason": "",
}]}))
class CheckedClaim:
    """One sentence of an answer, checked by code against the passages it cites.

    ``citations`` number lines of the Sources list; ``score`` is the support score;
    ``reason`` says why an unsupported sentence failed ("" when supported).
    """

    text: str
    citations: list[int] = field(default_factory=list)
    supported: bool = True
    score: float = 0.0
    reason: str = ""


UNSUPPORTED = "⚠"  # the mark of an unsupported sentence, in every interface
UNSUPPORTED_HEADING = "Not supported by the cited passages:"


def unsupported_lines(claims: list[dict[str, Any]]) -> list[str]:
    """Each unsupported sentence, marked, with why: ``⚠ <sentence> (<reason>)``."""
    return [f"{UNSUPPORTED} {c['text']} ({c.get('reason') or 'not supported'})"
            for c in claims if not c.get("supported")]


def unsupported_note(claims: list[dict[str, Any]]) -> str:
    """A footnote listing the sentences the cited passages do not support ("" if none)."""
    lines = unsupported_lines(claims)
    return UNSUPPORTED_HEADING + "\n" + "\n".join(f"- {line}" for line in lines) if lines else ""


@dataclass
class Event:
    """One streamed event. ``data`` is JSON-serialisable."""

    type: EventType
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict."""
        return {"type": self.type, **self.data}


def step(kind: str, detail: str, **extra: Any) -> Event:
    """A visible step: rewrite, sub_questions, search, read_parent, route, grade, ..."""
    return Event("step", {"kind": kind, "detail": detail, **extra})


def token(text: str) -> Event:
    """A piece of the answer text."""
    return Event("token", {"text": text})


def clarification(question: str) -> Event:
    """The agent asks the user back; the next message in the thread answers it."""
    return Event("clarification", {"question": question})


def sources(
    items: list[Source], confidence: str | None = None,
    claims: list[dict[str, Any]] | None = None,
) -> Event:
    """The final Sources list, the code-derived confidence, and the checked claims.

    ``claims`` (when the answer was written from numbered evidence units): each sentence
    as ``{text, citations, supported, score, reason}``, its citations numbering lines of
    the Sources list.
    """
    data: dict[str, Any] = {"sources": [asdict(s) for s in items]}
    if confidence is not None:
        data["confidence"] = confidence
    if claims is not None:
        data["claims"] = claims
    return Event("sources", data)


def stats(values: dict[str, Any]) -> Event:
    """Per-answer figures: LLM calls, tokens, tool calls, wall time per stage."""
    return Event("stats", values)


def error(message: str) -> Event:
    """A user-facing error line (never a traceback)."""
    return Event("error", {"message": message})


def done(thread_id: str, answer: str = "", status: str = "answered") -> Event:
    """End of the turn. ``status`` is ``answered``, ``clarification`` or ``retrieval_only``."""
    return Event("done", {"thread_id": thread_id, "answer": answer, "status": status})
