"""Filing metadata on documents: company, ticker, form, fiscal year and quarter, period.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_COLUMNS = (("company", sa.Text), ("ticker", sa.Text), ("form", sa.Text),
            ("fiscal_year", sa.Integer), ("fiscal_quarter", sa.Integer),
            ("fiscal_year_end", sa.Text), ("period", sa.Text))


def upgrade() -> None:
    """Add the filing columns to ``documents`` (NULL for documents ingested before)."""
    with op.batch_alter_table("documents") as batch:
        for name, kind in _COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    """Drop the filing columns."""
    with op.batch_alter_table("documents") as batch:
        for name, _ in reversed(_COLUMNS):
            batch.drop_column(name)
