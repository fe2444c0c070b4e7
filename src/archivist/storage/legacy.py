"""Libraries made before the one database: their SQLite files are imported once.

Older versions kept six files in the data folder. Opening such a library copies each
file's rows into the database (``INSERT OR IGNORE``: a copy interrupted half-way is
simply done again), then renames the file to ``<name>.imported``, kept as a backup. Columns
an older file lacks get their defaults, as the old in-place migrations gave them.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)

LEGACY_FILES: dict[str, tuple[str, ...]] = {
    "catalog.sqlite": ("collections", "documents", "parents", "children"),
    "contexts.sqlite": ("contexts",),
    "turns.sqlite": ("turns", "feedback"),
    "server.sqlite": ("threads", "chat_prefixes"),
    "graph.sqlite": ("graph_documents", "graph_phrases", "graph_links"),
    "conversations.sqlite": ("checkpoints", "writes"),  # LangGraph's SqliteSaver tables
}
IMPORTED_SUFFIX = ".imported"


def legacy_files(data_dir: Path) -> list[Path]:
    """The old per-concern files still waiting in ``data_dir``."""
    return [data_dir / name for name in LEGACY_FILES if (data_dir / name).is_file()]


def import_legacy_files(database: Path, data_dir: Path) -> list[str]:
    """Copy every old file's rows into the SQLite file ``database``; one line per file."""
    found = legacy_files(data_dir)
    if not found:
        return []
    notes = []
    conn = sqlite3.connect(str(database), isolation_level=None, timeout=30)
    try:
        if (data_dir / "conversations.sqlite").is_file():
            from langgraph.checkpoint.sqlite import SqliteSaver

            SqliteSaver(conn).setup()  # the checkpointer's tables, to copy into
        for path in found:
            _settle_wal(path)
            copied = _copy(conn, path, LEGACY_FILES[path.name])
            path.rename(path.with_name(path.name + IMPORTED_SUFFIX))
            for leftover in (path.with_name(path.name + "-wal"),
                             path.with_name(path.name + "-shm")):
                leftover.unlink(missing_ok=True)
            notes.append(f"imported {path.name} ({copied} rows) into {database.name}")
    finally:
        conn.close()
    for note in notes:
        log.warning("library upgrade: %s", note)
    return notes


def _settle_wal(path: Path) -> None:
    """Fold a file's write-ahead log into it, so the renamed backup is whole."""
    old = sqlite3.connect(str(path), timeout=30)
    try:
        old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        old.close()


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def _copy(conn: sqlite3.Connection, path: Path, tables: tuple[str, ...]) -> int:
    copied = 0
    conn.execute("ATTACH DATABASE ? AS legacy", (str(path),))
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table in tables:
                old = _columns(conn, "legacy", table)
                new = set(_columns(conn, "main", table))
                shared = ", ".join(f'"{c}"' for c in old if c in new)
                if not shared:
                    continue
                cursor = conn.execute(
                    f'INSERT OR IGNORE INTO main."{table}" ({shared}) '  # noqa: S608
                    f'SELECT {shared} FROM legacy."{table}"'
                )
                copied += max(cursor.rowcount, 0)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute("DETACH DATABASE legacy")
    return copied
