"""The catalog and parent store: documents, their parents and children, per collection.

Its tables live in the library's database (:mod:`archivist.storage`). A document row has a
status: ``pending`` while its vectors are being written, ``ready`` once it is fully
searchable, ``removing`` while its vectors are being deleted. Only ``ready`` documents are
visible; anything else left behind by a crash is purged when a store is opened (see
``DocumentStore._repair``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, delete, func, select, update

from archivist.storage import Database
from archivist.storage.schema import children, collections, documents, parents
from archivist.types import FILING_FIELDS, Child, DocumentRecord, Parent

_DOC_COLUMNS = (
    "document_id", "collection", "path", "name", "content_hash", "size_bytes", "page_count",
    "parent_count", "child_count", "added_at", "status", "owner", "title", *FILING_FIELDS,
)
_COUNTER = "catalog"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _record(row: Mapping[str, Any]) -> DocumentRecord:
    return DocumentRecord(**{name: row[name] for name in _DOC_COLUMNS})


def _chunk_row(collection: str, chunk: Parent | Child) -> dict[str, Any]:
    ids = ({"child_id": chunk.child_id, "parent_id": chunk.parent_id}
           if isinstance(chunk, Child) else {"parent_id": chunk.parent_id})
    return {
        **ids,
        "collection": collection, "document_id": chunk.document_id, "position": chunk.position,
        "text": chunk.text, "heading_path": json.dumps(chunk.heading_path),
        "page_start": chunk.page_start, "page_end": chunk.page_end, "kind": chunk.kind,
        "sections": None if chunk.sections is None else json.dumps(chunk.sections),
    }


def _sections(value: str | None) -> list[list[str]] | None:
    """A chunk's stored sections; ``None`` when it was ingested before they were kept."""
    return None if value is None else json.loads(value)


