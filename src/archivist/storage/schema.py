"""The tables of a library's database, one schema for SQLite and PostgreSQL.

These definitions are what the code queries; the Alembic revisions in ``migrations/``
create and change them (a test checks that a freshly migrated database matches them).
The LangGraph checkpointer's own tables (``checkpoints``, ``writes`` ...) are created and
migrated by its saver, not here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# --- catalog: collections, documents, parents, children ---------------------------------
collections = Table(
    "collections", metadata,
    Column("name", Text, primary_key=True),
    Column("embedding_model", Text, nullable=False),
    Column("dimension", Integer, nullable=False),
    Column("created_at", Text, nullable=False),
)

documents = Table(
    "documents", metadata,
    Column("collection", Text, nullable=False),
    Column("document_id", Text, nullable=False),
    Column("path", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("content_hash", Text, nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("page_count", Integer, nullable=False),
    Column("parent_count", Integer, nullable=False),
    Column("child_count", Integer, nullable=False),
    Column("added_at", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("owner", Text, nullable=False, server_default="admin"),
    Column("title", Text, nullable=False, server_default=""),
    # filing metadata read from the document's own text (NULL: no filing, or unknown)
    Column("company", Text),
    Column("ticker", Text),
    Column("form", Text),
    Column("fiscal_year", Integer),
    Column("fiscal_quarter", Integer),
    Column("fiscal_year_end", Text),
    Column("period", Text),
    PrimaryKeyConstraint("collection", "document_id"),
    Index("documents_path", "collection", "path"),
)


def _chunk_table(name: str, id_column: str, *extra: Column[Any]) -> Table:
    return Table(
        name, metadata,
        Column("collection", Text, nullable=False),
        Column(id_column, Text, nullable=False),
        *extra,
        Column("document_id", Text, nullable=False),
        Column("position", Integer, nullable=False),
        Column("text", Text, nullable=False),
        Column("heading_path", Text, nullable=False),
        Column("page_start", Integer),
        Column("page_end", Integer),
        Column("kind", Text, nullable=False, server_default="body"),
        # JSON: the heading path of each section the chunk's text holds; NULL when it was
        # ingested before chunks carried them (citations then use heading_path)
        Column("sections", Text),
        PrimaryKeyConstraint("collection", id_column),
        Index(f"{name}_document", "collection", "document_id"),
    )


parents = _chunk_table("parents", "parent_id")
children = _chunk_table("children", "child_id", Column("parent_id", Text, nullable=False))

# a counter per kind of state ("catalog"): bumped by every write, so a reader in any
# process knows when its cached view is stale
counters = Table(
    "counters", metadata,
    Column("name", Text, primary_key=True),
    Column("value", BigInteger, nullable=False),
)

# --- the contextual-chunk cache -----------------------------------------------------------
contexts = Table(
    "contexts", metadata,
    Column("key", Text, primary_key=True),
    Column("context", Text, nullable=False),
)

# --- conversations: turns, feedback, ownership, OpenAI-style continuity -----------------
turns = Table(
    "turns", metadata,
    Column("thread_id", Text, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("question", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("confidence", Text),
    Column("sources", Text, nullable=False),
    Column("settings", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("steps", Text, nullable=False, server_default="[]"),
    Column("stats", Text, nullable=False, server_default="{}"),
    # JSON: each sentence of the answer, checked against what it cites
    Column("claims", Text, nullable=False, server_default="[]"),
    PrimaryKeyConstraint("thread_id", "turn"),
)

feedback = Table(
    "feedback", metadata,
    Column("thread_id", Text, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("rating", Text, nullable=False),
    Column("comment", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    PrimaryKeyConstraint("thread_id", "turn"),
)

threads = Table(
    "threads", metadata,
    Column("thread_id", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("collection", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("title", Text, nullable=False, server_default=""),
)

chat_prefixes = Table(
    "chat_prefixes", metadata,
    Column("owner", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Column("thread_id", Text, nullable=False),
    PrimaryKeyConstraint("owner", "digest"),
)

# --- the entity graph --------------------------------------------------------------------
graph_documents = Table(
    "graph_documents", metadata,
    Column("collection", Text, nullable=False),
    Column("document_id", Text, nullable=False),
    Column("extractor", Text, nullable=False),
    PrimaryKeyConstraint("collection", "document_id"),
)

graph_phrases = Table(
    "graph_phrases", metadata,
    Column("phrase_id", Integer, primary_key=True, autoincrement=True),
    Column("collection", Text, nullable=False),
    Column("key", Text, nullable=False),
    UniqueConstraint("collection", "key", name="graph_phrases_key"),
    sqlite_autoincrement=True,
)

graph_links = Table(
    "graph_links", metadata,
    Column("collection", Text, nullable=False),
    Column("document_id", Text, nullable=False),
    Column("child_id", Text, nullable=False),
    Column("phrase_id", Integer, nullable=False),
    Index("graph_links_doc", "collection", "document_id"),
)

# --- the tables found in documents, as data -----------------------------------------------
data_tables = Table(
    "data_tables", metadata,
    Column("collection", Text, nullable=False),
    Column("table_id", Text, nullable=False),
    Column("document_id", Text, nullable=False),
    Column("position", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("caption", Text, nullable=False),
    Column("heading_path", Text, nullable=False),  # JSON list
    Column("page_start", Integer),
    Column("page_end", Integer),
    Column("unit", Text, nullable=False),
    Column("columns", Text, nullable=False),  # JSON: [{name, label, kind}]
    Column("row_count", Integer, nullable=False),
    Column("row_labels", Text, nullable=False),  # JSON: each row's first cell
    Column("rows", Text, nullable=False),  # JSON: the typed values, row by row
    PrimaryKeyConstraint("collection", "table_id"),
    Index("data_tables_document", "collection", "document_id"),
)

# --- section summaries for whole-document questions ----------------------------------------
# one per parent, written by the model the first time a question reads the whole document;
# ``text_hash`` is the parent text's digest (a summary of other text is never used)
section_summaries = Table(
    "section_summaries", metadata,
    Column("collection", Text, nullable=False),
    Column("parent_id", Text, nullable=False),
    Column("document_id", Text, nullable=False),
    Column("text_hash", Text, nullable=False),
    Column("summary", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    PrimaryKeyConstraint("collection", "parent_id"),
    Index("section_summaries_document", "collection", "document_id"),
)

# --- ingest jobs: a queue any worker claims from ----------------------------------------
jobs = Table(
    "jobs", metadata,
    Column("job_id", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("collection", Text, nullable=False),
    Column("document_owner", Text, nullable=False),
    Column("status", Text, nullable=False),  # queued, running, done, failed
    Column("files", Text, nullable=False),  # JSON: the staged files, in order
    Column("progress", Text, nullable=False, server_default="{}"),  # JSON: what the API shows
    Column("error", Text),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("worker", Text),
    Column("lease_until", Float),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Index("jobs_status", "status", "created_at"),
)
