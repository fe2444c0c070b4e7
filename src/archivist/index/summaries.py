"""Section summaries kept in the library's database (``section_summaries``).

A whole-document question reads a document section by section (its parents, in order);
the model's summary of each section is written here the first time and reused by every
later question about the document. Each row keeps the digest of the text it summarises:
a summary whose parent's text has changed is never returned. Rows are kept per document
id, like the stored tables: removing or replacing a document (its old version is purged)
deletes its summaries. The same code runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable

from sqlalchemy import delete, select

from archivist.storage.database import Database
from archivist.storage.schema import section_summaries
from archivist.types import Parent

__all__ = ["SummaryStore", "text_digest"]


def text_digest(text: str) -> str:
    """The digest a summary is kept under (of the section text it summarises)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class SummaryStore:
    """The section summaries of one library (the database is the caller's and stays open)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def summaries(self, collection: str, document_id: str,
                  parents: Iterable[Parent]) -> dict[str, str]:
        """The stored summaries of these parents whose text is unchanged, by parent id."""
        wanted = {p.parent_id: text_digest(p.text) for p in parents}
        with self.database.reading() as conn:
            rows = conn.execute(
                select(section_summaries.c.parent_id, section_summaries.c.text_hash,
                       section_summaries.c.summary)
                .where(section_summaries.c.collection == collection,
                       section_summaries.c.document_id == document_id))
            return {str(r[0]): str(r[2]) for r in rows if wanted.get(str(r[0])) == r[1]}

    def save(self, collection: str, parent: Parent, summary: str) -> None:
        """Keep ``summary`` of ``parent`` (replacing an older one)."""
        values = {"collection": collection, "parent_id": parent.parent_id,
                  "document_id": parent.document_id, "text_hash": text_digest(parent.text),
                  "summary": summary, "created_at": time.time()}
        statement = self.database.insert(section_summaries).values(**values)
        statement = statement.on_conflict_do_update(
            index_elements=[section_summaries.c.collection, section_summaries.c.parent_id],
            set_={k: values[k] for k in ("document_id", "text_hash", "summary", "created_at")})
        with self.database.transaction() as conn:
            conn.execute(statement)

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete a document's summaries (safe to repeat)."""
        with self.database.transaction() as conn:
            conn.execute(delete(section_summaries).where(
                section_summaries.c.collection == collection,
                section_summaries.c.document_id == document_id))

    def document_ids(self, collection: str) -> set[str]:
        """Documents that have summaries stored."""
        with self.database.reading() as conn:
            rows = conn.execute(select(section_summaries.c.document_id).distinct()
                                .where(section_summaries.c.collection == collection))
            return {str(row[0]) for row in rows}
