"""The turn log keeps each turn's steps, figures and claims, also in a log made before it did."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from archivist.conversations import TurnLog, recorded
from archivist.events import Event
from archivist.storage import Database, open_database

OLD_SCHEMA = """
CREATE TABLE turns (thread_id TEXT NOT NULL, turn INTEGER NOT NULL, question TEXT NOT NULL,
    answer TEXT NOT NULL, status TEXT NOT NULL, confidence TEXT, sources TEXT NOT NULL,
    settings TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (thread_id, turn));
INSERT INTO turns VALUES ('t1', 1, 'Old question?', 'Old answer.', 'answered', NULL, '[]',
    '{}', 1.0);
"""


def test_a_turn_is_stored_with_its_steps_stats_and_warnings(database: Database) -> None:
    log = TurnLog(database)
    claims = [{"text": "Five years.", "citations": [1], "supported": True, "score": 0.8,
               "reason": ""},
              {"text": "Ten pumps.", "citations": [1], "supported": False, "score": 0.3,
               "reason": "the cited passages do not state Ten"}]
    events = [
        Event("step", {"kind": "rewrite", "detail": "zephyr warranty"}),
        Event("step", {"kind": "search", "detail": "zephyr warranty", "hits": 3}),
        Event("error", {"message": "web search failed: timeout"}),
        Event("token", {"text": "Five years."}),
        Event("sources", {"sources": [], "confidence": "high", "claims": claims}),
        Event("stats", {"llm_calls": 2, "tool_calls": 1, "wall_seconds": 0.5}),
        Event("done", {"status": "answered"}),
    ]
    passed = list(recorded(iter(events), log, "t1", "How long?", {"llm": "scripted"}))
    assert passed == events
    (turn,) = log.turns("t1")
    assert turn.answer == "Five years." and turn.confidence == "high"
    assert turn.steps == [{"kind": "rewrite", "detail": "zephyr warranty"},
                          {"kind": "search", "detail": "zephyr warranty", "hits": 3}]
    assert turn.stats == {"llm_calls": 2, "tool_calls": 1, "wall_seconds": 0.5,
                          "errors": ["web search failed: timeout"]}
    assert turn.claims == claims


def test_turns_number_from_one_and_a_rating_replaces_the_last(database: Database) -> None:
    log = TurnLog(database)
    assert [log.record("t", q, "a", "answered", [], {}) for q in ("q1", "q2")] == [1, 2]
    assert log.record("u", "q", "a", "answered", [], {}) == 1
    log.rate("t", 2, "down", "wrong")
    log.rate("t", 2, "up", "fine after all")
    (rated,) = log.rated()
    assert rated.turn == 2 and rated.feedback is not None
    assert (rated.feedback.rating, rated.feedback.comment) == ("up", "fine after all")
    assert log.rated(["u"]) == [] and log.rated([]) == []
    log.forget("t")
    assert log.turns("t") == [] and log.count() == {"turns": 1, "feedback": 0}


def test_a_log_made_before_steps_were_kept_opens_and_records(tmp_path: Path) -> None:
    path = tmp_path / "turns.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
    database = open_database(None, tmp_path)
    log = TurnLog(database)
    (old,) = log.turns("t1")
    assert old.question == "Old question?" and old.steps == [] and old.stats == {}
    assert old.claims == []
    log.record("t1", "New?", "New.", "answered", [], {}, steps=[{"kind": "search",
                                                                 "detail": "new"}])
    assert [t.steps for t in log.turns("t1")] == [[], [{"kind": "search", "detail": "new"}]]
    database.close()
