"""SQLite catalog and parent store: documents, their parents and children, per collection.

A document row has a status: ``pending`` while its vectors are being written, ``ready``
once it is fully searchable, ``removing`` while its vectors are being deleted. Only
``ready`` documents are visible; anything else left behind by a crash is purged when a
store is opened (see ``DocumentStore._repair``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from archivist.types import Child, DocumentRecord, Parent

_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (
    name TEXT PRIMARY KEY,
    embedding_model TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL,
    document_id TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    page_count INTEGER NOT NULL,
    parent_count INTEGER NOT NULL,
    child_count INTEGER NOT NULL,
    added_at TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT 'admin',
    title TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (collection, document_id)
);
CREATE INDEX IF NOT EXISTS documents_path ON documents (collection, path);
CREATE TABLE IF NOT EXISTS parents (
    collection TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    kind TEXT NOT NULL DEFAULT 'body',
    PRIMARY KEY (collection, parent_id)
);
CREATE INDEX IF NOT EXISTS parents_document ON parents (collection, document_id);
CREATE TABLE IF NOT EXISTS children (
    collection TEXT NOT NULL,
    child_id TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    kind TEXT NOT NULL DEFAULT 'body',
    PRIMARY KEY (collection, child_id)
);
CREATE INDEX IF NOT EXISTS children_document ON children (collection, document_id);
"""

_DOC_COLUMNS = (
    "document_id, collection, path, name, content_hash, size_bytes, page_count, "
    "parent_count, child_count, added_at, status, owner, title"
)

