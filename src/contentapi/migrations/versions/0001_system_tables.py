"""System tables: core store settings and API tokens (Strapi v4 names).

Each table is created only when absent, so a database that a real Strapi v4 created (which
already has them) can be adopted as it is.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _timestamp() -> sa.types.TypeEngine:
    return sa.DateTime().with_variant(postgresql.TIMESTAMP(precision=6), "postgresql")


def _missing(name: str) -> bool:
    return not sa.inspect(op.get_bind()).has_table(name)


def upgrade() -> None:
    if _missing("strapi_core_store_settings"):
        op.create_table(
            "strapi_core_store_settings",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("key", sa.String(255)),
            sa.Column("value", sa.Text),
            sa.Column("type", sa.String(255)),
            sa.Column("environment", sa.String(255)),
            sa.Column("tag", sa.String(255)),
        )
    if _missing("strapi_api_tokens"):
        op.create_table(
            "strapi_api_tokens",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(255)),
            sa.Column("description", sa.String(255)),
            sa.Column("type", sa.String(255)),
            sa.Column("access_key", sa.String(255)),
            sa.Column("last_used_at", _timestamp()),
            sa.Column("expires_at", _timestamp()),
            sa.Column("lifespan", sa.BigInteger),
            sa.Column("created_at", _timestamp()),
            sa.Column("updated_at", _timestamp()),
            sa.Column("created_by_id", sa.Integer),
            sa.Column("updated_by_id", sa.Integer),
        )
        op.create_index("strapi_api_tokens_access_key_index", "strapi_api_tokens", ["access_key"])
    if _missing("strapi_api_token_permissions"):
        op.create_table(
            "strapi_api_token_permissions",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("action", sa.String(255)),
            sa.Column("created_at", _timestamp()),
            sa.Column("updated_at", _timestamp()),
            sa.Column("created_by_id", sa.Integer),
            sa.Column("updated_by_id", sa.Integer),
        )
    if _missing("strapi_api_token_permissions_token_links"):
        op.create_table(
            "strapi_api_token_permissions_token_links",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "api_token_permission_id",
                sa.Integer,
                sa.ForeignKey("strapi_api_token_permissions.id", ondelete="CASCADE"),
            ),
            sa.Column(
                "api_token_id",
                sa.Integer,
                sa.ForeignKey("strapi_api_tokens.id", ondelete="CASCADE"),
            ),
            sa.Column("api_token_permission_order", sa.Double),
            sa.UniqueConstraint(
                "api_token_permission_id",
                "api_token_id",
                name="strapi_api_token_permissions_token_links_unique",
            ),
        )
        op.create_index(
            "strapi_api_token_permissions_token_links_inv_fk",
            "strapi_api_token_permissions_token_links",
            ["api_token_id"],
        )


def downgrade() -> None:
    op.drop_table("strapi_api_token_permissions_token_links")
    op.drop_table("strapi_api_token_permissions")
    op.drop_table("strapi_api_tokens")
    op.drop_table("strapi_core_store_settings")
