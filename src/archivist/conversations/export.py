"""Conversations as Markdown or JSON, titles without an LLM, and feedback as eval questions.

``feedback_items`` writes rated turns in the curated question format that
``archivist eval answers`` reads (``{id, question, reference, source, ...}``): a thumbs-up
keeps its answer as the reference; a thumbs-down becomes a regression case with no
reference (the comment says what was wrong) until someone writes the right answer in.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from archivist.conversations.store import TurnRecord
from archivist.events import unsupported_note
from archivist.types import source_label

TITLE_CHARS = 60
_FILLER = re.compile(
    r"^(?:hi|hello|hey|please|can you|could you|would you|tell me|i want to know|"
    r"i'd like to know|do you know)[,!:]?\s+", re.IGNORECASE)


def title_from_question(question: str, limit: int = TITLE_CHARS) -> str:
    """A short title from a conversation's first question (no LLM call)."""
    text = " ".join(question.split())
    previous = None
    while previous != text:
        previous, text = text, _FILLER.sub("", text)
    text = text.rstrip("?!. ") or " ".join(question.split())
    if len(text) > limit:
        cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
        text = cut.rstrip(",;:-") + "…"
    return text[:1].upper() + text[1:]


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def markdown_export(
    title: str, thread_id: str, collection: str, turns: list[TurnRecord]
) -> str:
    """The conversation as Markdown: each question, answer, numbered sources and rating."""
    lines = [f"# {title or 'Conversation'}", "",
             f"Conversation `{thread_id}` · collection `{collection}`", ""]
    for record in turns:
        lines += [f"## {record.turn}. {record.question}", "", record.answer.strip(), ""]
        note = unsupported_note(record.claims)
        if note:
            lines += [note, ""]
        if record.sources:
            lines.append("**Sources**")
            lines.append("")
            for number, source in enumerate(record.sources, start=1):
                label = source_label(source)
                if source.get("url"):
                    label = f"[{label}]({source['url']})"
                passage = " ".join(str(source.get("passage") or "").split())
                lines.append(f"{number}. {label}" + (f" — “{passage}”" if passage else ""))
            lines.append("")
        if record.feedback is not None:
            thumb = "👍" if record.feedback.rating == "up" else "👎"
            comment = f": {record.feedback.comment}" if record.feedback.comment else ""
            lines += [f"_Feedback: {thumb}{comment}_", ""]
        lines += [f"_{_when(record.created_at)}_", ""]
    return "\n".join(lines).rstrip() + "\n"


def turn_json(record: TurnRecord) -> dict[str, Any]:
    """One turn as JSON."""
    feedback = None
    if record.feedback is not None:
        feedback = {"rating": record.feedback.rating, "comment": record.feedback.comment}
    return {
        "turn": record.turn, "question": record.question, "answer": record.answer,
        "status": record.status, "confidence": record.confidence, "sources": record.sources,
        "claims": record.claims, "feedback": feedback, "created_at": record.created_at,
        "steps": record.steps, "stats": record.stats,
    }


def json_export(
    title: str, thread_id: str, collection: str, turns: list[TurnRecord]
) -> dict[str, Any]:
    """The conversation as JSON."""
    return {"thread_id": thread_id, "title": title, "collection": collection,
            "turns": [turn_json(t) for t in turns]}


def feedback_items(records: list[TurnRecord]) -> list[dict[str, Any]]:
    """Rated turns as curated eval questions (thumbs-down: regression cases)."""
    items = []
    for record in records:
        if record.feedback is None:
            continue
        documents = sorted({str(s["document_name"]) for s in record.sources
                            if s.get("kind", "document") == "document"
                            and s.get("document_name")})
        item: dict[str, Any] = {
            "id": f"feedback-{record.thread_id[:12]}-{record.turn}",
            "question": record.question,
            "rating": record.feedback.rating,
            "comment": record.feedback.comment,
            "settings": record.settings,
        }
        if record.feedback.rating == "up":
            item.update(reference=record.answer, source=documents)
        else:
            item.update(reference=[], regression=True, rejected_answer=record.answer,
                        rejected_sources=documents)
        items.append(item)
    return items
