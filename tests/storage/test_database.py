"""The library database: one schema on both backends, old files imported, clear errors."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypedDict

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from archivist.app.api.auth import ThreadRegistry
from archivist.contextualize import ContextCache
from archivist.index.graph import EntityGraph
from archivist.storage import Database, DatabaseError, open_database
from archivist.storage.legacy import LEGACY_FILES
from archivist.storage.schema import metadata


def test_the_migrations_build_exactly_the_tables_the_code_queries(database: Database) -> None:
    with database.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": False})
        diff = compare_metadata(context, metadata)
    ours = {t.name for t in metadata.sorted_tables}
    # the checkpointer's own tables (created by its saver) are not part of this schema
    assert [d for d in diff if not (d[0] == "remove_table" and d[1].name not in ours)] == []


def test_reopening_a_migrated_database_keeps_its_rows(database_url: str) -> None:
    first = Database(database_url)
    ThreadRegistry(first).create("t1", "key:a", "default")
    first.close()
    second = Database(database_url)  # the revisions are not run twice
    assert ThreadRegistry(second).owned("key:a")[0][:2] == ("t1", "default")
    second.close()


class _State(TypedDict):
    said: str


def _old_conversation(path: Path, thread_id: str) -> None:
    """A conversation checkpointed by an older version, in its own conversations.sqlite."""
    graph = StateGraph(_State)
    graph.add_node("echo", lambda state: {"said": state["said"] + "!"})
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    graph.compile(checkpointer=SqliteSaver(conn)).invoke(
        {"said": "hello"}, {"configurable": {"thread_id": thread_id}})
    conn.close()


def test_a_library_of_six_files_opens_with_everything_in_one_database(tmp_path: Path) -> None:
    _old_conversation(tmp_path / "conversations.sqlite", "old-thread")
    with sqlite3.connect(tmp_path / "server.sqlite") as conn:
        conn.execute("CREATE TABLE threads (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
                     "collection TEXT NOT NULL, created_at REAL NOT NULL)")  # before titles
        conn.execute("INSERT INTO threads VALUES ('old-thread', 'key:a', 'default', 1.0)")
    with sqlite3.connect(tmp_path / "contexts.sqlite") as conn:
        conn.execute("CREATE TABLE contexts (key TEXT PRIMARY KEY, context TEXT NOT NULL)")
        conn.execute("INSERT INTO contexts VALUES ('k1', 'From the 2017 report.')")
    with sqlite3.connect(tmp_path / "graph.sqlite") as conn:
        conn.executescript(
            "CREATE TABLE graph_documents (collection TEXT, document_id TEXT, extractor TEXT);"
            "CREATE TABLE graph_phrases (phrase_id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "collection TEXT, key TEXT);"
            "CREATE TABLE graph_links (collection TEXT, document_id TEXT, child_id TEXT, "
            "phrase_id INTEGER);"
            "INSERT INTO graph_documents VALUES ('default', 'd1', 'spacy');"
            "INSERT INTO graph_phrases VALUES (7, 'default', 'moonlit harbor');"
            "INSERT INTO graph_links VALUES ('default', 'd1', 'd1-c0', 7);")

    database = open_database(None, tmp_path)
    try:
        assert ThreadRegistry(database).owned("key:a") == [("old-thread", "default", 1.0, "")]
        assert ContextCache(database).get_many(["k1", "k2"]) == {"k1": "From the 2017 report."}
        graph = EntityGraph(database)
        assert graph.stats("default") == {"documents": 1, "phrases": 1, "links": 1}
        assert graph.seeds("default", "Who made Moonlit Harbor?", []) == {"moonlit harbor": 1.0}
        saver = database.checkpointer()
        state = saver.get_tuple({"configurable": {"thread_id": "old-thread"}})
        assert state is not None and state.checkpoint["channel_values"]["said"] == "hello!"
        assert database.thread_ids() == ["old-thread"]
    finally:
        database.close()
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.split(".")[0] in
                  {name.split(".")[0] for name in LEGACY_FILES})
    assert left == ["contexts.sqlite.imported", "conversations.sqlite.imported",
                    "graph.sqlite.imported", "server.sqlite.imported"]


def test_a_bad_url_or_an_unreachable_server_is_one_line_without_the_password() -> None:
    with pytest.raises(DatabaseError, match="not supported"):
        Database("mysql://u:p@localhost/db")
    with pytest.raises(DatabaseError) as caught:
        Database("postgresql://archivist:s3cret@127.0.0.1:9/library")
    message = str(caught.value)
    assert "cannot open the database" in message and "s3cret" not in message
    assert "\n" not in message



def test_workers_opening_a_fresh_postgresql_together_create_the_checkpoints_once(
    postgres_url: str,
) -> None:
    """Processes that start at once race to create the checkpointer's tables: one does."""
    barrier = threading.Barrier(6)

    def open_conversations() -> int:
        database = Database(postgres_url)
        try:
            barrier.wait()
            saver = database.checkpointer()
            return len(list(saver.list(None)))
        finally:
            database.close()

    with ThreadPoolExecutor(max_workers=6) as pool:
        found = [f.result() for f in [pool.submit(open_conversations) for _ in range(6)]]
    assert found == [0] * 6
