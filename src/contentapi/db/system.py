"""System tables (created by the alembic migrations in ``contentapi/migrations``).

Named as Strapi v4 names them, so a database made by Strapi keeps working. These ``Table``
objects are for queries only: the migrations own their creation and evolution.
"""

from __future__ import annotations

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

api_tokens = Table(
    "strapi_api_tokens",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255)),
    Column("description", String(255)),
    Column("type", String(255)),
    Column("access_key", String(255)),
    Column("last_used_at", datetime_type()),
    Column("expires_at", datetime_type()),
    Column("lifespan", BigInteger),
    Column("created_at", datetime_type()),
    Column("updated_at", datetime_type()),
    Column("created_by_id", Integer),
    Column("updated_by_id", Integer),
)

api_token_permissions = Table(
    "strapi_api_token_permissions",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("action", String(255)),
    Column("created_at", datetime_type()),
    Column("updated_at", datetime_type()),
    Column("created_by_id", Integer),
    Column("updated_by_id", Integer),
)

api_token_permission_links = Table(
    "strapi_api_token_permissions_token_links",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("api_token_permission_id", Integer),
    Column("api_token_id", Integer),
    Column("api_token_permission_order", Double),
)

i18n_locales = Table(
    "i18n_locale",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255)),
    Column("code", String(255)),
    Column("created_at", datetime_type()),
    Column("updated_at", datetime_type()),
    Column("created_by_id", Integer),
    Column("updated_by_id", Integer),
)

rate_limits = Table(
    "contentapi_rate_limits",
    system_metadata,
    Column("key", String(64), primary_key=True),
    Column("window_start", datetime_type(), nullable=False),
    Column("hits", Integer, nullable=False),
)
