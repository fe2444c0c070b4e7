"""The tables found in documents, stored as data in the library's database (``data_tables``).

One row per table: its document, pages, section (heading path), caption, unit, typed
columns, the text of each row's first cell, and its rows (JSON: numbers as numbers, text
as text, nulls). Rows are kept per document id, like the entity graph's: an ingest adds a
document's tables before it is marked ready, a removal or purge deletes them. Only ready
documents' tables are ever shown (the caller passes the catalog's ready ids).

The same code runs on SQLite and PostgreSQL. Queries never run on this database:
:mod:`archivist.index.table_sql` loads the chosen tables into a private in-memory SQLite
database for each one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select

from archivist.storage.database import Database
from archivist.storage.schema import data_tables
from archivist.types import Cell, DataTable

__all__ = ["LABELS", "StoredTable", "TableStore", "quote"]

LABELS = 60  # row labels kept per table (what the agent matches a question against)


def quote(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier (any text is safe inside it)."""
    return '"' + identifier.replace('"', '""') + '"'


@dataclass
class StoredTable:
    """What is known of one stored table (its rows are read separately: ``rows``)."""

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


_COLUMNS = (data_tables.c.table_id, data_tables.c.document_id, data_tables.c.name,
            data_tables.c.caption, data_tables.c.heading_path, data_tables.c.page_start,
            data_tables.c.page_end, data_tables.c.unit, data_tables.c.columns,
            data_tables.c.row_count, data_tables.c.row_labels)


class TableStore:
    """The stored tables of one library (the database is the caller's and stays open)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def add(self, collection: str, document_id: str, tables: Iterable[DataTable]) -> int:
        """Store a document's tables (replacing any it had), atomically; returns how many."""
        records = []
        for position, table in enumerate(tables):
            described = [{"name": n, "label": label, "kind": k} for n, label, k in
                         zip(table.columns, table.labels, table.kinds, strict=True)]
            labels = [str(r[0]) for r in table.rows if r and r[0] is not None][:LABELS]
            records.append({
                "collection": collection, "table_id": f"{document_id}_{position}",
                "document_id": document_id, "position": position,
                "name": table.name or f"table_{position + 1}", "caption": table.caption,
                "heading_path": json.dumps(table.heading_path), "page_start": table.page_start,
                "page_end": table.page_end, "unit": table.unit, "columns": json.dumps(described),
                "row_count": len(table.rows), "row_labels": json.dumps(labels),
                "rows": json.dumps(table.rows),
            })
        with self.database.transaction() as conn:
            conn.execute(delete(data_tables).where(data_tables.c.collection == collection,
                                                   data_tables.c.document_id == document_id))
            if records:
                conn.execute(data_tables.insert(), records)
        return len(records)

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete a document's tables (safe to repeat)."""
        with self.database.transaction() as conn:
            conn.execute(delete(data_tables).where(data_tables.c.collection == collection,
                                                   data_tables.c.document_id == document_id))

    def document_ids(self, collection: str) -> set[str]:
        """Documents that have tables stored."""
        with self.database.reading() as conn:
            rows = conn.execute(select(data_tables.c.document_id).distinct()
                                .where(data_tables.c.collection == collection))
            return {str(row[0]) for row in rows}

    def tables(self, collection: str, document_ids: set[str]) -> list[StoredTable]:
        """The tables of these documents (pass the catalog's ready ids), in document order."""
        if not document_ids:
            return []
        with self.database.reading() as conn:
            rows = conn.execute(
                select(*_COLUMNS).where(data_tables.c.collection == collection)
                .order_by(data_tables.c.document_id, data_tables.c.position))
            return [_stored(tuple(row), collection) for row in rows if row[1] in document_ids]

    def rows(self, collection: str, table_ids: list[str]) -> dict[str, list[list[Cell]]]:
        """The rows of these tables, by table id."""
        with self.database.reading() as conn:
            found = conn.execute(
                select(data_tables.c.table_id, data_tables.c.rows)
                .where(data_tables.c.collection == collection,
                       data_tables.c.table_id.in_(table_ids)))
            return {str(r[0]): json.loads(r[1]) for r in found}


def _stored(row: Sequence[Any], collection: str) -> StoredTable:
    described = json.loads(str(row[8]))
    return StoredTable(
        str(row[0]), collection, str(row[1]), str(row[2]), str(row[3]),
        json.loads(str(row[4])), row[5] if isinstance(row[5], int) else None,
        row[6] if isinstance(row[6], int) else None, str(row[7]),
        [c["name"] for c in described], [c["label"] for c in described],
        [c["kind"] for c in described], int(str(row[9])), json.loads(str(row[10])))
