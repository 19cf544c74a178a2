"""Rate-limit counters for /api/auth/* (shared by every worker through the database).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("contentapi_rate_limits"):
        return
    op.create_table(
        "contentapi_rate_limits",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column(
            "window_start",
            sa.DateTime().with_variant(postgresql.TIMESTAMP(precision=6), "postgresql"),
            nullable=False,
        ),
        sa.Column("hits", sa.Integer, nullable=False),
    )
    op.create_index(
        "contentapi_rate_limits_window_index", "contentapi_rate_limits", ["window_start"]
    )


def downgrade() -> None:
    op.drop_table("contentapi_rate_limits")
