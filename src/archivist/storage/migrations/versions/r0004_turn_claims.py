"""Turns keep their checked sentences (claims), so a conversation read back marks them.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``claims`` (JSON, ``[]`` for turns recorded before) to turns."""
    op.add_column("turns", sa.Column("claims", sa.Text, nullable=False, server_default="[]"))


def downgrade() -> None:
    """Drop ``claims``."""
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("claims")
