"""The change feed's queues indexed by what waits in them, not by a flag over every row.

``contentapi_events`` keeps a day of events, nearly all dispatched; the dispatcher looks for
the few that are not several times a second. An index on ``(dispatched, id)`` left PostgreSQL's
planner scanning the whole table (13 ms at 60,000 events, growing with it) whenever its
statistics were stale. Partial indexes hold only the waiting rows: the undispatched events by
id, the pending deliveries by when they are due.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("contentapi_events_undispatched_index", table_name="contentapi_events")
    op.create_index(
        "contentapi_events_undispatched_index",
        "contentapi_events",
        ["id"],
        postgresql_where=sa.text("dispatched = false"),
        sqlite_where=sa.text("dispatched = 0"),
    )
    op.drop_index(
        "contentapi_webhook_deliveries_due_index", table_name="contentapi_webhook_deliveries"
    )
    op.create_index(
        "contentapi_webhook_deliveries_due_index",
        "contentapi_webhook_deliveries",
        ["next_attempt_at", "id"],
        postgresql_where=sa.text("status = 'pending'"),
        sqlite_where=sa.text("status = 'pending'"),
    )


def downgrade() -> None:
    op.drop_index(
        "contentapi_webhook_deliveries_due_index", table_name="contentapi_webhook_deliveries"
    )
    op.create_index(
        "contentapi_webhook_deliveries_due_index",
        "contentapi_webhook_deliveries",
        ["status", "next_attempt_at"],
    )
    op.drop_index("contentapi_events_undispatched_index", table_name="contentapi_events")
    op.create_index(
        "contentapi_events_undispatched_index", "contentapi_events", ["dispatched", "id"]
    )