# parents and children share these (``%`` names the id column); kind is "body",
# "contents" or "index" (stored, never searched)
_CHUNK_COLUMNS = (
    "collection, %s, document_id, position, text, heading_path, page_start, page_end, kind"
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Catalog:
    """The catalog of one data directory. Thread-safe; one connection guarded by a lock."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(documents)")}
        if "owner" not in columns:  # a catalog from before owners: its documents are the admin's
            self._conn.execute(
                "ALTER TABLE documents ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin'"
            )
        for table in ("parents", "children"):  # a catalog from before contents/index flags
            if "kind" not in {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}:
                self._conn.execute(
                    f"ALTER TABLE {table} ADD COLUMN kind TEXT NOT NULL DEFAULT 'body'"
                )
        if "title" not in columns:  # a catalog from before titles: reindex uses the file name
            self._conn.execute("ALTER TABLE documents ADD COLUMN title TEXT NOT NULL DEFAULT ''")
        self._lock = threading.RLock()
        # ready ids per collection, with the catalog's version when they were read
        self._writes = 0
        self._ready: dict[str, tuple[tuple[int, int], frozenset[str]]] = {}

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            finally:
                self._writes += 1
            self._conn.execute("COMMIT")

    def _query(self, sql: str, args: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cursor = self._conn.execute(sql, args)
            cursor.row_factory = sqlite3.Row
            return list(cursor.fetchall())

    # --- collections -----------------------------------------------------------------
    def collection_model(self, collection: str) -> tuple[str, int] | None:
        """The embedding model and dimension a collection was built with."""
        rows = self._query(
            "SELECT embedding_model, dimension FROM collections WHERE name = ?", (collection,)
        )
        return (rows[0]["embedding_model"], rows[0]["dimension"]) if rows else None

    def register_collection(self, collection: str, model: str, dimension: int) -> None:
        """Remember which model built a collection (first ingest only)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collections VALUES (?, ?, ?, ?)",
                (collection, model, dimension, _now()),
            )

    def collections(self) -> list[str]:
        """Every collection name."""
        return [r["name"] for r in self._query("SELECT name FROM collections ORDER BY name")]

    # --- documents -------------------------------------------------------------------
    def documents(self, collection: str, status: str | None = "ready") -> list[DocumentRecord]:
        """Documents of a collection, oldest first (all statuses when ``status`` is None)."""
        sql = f"SELECT {_DOC_COLUMNS} FROM documents WHERE collection = ?"
        args: tuple[object, ...] = (collection,)
        if status is not None:
            sql += " AND status = ?"
            args += (status,)
        return [DocumentRecord(**dict(r)) for r in self._query(sql + " ORDER BY added_at", args)]

    def unfinished(self) -> list[DocumentRecord]:
        """Documents left ``pending`` or ``removing`` by an interrupted operation."""
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE status != 'ready'")
        return [DocumentRecord(**dict(r)) for r in rows]

    def document(self, collection: str, document_id: str) -> DocumentRecord | None:
        """One ready document by exact id."""
        rows = self._query(
            f"SELECT {_DOC_COLUMNS} FROM documents "
            "WHERE collection = ? AND document_id = ? AND status = 'ready'",
            (collection, document_id),
        )
        return DocumentRecord(**dict(rows[0])) if rows else None

    def _version(self) -> tuple[int, int]:
        """Changes when anything is committed: by this object, or by another connection."""
        with self._lock:
            return self._writes, int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def ready_ids(self, collection: str) -> set[str]:
        """Ids of every searchable document (read again only after a change: every search asks)."""
        version = self._version()
        cached = self._ready.get(collection)
        if cached is None or cached[0] != version:
            rows = self._query(
                "SELECT document_id FROM documents WHERE collection = ? AND status = 'ready'",
                (collection,),
            )
            cached = (version, frozenset(r["document_id"] for r in rows))
            self._ready[collection] = cached
        return set(cached[1])

    def add_pending(
        self, record: DocumentRecord, parents: list[Parent], children: list[Child]
    ) -> None:
        """Write a document as ``pending`` with its parents and children, atomically."""
        with self.transaction() as conn:
            conn.execute(
                f"INSERT OR REPLACE INTO documents ({_DOC_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
                (
                    record.document_id,
                    record.collection,
                    record.path,
                    record.name,
                    record.content_hash,
                    record.size_bytes,
                    record.page_count,
                    record.parent_count,
                    record.child_count,
                    record.added_at or _now(),
                    record.owner,
                    record.title,
                ),
            )
            conn.executemany(
                f"INSERT OR REPLACE INTO parents ({_CHUNK_COLUMNS % 'parent_id'}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        record.collection,
                        p.parent_id,
                        p.document_id,
                        p.position,
                        p.text,
                        json.dumps(p.heading_path),
                        p.page_start,
                        p.page_end,
                        p.kind,
                    )
                    for p in parents
                ],
            )
            conn.executemany(
                f"INSERT OR REPLACE INTO children ({_CHUNK_COLUMNS % 'child_id, parent_id'}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        record.collection,
                        c.child_id,
                        c.parent_id,
                        c.document_id,
                        c.position,
                        c.text,
                        json.dumps(c.heading_path),
                        c.page_start,
                        c.page_end,
                        c.kind,
                    )
                    for c in children
                ],
            )

    def set_status(self, collection: str, changes: dict[str, str]) -> None:
        """Change several documents' status in one transaction."""
        with self.transaction() as conn:
            for document_id, status in changes.items():
                conn.execute(
                    "UPDATE documents SET status = ? WHERE collection = ? AND document_id = ?",
                    (status, collection, document_id),
                )

    def set_owner(self, collection: str, document_ids: list[str], owner: str) -> None:
        """Give documents to ``owner`` (an upload's key; ingest writes them as the admin's)."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE documents SET owner = ? WHERE collection = ? AND document_id = ?",
                [(owner, collection, document_id) for document_id in document_ids],
            )

    def move_document(self, collection: str, document_id: str, path: str, name: str) -> None:
        """Change where a document's file is (a rename or move of the same content)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE documents SET path = ?, name = ? WHERE collection = ? AND document_id = ?",
                (path, name, collection, document_id),
            )

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete a document's row, parents and children, atomically."""
        with self.transaction() as conn:
            for table in ("children", "parents", "documents"):
                conn.execute(
                    f"DELETE FROM {table} WHERE collection = ? AND document_id = ?",
                    (collection, document_id),
                )

    # --- parents and children ----------------------------------------------------------
    @staticmethod
    def _parent(row: sqlite3.Row, collection: str) -> Parent:
        return Parent(
            parent_id=row["parent_id"],
            document_id=row["document_id"],
            position=row["position"],
            text=row["text"],
            heading_path=json.loads(row["heading_path"]),
            page_start=row["page_start"],
            page_end=row["page_end"],
            collection=collection,
            kind=row["kind"],
        )

    def parent(self, collection: str, parent_id: str) -> Parent | None:
        """A parent of a ready document, or ``None``."""
        rows = self._query(
            "SELECT p.* FROM parents p JOIN documents d "
            "ON d.collection = p.collection AND d.document_id = p.document_id "
            "WHERE p.collection = ? AND p.parent_id = ? AND d.status = 'ready'",
            (collection, parent_id),
        )
        return self._parent(rows[0], collection) if rows else None

    def parents_of(self, collection: str, document_id: str) -> list[Parent]:
        """A document's parents in reading order."""
        rows = self._query(
            "SELECT * FROM parents WHERE collection = ? AND document_id = ? ORDER BY position",
            (collection, document_id),
        )
        return [self._parent(r, collection) for r in rows]

    def children_of(self, collection: str, document_id: str) -> list[Child]:
        """A document's children in reading order."""
        rows = self._query(
            "SELECT * FROM children WHERE collection = ? AND document_id = ? ORDER BY position",
            (collection, document_id),
        )
        return [
            Child(
                child_id=r["child_id"],
                parent_id=r["parent_id"],
                document_id=r["document_id"],
                position=r["position"],
                text=r["text"],
                heading_path=json.loads(r["heading_path"]),
                page_start=r["page_start"],
                page_end=r["page_end"],
                kind=r["kind"],
            )
            for r in rows
        ]
