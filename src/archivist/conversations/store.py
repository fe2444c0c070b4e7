"""The turn log: each finished turn (question, answer, sources, settings) and its feedback.

Two tables of the library's database (``turns``, ``feedback``). Turns are numbered from 1
within their conversation. A rating replaces any earlier rating of the same turn. Each turn
keeps the steps it showed while it ran, its figures (``stats``, with any ``errors`` it noted)
and its checked sentences (``claims``), so a conversation read back shows what it showed live.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import delete, func, select

from archivist.events import Event
from archivist.storage import Database
from archivist.storage.schema import feedback, turns

if TYPE_CHECKING:
    from archivist.settings import Settings

Rating = Literal["up", "down"]
SETTINGS_RECORDED = (
    "llm.model", "llm.fast_model", "llm.temperature", "index.embedding_model",
    "index.search_mode", "index.search_k", "index.prefetch_k", "agent.strategy",
    "agent.max_tool_calls", "agent.max_sub_questions", "agent.web_search",
    "index.child_chars", "index.parent_max_chars",
)


def settings_used(settings: Settings, collection: str) -> dict[str, Any]:
    """The settings that shape an answer (stored with the turn, for feedback)."""
    values = {name: attrgetter(name)(settings) for name in SETTINGS_RECORDED}
    return {"collection": collection, **values}


@dataclass
class Feedback:
    """A rating of one turn."""

    rating: Rating
    comment: str
    created_at: float


@dataclass
class TurnRecord:
    """One finished turn of a conversation."""

    thread_id: str
    turn: int
    question: str
    answer: str
    status: str
    sources: list[dict[str, Any]]
    settings: dict[str, Any]
    created_at: float
    confidence: str | None = None
    feedback: Feedback | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    claims: list[dict[str, Any]] = field(default_factory=list)  # each sentence, checked


class TurnLog:
    """Turns and their feedback, in the library's database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def close(self) -> None:
        """Nothing to release: the database is the application's."""

    def record(
        self, thread_id: str, question: str, answer: str, status: str,
        sources: list[dict[str, Any]], settings: dict[str, Any], confidence: str | None = None,
        steps: list[dict[str, Any]] | None = None, stats: dict[str, Any] | None = None,
        claims: list[dict[str, Any]] | None = None,
    ) -> int:
        """Store a finished turn; returns its number in the conversation (from 1)."""
        with self.database.transaction() as conn:
            latest = select(func.coalesce(func.max(turns.c.turn), 0)).where(
                turns.c.thread_id == thread_id)
            if not self.database.embedded:  # writers of one thread queue up
                conn.execute(select(func.pg_advisory_xact_lock(func.hashtext(thread_id))))
            number = int(conn.execute(latest).scalar() or 0) + 1
            conn.execute(turns.insert().values(
                thread_id=thread_id, turn=number, question=question, answer=answer,
                status=status, confidence=confidence,
                sources=json.dumps(sources, ensure_ascii=False),
                settings=json.dumps(settings, default=str), created_at=time.time(),
                steps=json.dumps(steps or [], ensure_ascii=False, default=str),
                stats=json.dumps(stats or {}, ensure_ascii=False, default=str),
                claims=json.dumps(claims or [], ensure_ascii=False, default=str)))
        return number

    def _records(self, where: Any) -> list[TurnRecord]:
        joined = turns.outerjoin(feedback, (feedback.c.thread_id == turns.c.thread_id)
                                 & (feedback.c.turn == turns.c.turn))
        query = (select(turns, feedback.c.rating, feedback.c.comment,
                        feedback.c.created_at.label("rated_at"))
                 .select_from(joined).where(where).order_by(turns.c.thread_id, turns.c.turn))
        with self.database.reading() as conn:
            return [_record(dict(row._mapping)) for row in conn.execute(query)]

    def turns(self, thread_id: str) -> list[TurnRecord]:
        """A conversation's turns, in order."""
        return self._records(turns.c.thread_id == thread_id)

    def turn(self, thread_id: str, number: int | None = None) -> TurnRecord | None:
        """Turn ``number``, or the latest answered turn when ``None``."""
        records = self.turns(thread_id)
        if number is not None:
            return next((t for t in records if t.turn == number), None)
        answered = [t for t in records if t.status != "clarification"]
        return answered[-1] if answered else None

    def rate(self, thread_id: str, number: int, rating: Rating, comment: str = "") -> Feedback:
        """Record (or replace) the rating of a turn."""
        rated = Feedback(rating, comment, time.time())
        values = {"rating": rating, "comment": comment, "created_at": rated.created_at}
        stmt = self.database.insert(feedback).values(thread_id=thread_id, turn=number, **values)
        with self.database.transaction() as conn:
            conn.execute(stmt.on_conflict_do_update(
                index_elements=[feedback.c.thread_id, feedback.c.turn], set_=values))
        return rated

    def rated(self, thread_ids: list[str] | None = None) -> list[TurnRecord]:
        """Every rated turn (of the given conversations, or all), oldest conversation first."""
        where: Any = feedback.c.rating.is_not(None)
        if thread_ids is not None:
            if not thread_ids:
                return []
            where = where & turns.c.thread_id.in_(thread_ids)
        records = self._records(where)
        return sorted(records, key=lambda r: (r.created_at, r.turn))

    def count(self) -> dict[str, int]:
        """Rows of turns and feedback."""
        with self.database.reading() as conn:
            return {table.name: int(conn.execute(select(func.count()).select_from(table))
                                    .scalar() or 0) for table in (turns, feedback)}

    def forget(self, thread_id: str) -> None:
        """Delete a conversation's turns and feedback."""
        with self.database.transaction() as conn:
            conn.execute(delete(turns).where(turns.c.thread_id == thread_id))
            conn.execute(delete(feedback).where(feedback.c.thread_id == thread_id))


