"""System tables (created by the alembic migrations in ``contentapi/migrations``).

Named as Strapi v4 names them, so a database made by Strapi keeps working. These ``Table``
objects are for queries only: the migrations own their creation and evolution.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Double,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from contentapi.db.types import datetime_type, json_type

__all__ = [
    "api_token_permission_links",
    "api_token_permissions",
    "api_tokens",
    "core_store",
    "events",
    "i18n_locales",
    "rate_limits",
    "system_metadata",
    "webhook_deliveries",
    "webhooks",
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

#: Strapi's webhooks (its admin panel writes them; ``contentapi webhooks`` here)
webhooks = Table(
    "strapi_webhooks",
    system_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255)),
    Column("url", Text),
    Column("headers", json_type()),
    Column("events", json_type()),
    Column("enabled", Boolean),
)

#: the change feed: one row per event, written in the transaction of the write it tells of
events = Table(
    "contentapi_events",
    system_metadata,
    Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True),
    Column("event", String(64), nullable=False),
    Column("uid", String(255)),
    Column("entry_id", Integer),
    Column("locale", String(255)),
    #: ``{model, uid, entry}`` or ``{media}`` as JSON text, in Strapi's key order
    Column("payload", Text, nullable=False),
    Column("created_at", datetime_type(), nullable=False),
    Column("dispatched", Boolean, nullable=False),
    sqlite_autoincrement=True,
)

#: one row per event and webhook it is sent to: its state, attempts and last outcome
webhook_deliveries = Table(
    "contentapi_webhook_deliveries",
    system_metadata,
    Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True),
    Column("event_id", BigInteger, nullable=False),
    Column("webhook_id", Integer, nullable=False),
    Column("webhook_name", String(255)),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", datetime_type(), nullable=False),
    Column("last_status", Integer),
    Column("last_error", Text),
    Column("duration_ms", Integer),
    Column("created_at", datetime_type(), nullable=False),
    Column("finished_at", datetime_type()),
    sqlite_autoincrement=True,
)
