"""Section summaries, built once per section by the model for whole-document questions.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``section_summaries``."""
    op.create_table(
        "section_summaries",
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("parent_id", sa.Text, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("text_hash", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("collection", "parent_id"),
    )
    op.create_index("section_summaries_document", "section_summaries",
                    ["collection", "document_id"])


def downgrade() -> None:
    """Drop ``section_summaries``."""
    op.drop_index("section_summaries_document", "section_summaries")
    op.drop_table("section_summaries")
