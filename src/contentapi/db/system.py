"""System tables (created by the alembic migrations in ``contentapi/migrations``).

Named as Strapi v4 names them, so a database made by Strapi keeps working. These ``Table``
objects are for queries only: the migrations own their creation and evolution.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Column, Double, Integer, MetaData, String, Table, Text

from contentapi.db.types import datetime_type

__all__ = [
    "api_token_permission_links",
    "api_token_permissions",
    "api_tokens",
    "core_store",
    "i18n_locales",
    "rate_limits",
    "system_metadata",
]

system_metadata = MetaData()


def _entity_table(name: str, *columns: Column[Any]) -> Table:
    """A table of a Strapi entity: an ``id`` key, its own columns, then the four audit
    columns every Strapi entity carries (when and by whom it was created and updated)."""
    return Table(
        name,
        system_metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        *columns,
        Column("created_at", datetime_type()),
        Column("updated_at", datetime_type()),
        Column("created_by_id", Integer),
        Column("updated_by_id", Integer),
    )


core_store = Table(
    "strapi_core_store_settings",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(255)),
    Column("value", Text),
    Column("type", String(255)),
    Column("environment", String(255)),
    Column("tag", String(255)),
)

api_tokens = _entity_table(
    "strapi_api_tokens",
    Column("name", String(255)),
    Column("description", String(255)),
    Column("type", String(255)),
    Column("access_key", String(255)),
    Column("last_used_at", datetime_type()),
    Column("expires_at", datetime_type()),
    Column("lifespan", BigInteger),
)

api_token_permissions = _entity_table("strapi_api_token_permissions", Column("action", String(255)))

api_token_permission_links = Table(
    "strapi_api_token_permissions_token_links",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("api_token_permission_id", Integer),
    Column("api_token_id", Integer),
    Column("api_token_permission_order", Double),
)

i18n_locales = _entity_table(
    "i18n_locale", Column("name", String(255)), Column("code", String(255))
)

rate_limits = Table(
    "contentapi_rate_limits",
    system_metadata,
    Column("key", String(64), primary_key=True),
    Column("window_start", datetime_type(), nullable=False),
    Column("hits", Integer, nullable=False),
)