def _record(row: Mapping[str, Any]) -> TurnRecord:
    rated = None
    if row["rating"] is not None:
        rated = Feedback(row["rating"], row["comment"], float(row["rated_at"]))
    return TurnRecord(
        thread_id=row["thread_id"], turn=int(row["turn"]), question=row["question"],
        answer=row["answer"], status=row["status"], sources=json.loads(row["sources"]),
        settings=json.loads(row["settings"]), created_at=float(row["created_at"]),
        confidence=row["confidence"], feedback=rated, steps=json.loads(row["steps"]),
        stats=json.loads(row["stats"]), claims=json.loads(row["claims"]),
    )


def recorded(
    turn_events: Iterator[Event], log: TurnLog, thread_id: str, question: str,
    settings: dict[str, Any],
) -> Iterator[Event]:
    """Pass a turn's events through, storing the turn in ``log`` when it is done."""
    tokens: list[str] = []
    steps: list[dict[str, Any]] = []
    stats: dict[str, Any] = {}
    errors: list[str] = []
    sources: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    confidence: str | None = None
    clarification: str | None = None
    for event in turn_events:
        data = event.data
        if event.type == "token":
            tokens.append(str(data["text"]))
        elif event.type == "step":
            steps.append(dict(data))
        elif event.type == "stats":
            stats = dict(data)
        elif event.type == "error":
            errors.append(str(data.get("message") or ""))
        elif event.type == "sources":
            sources = list(data.get("sources") or [])
            confidence = data.get("confidence")
            claims = list(data.get("claims") or [])
        elif event.type == "clarification":
            clarification = str(data["question"])
        elif event.type == "done":
            status = str(data.get("status") or "answered")
            answer = clarification or str(data.get("answer") or "".join(tokens))
            if status != "error":
                if errors:
                    stats["errors"] = errors
                log.record(thread_id, question, answer, status, sources, settings, confidence,
                           steps, stats, claims)
        yield event
