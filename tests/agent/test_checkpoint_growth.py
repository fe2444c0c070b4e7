"""A conversation keeps one checkpoint per thread: its stored bytes grow with what it
says, not with the steps each turn takes (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from tests.agent.conftest import ServiceFactory

from archivist.agent.service import AgentService
from archivist.application import Application
from archivist.storage import Database
from archivist.testing import ScriptedChatModel

TURNS = 5
PADDING = 19_000  # characters in each question (the cap is 20,000)
_SQLITE = ("SELECT (SELECT count(*) FROM checkpoints), "
           "(SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0) FROM checkpoints) "
           "+ (SELECT coalesce(sum(length(value)), 0) FROM writes)")
_POSTGRES = ("SELECT (SELECT count(*) FROM checkpoints), "
             "(SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) "
             "FROM checkpoints) + (SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_writes)"
             " + (SELECT coalesce(sum(coalesce(length(blob), 0)), 0) FROM checkpoint_blobs)")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_checkpoints_grow_by_what_a_turn_says(
    make_service: ServiceFactory, corpus_library: Application, backend: str,
    request: pytest.FixtureRequest,
) -> None:
    if backend == "sqlite":
        service = make_service()
        database, query = service.database, _SQLITE
    else:
        database, query = Database(request.getfixturevalue("postgres_url")), _POSTGRES
        service = AgentService(corpus_library.searcher, corpus_library.settings,
                               llm=ScriptedChatModel(), database=database)
    try:
        thread, sizes = None, []
        for turn in range(TURNS):
            question = f"How do I install PostgreSQL, step {turn}? " + "x" * PADDING
            thread = service.ask(question, thread).thread_id
            with database.engine.connect() as conn:
                rows, size = conn.execute(sa.text(query)).one()
            sizes.append((int(size), int(rows)))
        history = service.history(thread)  # the conversation goes on from where it was
        assert history[-2]["content"].startswith(f"How do I install PostgreSQL, step {TURNS - 1}")
    finally:
        if backend == "postgresql":
            service.close()
            database.close()
    per_turn = max(b - a for (a, _), (b, _) in zip(sizes, sizes[1:], strict=False))
    print(f"\n{backend} checkpoint bytes after each turn: {[s for s, _ in sizes]}; at most "
          f"{per_turn:,} bytes per turn; checkpoint rows {[r for _, r in sizes]}")
    assert {rows for _, rows in sizes} == {1}  # one checkpoint per thread, whatever the turns
    # what a turn adds: its question and answer, a few times over (messages, memory, state);
    # before, every step of the turn saved the whole state again: 1.4 MB a turn
    assert per_turn < 4 * PADDING, sizes
