"""i18n locales: Strapi's ``i18n_locale`` table, where ``GET /api/i18n/locales`` reads them.

Created only when absent: a database Strapi made already has it, with its rows, and they are
the locales served. An empty table is filled from ``CONTENTAPI_LOCALES`` at start-up
(``i18n.store.seed_locales``). Strapi's foreign keys to ``admin_users`` are not made (the admin
panel's tables are not contentapi's); the columns are Strapi's, so Strapi adopts the table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("i18n_locale"):
        return
    timestamp = sa.DateTime().with_variant(postgresql.TIMESTAMP(precision=6), "postgresql")
    op.create_table(
        "i18n_locale",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(255)),
        sa.Column("code", sa.String(255)),
        sa.Column("created_at", timestamp),
        sa.Column("updated_at", timestamp),
        sa.Column("created_by_id", sa.Integer),
        sa.Column("updated_by_id", sa.Integer),
    )
    op.create_index("i18n_locale_created_by_id_fk", "i18n_locale", ["created_by_id"])
    op.create_index("i18n_locale_updated_by_id_fk", "i18n_locale", ["updated_by_id"])


def downgrade() -> None:
    op.drop_table("i18n_locale")