class Catalog:
    """The catalog of one library, in its database. Thread-safe."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._lock = threading.Lock()
        # ready ids per collection, with the catalog's version when they were read
        self._ready: dict[str, tuple[int, frozenset[str]]] = {}

    def close(self) -> None:
        """Nothing to release: the database is the application's."""

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One atomic write; readers in every process see the catalog's version move."""
        with self.database.transaction() as conn:
            yield conn
            self.database.bump(conn, _COUNTER)

    def _rows(self, statement: Any) -> list[Mapping[str, Any]]:
        with self.database.reading() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    # --- collections -----------------------------------------------------------------
    def collection_model(self, collection: str) -> tuple[str, int] | None:
        """The embedding model and dimension a collection was built with."""
        rows = self._rows(select(collections.c.embedding_model, collections.c.dimension)
                          .where(collections.c.name == collection))
        return (rows[0]["embedding_model"], rows[0]["dimension"]) if rows else None

    def register_collection(self, collection: str, model: str, dimension: int) -> None:
        """Remember which model built a collection (first ingest only)."""
        with self.transaction() as conn:
            conn.execute(self.database.insert_ignore(collections).values(
                name=collection, embedding_model=model, dimension=dimension, created_at=_now()))

    def collections(self) -> list[str]:
        """Every collection name."""
        return [r["name"] for r in self._rows(select(collections.c.name)
                                              .order_by(collections.c.name))]

    # --- documents -------------------------------------------------------------------
    def documents(self, collection: str, status: str | None = "ready") -> list[DocumentRecord]:
        """Documents of a collection, oldest first (all statuses when ``status`` is None)."""
        query = select(documents).where(documents.c.collection == collection)
        if status is not None:
            query = query.where(documents.c.status == status)
        return [_record(r) for r in self._rows(query.order_by(documents.c.added_at))]

    def unfinished(self) -> list[DocumentRecord]:
        """Documents left ``pending`` or ``removing`` by an interrupted operation."""
        return [_record(r) for r in self._rows(
            select(documents).where(documents.c.status != "ready"))]

    def document(self, collection: str, document_id: str) -> DocumentRecord | None:
        """One ready document by exact id."""
        rows = self._rows(select(documents).where(
            documents.c.collection == collection, documents.c.document_id == document_id,
            documents.c.status == "ready"))
        return _record(rows[0]) if rows else None

    def documents_by_id(self, collection: str, ids: set[str]) -> dict[str, DocumentRecord]:
        """The ready documents among ``ids``, by id, in one query."""
        if not ids:
            return {}
        rows = self._rows(select(documents).where(
            documents.c.collection == collection, documents.c.document_id.in_(sorted(ids)),
            documents.c.status == "ready"))
        return {r["document_id"]: _record(r) for r in rows}

    def ready_ids(self, collection: str) -> set[str]:
        """Ids of every searchable document (read again only after a change: every search asks)."""
        version = self.database.counter(_COUNTER)
        with self._lock:
            cached = self._ready.get(collection)
        if cached is None or cached[0] != version:
            rows = self._rows(select(documents.c.document_id).where(
                documents.c.collection == collection, documents.c.status == "ready"))
            cached = (version, frozenset(r["document_id"] for r in rows))
            with self._lock:
                self._ready[collection] = cached
        return set(cached[1])

    def add_pending(
        self, record: DocumentRecord, parents_: list[Parent], children_: list[Child]
    ) -> None:
        """Write a document as ``pending`` with its parents and children, atomically.

        A row with the same key is replaced, parents and children included.
        """
        collection = record.collection
        row = {name: getattr(record, name) for name in _DOC_COLUMNS}
        row.update(status="pending", added_at=record.added_at or _now())
        with self.transaction() as conn:
            key = and_(documents.c.collection == collection,
                       documents.c.document_id == record.document_id)
            conn.execute(delete(documents).where(key))
            conn.execute(documents.insert().values(row))
            for target, id_column, items in ((parents, "parent_id", parents_),
                                             (children, "child_id", children_)):
                ids = [getattr(item, id_column) for item in items]
                for start in range(0, len(ids), 500):
                    conn.execute(delete(target).where(
                        target.c.collection == collection,
                        target.c[id_column].in_(ids[start:start + 500])))
                if items:
                    conn.execute(target.insert(), [_chunk_row(collection, item) for item in items])

    def set_status(self, collection: str, changes: dict[str, str]) -> None:
        """Change several documents' status in one transaction."""
        with self.transaction() as conn:
            for document_id, status in changes.items():
                conn.execute(update(documents).where(
                    documents.c.collection == collection,
                    documents.c.document_id == document_id).values(status=status))

    def set_owner(self, collection: str, document_ids: list[str], owner: str) -> None:
        """Give documents to ``owner`` (an upload's key; ingest writes them as the admin's)."""
        with self.transaction() as conn:
            conn.execute(update(documents).where(
                documents.c.collection == collection,
                documents.c.document_id.in_(document_ids)).values(owner=owner))

    def move_document(self, collection: str, document_id: str, path: str, name: str) -> None:
        """Change where a document's file is (a rename or move of the same content)."""
        with self.transaction() as conn:
            conn.execute(update(documents).where(
                documents.c.collection == collection,
                documents.c.document_id == document_id).values(path=path, name=name))

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete a document's row, parents and children, atomically."""
        with self.transaction() as conn:
            for table in (children, parents, documents):
                conn.execute(delete(table).where(table.c.collection == collection,
                                                 table.c.document_id == document_id))

    def counts(self) -> dict[str, int]:
        """Rows per table (documents, parents, children), every collection."""
        with self.database.reading() as conn:
            return {table.name: int(conn.execute(select(func.count()).select_from(table))
                                    .scalar() or 0)
                    for table in (documents, parents, children)}

    # --- parents and children ----------------------------------------------------------
    @staticmethod
    def _parent(row: Mapping[str, Any], collection: str) -> Parent:
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
            sections=_sections(row["sections"]),
        )

    def parent(self, collection: str, parent_id: str) -> Parent | None:
        """A parent of a ready document, or ``None``."""
        joined = parents.join(documents, and_(documents.c.collection == parents.c.collection,
                                              documents.c.document_id == parents.c.document_id))
        rows = self._rows(select(parents).select_from(joined).where(
            parents.c.collection == collection, parents.c.parent_id == parent_id,
            documents.c.status == "ready"))
        return self._parent(rows[0], collection) if rows else None

    def parents_of(self, collection: str, document_id: str) -> list[Parent]:
        """A document's parents in reading order."""
        rows = self._rows(select(parents).where(
            parents.c.collection == collection, parents.c.document_id == document_id)
            .order_by(parents.c.position))
        return [self._parent(r, collection) for r in rows]

    def children_of(self, collection: str, document_id: str) -> list[Child]:
        """A document's children in reading order."""
        rows = self._rows(select(children).where(
            children.c.collection == collection, children.c.document_id == document_id)
            .order_by(children.c.position))
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
                sections=_sections(r["sections"]),
            )
            for r in rows
        ]
