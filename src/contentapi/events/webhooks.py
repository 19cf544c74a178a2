"""Strapi's webhooks, in its own ``strapi_webhooks`` table: what its admin panel writes, and
``contentapi webhooks`` here. Read at each dispatch, so a change by anyone is followed within
the dispatcher's poll (a second)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, insert, select, update

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.system import webhooks
from contentapi.entries.events import ENTRY_EVENTS, MEDIA_EVENTS
from contentapi.errors import ValidationError

__all__ = [
    "WEBHOOK_EVENTS",
    "Webhook",
    "create_webhook",
    "delete_webhook",
    "list_webhooks",
    "update_webhook",
]

#: what a webhook may listen to (Strapi 4.25's list)
WEBHOOK_EVENTS = (*ENTRY_EVENTS, *MEDIA_EVENTS)


@dataclass(frozen=True, slots=True)
class Webhook:
    """One row of ``strapi_webhooks``."""

    id: int
    name: str
    url: str
    headers: Mapping[str, str]
    events: tuple[str, ...]
    enabled: bool

    def wants(self, event: str) -> bool:
        return self.enabled and event in self.events


def _webhook(row: Any) -> Webhook:
    headers = row.headers if isinstance(row.headers, Mapping) else {}
    events = row.events if isinstance(row.events, list) else []
    return Webhook(
        id=int(row.id),
        name=row.name or "",
        url=row.url or "",
        headers={str(k): str(v) for k, v in headers.items()},
        events=tuple(str(event) for event in events),
        enabled=bool(row.enabled),
    )


async def list_webhooks(conn: AsyncConnection) -> list[Webhook]:
    rows = await conn.execute(select(webhooks).order_by(webhooks.c.id))
    return [_webhook(row) for row in rows]


def checked(
    name: str, url: str, headers: Mapping[str, str], events: Sequence[str]
) -> dict[str, Any]:
    """The columns of a webhook, or the reason it cannot be one (as Strapi's admin checks)."""
    if not name.strip():
        raise ValidationError("name is required")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(f"url must be an http or https URL: {url!r}")
    unknown = [event for event in events if event not in WEBHOOK_EVENTS]
    if unknown:
        raise ValidationError(f"unknown event {unknown[0]!r}: use {', '.join(WEBHOOK_EVENTS)}")
    return {"name": name, "url": url, "headers": dict(headers), "events": list(events)}


async def create_webhook(
    conn: AsyncConnection,
    name: str,
    url: str,
    headers: Mapping[str, str],
    events: Sequence[str],
    *,
    enabled: bool = True,
) -> Webhook:
    values = checked(name, url, headers, events)
    created = await conn.execute(
        insert(webhooks).values(**values, enabled=enabled).returning(*webhooks.c)
    )
    return _webhook(created.one())


async def update_webhook(conn: AsyncConnection, webhook: Webhook, **changes: Any) -> Webhook:
    """``webhook`` with ``changes`` (name, url, headers, events, enabled) stored."""
    merged = {
        "name": webhook.name,
        "url": webhook.url,
        "headers": webhook.headers,
        "events": webhook.events,
        **{key: value for key, value in changes.items() if key != "enabled"},
    }
    values = checked(merged["name"], merged["url"], merged["headers"], merged["events"])
    values["enabled"] = changes.get("enabled", webhook.enabled)
    updated = await conn.execute(
        update(webhooks).where(webhooks.c.id == webhook.id).values(**values).returning(*webhooks.c)
    )
    return _webhook(updated.one())


async def delete_webhook(conn: AsyncConnection, webhook: Webhook) -> None:
    await conn.execute(delete(webhooks).where(webhooks.c.id == webhook.id))
