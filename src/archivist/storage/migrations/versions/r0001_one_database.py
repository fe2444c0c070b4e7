"""One database for a library: catalog, contexts, conversations, entity graph, jobs.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _chunk_columns(id_column: str, *extra: sa.Column[Any]) -> list[sa.Column[Any]]:
    return [
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column(id_column, sa.Text, nullable=False),
        *extra,
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("heading_path", sa.Text, nullable=False),
        sa.Column("page_start", sa.Integer),
        sa.Column("page_end", sa.Integer),
        sa.Column("kind", sa.Text, nullable=False, server_default="body"),
    ]


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "collections",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("embedding_model", sa.Text, nullable=False),
        sa.Column("dimension", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
    )
    op.create_table(
        "documents",
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("content_hash", sa.Text, nullable=False),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("page_count", sa.Integer, nullable=False),
        sa.Column("parent_count", sa.Integer, nullable=False),
        sa.Column("child_count", sa.Integer, nullable=False),
        sa.Column("added_at", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("owner", sa.Text, nullable=False, server_default="admin"),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("collection", "document_id"),
    )
    op.create_index("documents_path", "documents", ["collection", "path"])
    op.create_table("parents", *_chunk_columns("parent_id"),
                    sa.PrimaryKeyConstraint("collection", "parent_id"))
    op.create_index("parents_document", "parents", ["collection", "document_id"])
    op.create_table("children",
                    *_chunk_columns("child_id", sa.Column("parent_id", sa.Text, nullable=False)),
                    sa.PrimaryKeyConstraint("collection", "child_id"))
    op.create_index("children_document", "children", ["collection", "document_id"])
    op.create_table(
        "counters",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "contexts",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("context", sa.Text, nullable=False),
    )
    op.create_table(
        "turns",
        sa.Column("thread_id", sa.Text, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("confidence", sa.Text),
        sa.Column("sources", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("steps", sa.Text, nullable=False, server_default="[]"),
        sa.Column("stats", sa.Text, nullable=False, server_default="{}"),
        sa.PrimaryKeyConstraint("thread_id", "turn"),
    )
    op.create_table(
        "feedback",
        sa.Column("thread_id", sa.Text, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("rating", sa.Text, nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("thread_id", "turn"),
    )
    op.create_table(
        "threads",
        sa.Column("thread_id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
    )
    op.create_table(
        "chat_prefixes",
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("digest", sa.Text, nullable=False),
        sa.Column("thread_id", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("owner", "digest"),
    )
    op.create_table(
        "graph_documents",
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("extractor", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("collection", "document_id"),
    )
    op.create_table(
        "graph_phrases",
        sa.Column("phrase_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.UniqueConstraint("collection", "key", name="graph_phrases_key"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "graph_links",
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("child_id", sa.Text, nullable=False),
        sa.Column("phrase_id", sa.Integer, nullable=False),
    )
    op.create_index("graph_links_doc", "graph_links", ["collection", "document_id"])
    op.create_table(
        "jobs",
        sa.Column("job_id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("document_owner", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("files", sa.Text, nullable=False),
        sa.Column("progress", sa.Text, nullable=False, server_default="{}"),
        sa.Column("error", sa.Text),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", sa.Float),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("jobs_status", "jobs", ["status", "created_at"])


def downgrade() -> None:
    """Drop every table."""
    for table in ("jobs", "graph_links", "graph_phrases", "graph_documents", "chat_prefixes",
                  "threads", "feedback", "turns", "contexts", "counters", "children",
                  "parents", "documents", "collections"):
        op.drop_table(table)
