"""Chunks record the heading path of each section their text holds (what citations name).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``sections`` (JSON, NULL for chunks ingested before) to parents and children."""
    for table in ("parents", "children"):
        op.add_column(table, sa.Column("sections", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop ``sections``."""
    for table in ("parents", "children"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("sections")
