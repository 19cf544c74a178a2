"""Events: the change feed every committed write records, and webhook deliveries.

``contentapi_events`` is written in each write's own transaction (a rolled-back write leaves
no event; a committed one never loses it) and ``contentapi_webhook_deliveries`` by the
dispatcher after the commit, one row per event and webhook. ``strapi_webhooks`` is Strapi's
own table, created only when absent: a database Strapi made keeps its webhooks.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    timestamp = sa.DateTime().with_variant(postgresql.TIMESTAMP(precision=6), "postgresql")
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    identity = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    existing = sa.inspect(op.get_bind())
    if not existing.has_table("strapi_webhooks"):
        op.create_table(
            "strapi_webhooks",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(255)),
            sa.Column("url", sa.Text),
            sa.Column("headers", json),
            sa.Column("events", json),
            sa.Column("enabled", sa.Boolean),
        )
    if not existing.has_table("contentapi_events"):
        _create_feed(timestamp, identity)


def _create_feed(timestamp: sa.types.TypeEngine, identity: sa.types.TypeEngine) -> None:
    """The change feed and the delivery log (contentapi's own: made together)."""
    op.create_table(
        "contentapi_events",
        sa.Column("id", identity, primary_key=True, autoincrement=True),
        sa.Column("event", sa.String(64), nullable=False),
        sa.Column("uid", sa.String(255)),
        sa.Column("entry_id", sa.Integer),
        sa.Column("locale", sa.String(255)),
        # JSON text, not jsonb: jsonb would reorder the entry's keys, which Strapi sends in order
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", timestamp, nullable=False),
        sa.Column("dispatched", sa.Boolean, nullable=False, server_default=sa.false()),
        # ids never reused (SQLite would reuse the last ones once deleted): receivers drop
        # duplicates by them
        sqlite_autoincrement=True,
    )
    op.create_index(
        "contentapi_events_undispatched_index", "contentapi_events", ["dispatched", "id"]
    )
    op.create_table(
        "contentapi_webhook_deliveries",
        sa.Column("id", identity, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.BigInteger, nullable=False),
        sa.Column("webhook_id", sa.Integer, nullable=False),
        sa.Column("webhook_name", sa.String(255)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", timestamp, nullable=False),
        sa.Column("last_status", sa.Integer),
        sa.Column("last_error", sa.Text),
        sa.Column("duration_ms", sa.Integer),
        sa.Column("created_at", timestamp, nullable=False),
        sa.Column("finished_at", timestamp),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "contentapi_webhook_deliveries_due_index",
        "contentapi_webhook_deliveries",
        ["status", "next_attempt_at"],
    )


def downgrade() -> None:
    op.drop_table("contentapi_webhook_deliveries")
    op.drop_table("contentapi_events")
