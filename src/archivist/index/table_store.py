"""The tables found in documents, stored as typed SQL tables (``tables.sqlite``).

Each table a document holds becomes one SQLite table, ``t_<document id>_<position>``,
with its own typed columns (``NUMERIC`` for figures, ``TEXT`` for labels), and one row
in ``data_tables`` describing it: document, pages, section (heading path), caption,
unit and columns. Rows are kept per document id, like the entity graph's: an ingest
adds a document's tables before it is marked ready, a removal or purge drops them. Only
ready documents' tables are ever shown (the caller passes the catalog's ready ids).

Queries never run on this module's connection: :mod:`archivist.index.table_sql` opens
the file read-only for each one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from archivist.types import DataTable

__all__ = ["StoredTable", "TableStore", "quote"]

LABELS = 60  # row labels kept per table (what the agent matches a question against)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS data_tables (
    collection TEXT NOT NULL,
    table_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    caption TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    unit TEXT NOT NULL,
    columns TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    row_labels TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (collection, table_id)
);
CREATE INDEX IF NOT EXISTS data_tables_document ON data_tables (collection, document_id);
"""


def quote(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier (any text is safe inside it)."""
    return '"' + identifier.replace('"', '""') + '"'


@dataclass
class StoredTable:
    """What is known of one stored table; ``sql_table`` is its table in ``tables.sqlite``."""

    table_id: str
    collection: str
    document_id: str
    name: str
    caption: str
    heading_path: list[str]
    page_start: int | None
    page_end: int | None
    unit: str
    columns: list[str]
    labels: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    row_count: int = 0
    row_labels: list[str] = field(default_factory=list)
    """The text of each row's first cell (``Revenues``, ...), at most ``LABELS`` of them."""

    @property
    def sql_table(self) -> str:
        """The physical table's name."""
        return f"t_{self.collection_key}_{self.table_id}"

    @property
    def collection_key(self) -> str:
        """A short hash of the collection (its name may hold any character)."""
        return hashlib.sha1(self.collection.encode("utf-8")).hexdigest()[:8]


class TableStore:
    """``tables.sqlite`` of one data directory. Thread-safe; one connection under a lock."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(data_tables)")}
        if "row_labels" not in columns:  # a file written before row labels were kept
            self._db.execute("ALTER TABLE data_tables ADD COLUMN row_labels TEXT NOT NULL "
                             "DEFAULT '[]'")
        self._lock = threading.RLock()

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def add(self, collection: str, document_id: str, tables: Iterable[DataTable]) -> int:
        """Store a document's tables (replacing any it had); returns how many."""
        count = 0
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._drop(collection, document_id)
                for position, table in enumerate(tables):
                    self._add_one(collection, document_id, position, table)
                    count += 1
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return count

    def _add_one(self, collection: str, document_id: str, position: int,
                 table: DataTable) -> None:
        stored = StoredTable(f"{document_id}_{position}", collection, document_id,
                             table.name or f"table_{position + 1}", table.caption,
                             table.heading_path, table.page_start, table.page_end, table.unit,
                             table.columns, table.labels, table.kinds, len(table.rows))
        columns = ", ".join(
            f"{quote(name)} {'NUMERIC' if kind == 'number' else 'TEXT'}"
            for name, kind in zip(table.columns, table.kinds, strict=True)
        )
        self._db.execute(f"CREATE TABLE {quote(stored.sql_table)} ({columns})")
        marks = ", ".join("?" * len(table.columns))
        self._db.executemany(f"INSERT INTO {quote(stored.sql_table)} VALUES ({marks})",
                             table.rows)
        described = [{"name": n, "label": label, "kind": k} for n, label, k in
                     zip(table.columns, table.labels, table.kinds, strict=True)]
        labels = [str(row[0]) for row in table.rows if row and row[0] is not None][:LABELS]
        self._db.execute(
            "INSERT INTO data_tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (collection, stored.table_id, document_id, position, stored.name, table.caption,
             json.dumps(table.heading_path), table.page_start, table.page_end, table.unit,
             json.dumps(described), len(table.rows), json.dumps(labels)),
        )

    def delete_document(self, collection: str, document_id: str) -> None:
        """Drop a document's tables (safe to repeat)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._drop(collection, document_id)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _drop(self, collection: str, document_id: str) -> None:
        for table in self._read(collection, {document_id}):
            self._db.execute(f"DROP TABLE IF EXISTS {quote(table.sql_table)}")
        self._db.execute("DELETE FROM data_tables WHERE collection = ? AND document_id = ?",
                         (collection, document_id))

    def document_ids(self, collection: str) -> set[str]:
        """Documents that have tables stored."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT document_id FROM data_tables WHERE collection = ?",
                (collection,)).fetchall()
        return {str(row[0]) for row in rows}

    def tables(self, collection: str, document_ids: set[str]) -> list[StoredTable]:
        """The tables of these documents (pass the catalog's ready ids), in document order."""
        with self._lock:
            return self._read(collection, document_ids)

    def _read(self, collection: str, document_ids: set[str]) -> list[StoredTable]:
        rows = self._db.execute(
            "SELECT table_id, document_id, name, caption, heading_path, page_start, page_end, "
            "unit, columns, row_count, row_labels FROM data_tables WHERE collection = ? "
            "ORDER BY document_id, position", (collection,)).fetchall()
        out = []
        for row in rows:
            if row[1] not in document_ids:
                continue
            described = json.loads(row[8])
            out.append(StoredTable(
                row[0], collection, row[1], row[2], row[3], json.loads(row[4]), row[5], row[6],
                row[7], [c["name"] for c in described], [c["label"] for c in described],
                [c["kind"] for c in described], row[9], json.loads(row[10])))
        return out
