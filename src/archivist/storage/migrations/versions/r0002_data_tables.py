"""The tables found in documents, stored as data (``data_tables``).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``data_tables``."""
    op.create_table(
        "data_tables",
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("caption", sa.Text, nullable=False),
        sa.Column("heading_path", sa.Text, nullable=False),
        sa.Column("page_start", sa.Integer),
        sa.Column("page_end", sa.Integer),
        sa.Column("unit", sa.Text, nullable=False),
        sa.Column("columns", sa.Text, nullable=False),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("row_labels", sa.Text, nullable=False),
        sa.Column("rows", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("collection", "table_id"),
    )
    op.create_index("data_tables_document", "data_tables", ["collection", "document_id"])


def downgrade() -> None:
    """Drop ``data_tables``."""
    op.drop_index("data_tables_document", "data_tables")
    op.drop_table("data_tables")
