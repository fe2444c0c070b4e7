"""The turn log: each finished turn (question, answer, sources, settings) and its feedback.

One SQLite file (``data_dir/turns.sqlite``). Turns are numbered from 1 within their
conversation. A rating replaces any earlier rating of the same turn. Each turn keeps the
steps it showed while it ran and its figures (``stats``, with any ``errors`` it noted), so
a conversation read back shows what it showed live.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from archivist.events import Event

if TYPE_CHECKING:
    from archivist.settings import Settings

Rating = Literal["up", "down"]
TURNS_FILE = "turns.sqlite"


def turn_log_path(data_dir: Path) -> Path:
    """Where a data directory keeps its turn log."""
    return data_dir / TURNS_FILE

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    thread_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    status TEXT NOT NULL,
    confidence TEXT,
    sources TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at REAL NOT NULL,
    steps TEXT NOT NULL DEFAULT '[]',
    stats TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (thread_id, turn)
);
CREATE TABLE IF NOT EXISTS feedback (
    thread_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    rating TEXT NOT NULL,
    comment TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (thread_id, turn)
);
"""

SETTINGS_RECORDED = (
    "llm", "llm_fast", "temperature", "embedding_model", "search_mode", "search_k",
    "prefetch_k", "strategy", "max_tool_calls", "max_sub_questions", "web_search",
    "child_chars", "parent_max_chars",
)


def settings_used(settings: Settings, collection: str) -> dict[str, Any]:
    """The settings that shape an answer (stored with the turn, for feedback)."""
    values = {name: getattr(settings, name, None) for name in SETTINGS_RECORDED}
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


class TurnLog:
    """Turns and their feedback, in SQLite."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._lock, self._conn:
            self._conn.executescript(_SCHEMA)
            columns = {row[1] for row in self._conn.execute("PRAGMA table_info(turns)")}
            for column, empty in (("steps", "[]"), ("stats", "{}")):  # logs made before them
                if column not in columns:
                    self._conn.execute(f"ALTER TABLE turns ADD COLUMN {column} TEXT NOT NULL "
                                       f"DEFAULT '{empty}'")

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._conn.close()

    def record(
        self, thread_id: str, question: str, answer: str, status: str,
        sources: list[dict[str, Any]], settings: dict[str, Any], confidence: str | None = None,
        steps: list[dict[str, Any]] | None = None, stats: dict[str, Any] | None = None,
    ) -> int:
        """Store a finished turn; returns its number in the conversation (from 1)."""
        with self._lock, self._conn:
            row = self._conn.execute(
                "SELECT COALESCE(MAX(turn), 0) FROM turns WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            number = int(row[0]) + 1
            self._conn.execute(
                "INSERT INTO turns (thread_id, turn, question, answer, status, confidence, "
                "sources, settings, created_at, steps, stats) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (thread_id, number, question, answer, status, confidence,
                 json.dumps(sources, ensure_ascii=False), json.dumps(settings, default=str),
                 time.time(), json.dumps(steps or [], ensure_ascii=False, default=str),
                 json.dumps(stats or {}, ensure_ascii=False, default=str)),
            )
        return number

    def _records(self, where: str, args: tuple[Any, ...]) -> list[TurnRecord]:
        sql = (
            "SELECT t.*, f.rating, f.comment, f.created_at AS rated_at FROM turns t "
            "LEFT JOIN feedback f ON f.thread_id = t.thread_id AND f.turn = t.turn "
            f"WHERE {where} ORDER BY t.thread_id, t.turn"
        )
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [_record(row) for row in rows]

    def turns(self, thread_id: str) -> list[TurnRecord]:
        """A conversation's turns, in order."""
        return self._records("t.thread_id = ?", (thread_id,))

    def turn(self, thread_id: str, number: int | None = None) -> TurnRecord | None:
        """Turn ``number``, or the latest answered turn when ``None``."""
        turns = self.turns(thread_id)
        if number is not None:
            return next((t for t in turns if t.turn == number), None)
        answered = [t for t in turns if t.status != "clarification"]
        return answered[-1] if answered else None

    def rate(self, thread_id: str, number: int, rating: Rating, comment: str = "") -> Feedback:
        """Record (or replace) the rating of a turn."""
        feedback = Feedback(rating, comment, time.time())
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO feedback VALUES (?,?,?,?,?)",
                (thread_id, number, rating, comment, feedback.created_at),
            )
        return feedback

    def rated(self, thread_ids: list[str] | None = None) -> list[TurnRecord]:
        """Every rated turn (of the given conversations, or all), oldest conversation first."""
        records = self._records("f.rating IS NOT NULL", ())
        if thread_ids is not None:
            wanted = set(thread_ids)
            records = [r for r in records if r.thread_id in wanted]
        return sorted(records, key=lambda r: (r.created_at, r.turn))

    def forget(self, thread_id: str) -> None:
        """Delete a conversation's turns and feedback."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM turns WHERE thread_id = ?", (thread_id,))
            self._conn.execute("DELETE FROM feedback WHERE thread_id = ?", (thread_id,))


def _record(row: sqlite3.Row) -> TurnRecord:
    feedback = None
    if row["rating"] is not None:
        feedback = Feedback(row["rating"], row["comment"], float(row["rated_at"]))
    return TurnRecord(
        thread_id=row["thread_id"], turn=int(row["turn"]), question=row["question"],
        answer=row["answer"], status=row["status"], sources=json.loads(row["sources"]),
        settings=json.loads(row["settings"]), created_at=float(row["created_at"]),
        confidence=row["confidence"], feedback=feedback, steps=json.loads(row["steps"]),
        stats=json.loads(row["stats"]),
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
    confidence: str | None = None
    clarification: str | None = None
    for event in turn_events:
        data = event.data
        if event.type == "token":
            tokens.append(str(data["text"]))
        elif event.type == "replace":
            tokens = [str(data["text"])]
        elif event.type == "step":
            steps.append(dict(data))
        elif event.type == "stats":
            stats = dict(data)
        elif event.type == "error":
            errors.append(str(data.get("message") or ""))
        elif event.type == "sources":
            sources = list(data.get("sources") or [])
            confidence = data.get("confidence")
        elif event.type == "clarification":
            clarification = str(data["question"])
        elif event.type == "done":
            status = str(data.get("status") or "answered")
            answer = clarification or str(data.get("answer") or "".join(tokens))
            if status != "error":
                if errors:
                    stats["errors"] = errors
                log.record(thread_id, question, answer, status, sources, settings, confidence,
                           steps, stats)
        yield event
