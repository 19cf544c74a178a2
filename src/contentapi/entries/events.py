"""The change feed's writing side: each write records its events in its own transaction.

An event is a row of ``contentapi_events`` (``db/system.py``) inserted on the write's
connection, so a write that rolls back records nothing and a committed one never loses its
event, whatever dies after the commit. The row holds what a webhook carries, Strapi's
payload without its ``createdAt`` (the delivery's time): ``{model, uid, entry}`` for an entry,
``{media}`` for a file — the entry rendered as Strapi's event hub sanitizes it, plain
(``RestSerializer.plain``) with what the request populated and no private attribute.
Delivery is ``events/dispatch.py``'s, after the commit.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import orjson
from sqlalchemy import bindparam, insert

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.driver import KeptStatements
from contentapi.db.system import events
from contentapi.entries.serialize import RestSerializer
from contentapi.schema.model import ContentType

__all__ = [
    "ENTRY_EVENTS",
    "MEDIA_EVENTS",
    "PUBLICATION_EVENTS",
    "EntryEvents",
    "EventName",
    "publication_event",
]

EventName = Literal[
    "entry.create",
    "entry.update",
    "entry.delete",
    "entry.publish",
    "entry.unpublish",
    "media.create",
    "media.update",
    "media.delete",
]
ENTRY_EVENTS: tuple[EventName, ...] = (
    "entry.create",
    "entry.update",
    "entry.delete",
    "entry.publish",
    "entry.unpublish",
)
MEDIA_EVENTS: tuple[EventName, ...] = ("media.create", "media.update", "media.delete")
#: recorded for every publish and unpublish; sent to webhooks only when switched on
PUBLICATION_EVENTS: tuple[EventName, ...] = ("entry.publish", "entry.unpublish")

#: built once and kept: a write pays for running it, not for building and compiling it
_INSERT = insert(events).values(
    event=bindparam("event"),
    uid=bindparam("uid"),
    entry_id=bindparam("entry_id"),
    locale=bindparam("locale"),
    payload=bindparam("payload"),
    created_at=bindparam("created_at"),
    dispatched=False,
)


def publication_event(
    content_type: ContentType, *, was_draft: bool, columns: dict[str, Any]
) -> EventName | None:
    """The event an update's columns make of a change of publication state, after its
    ``entry.update``: ``entry.publish`` when it published a draft, ``entry.unpublish`` when it
    took a published entry back to a draft, none for a new date on a published entry."""
    if not (content_type.draft_and_publish and "published_at" in columns):
        return None
    published = columns["published_at"] is not None
    if published != was_draft:
        return None
    return "entry.publish" if published else "entry.unpublish"


class EntryEvents:
    """Records events on a write's connection."""

    def __init__(self, serializer: RestSerializer, kept: KeptStatements) -> None:
        self.serializer = serializer
        #: runs the insert through asyncpg on PostgreSQL (``db/driver.py``)
        self.kept = kept
        #: events recorded by this process (the dispatcher, woken after each committed write,
        #: looks for new events only when this moved: ``events/dispatch.py``)
        self.recorded = 0

    async def entry(
        self,
        conn: AsyncConnection,
        event: EventName,
        content_type: ContentType,
        entry: dict[str, Any],
    ) -> None:
        """Record ``event`` of ``entry`` (as read back by the write, in its transaction)."""
        payload = {
            "model": content_type.singular_name,
            "uid": content_type.uid,
            "entry": self.serializer.plain(content_type, entry),
        }
        await self._record(conn, event, content_type.uid, entry, payload)

    async def publication(
        self,
        conn: AsyncConnection,
        event: EventName,
        content_type: ContentType,
        entry: dict[str, Any],
    ) -> None:
        """Record ``entry.publish`` or ``entry.unpublish`` of ``entry``, read as Strapi's
        content manager reads it (``publication_payload.py``). Live updates follow them;
        webhooks get them only with ``CONTENTAPI_EVENTS_PUBLICATION``: Strapi sends them for
        its admin's publish action alone, with ``{model, entry}`` and no ``uid``."""
        payload = {
            "model": content_type.singular_name,
            "entry": self.serializer.plain(content_type, entry),
        }
        await self._record(conn, event, content_type.uid, entry, payload)

    async def media(
        self, conn: AsyncConnection, event: EventName, file_type: ContentType, file: dict[str, Any]
    ) -> None:
        """Record ``event`` of an uploaded file (``media.*``: no model, no uid)."""
        payload = {"media": self.serializer.plain(file_type, file)}
        await self._record(conn, event, None, file, payload)

    async def _record(
        self,
        conn: AsyncConnection,
        event: EventName,
        uid: str | None,
        entry: dict[str, Any],
        payload: dict[str, Any],
    ) -> None:
        values = {
            "event": event,
            "uid": uid,
            "entry_id": entry.get("id"),
            "locale": entry.get("locale"),
            "payload": orjson.dumps(payload).decode(),
            "created_at": datetime.now(UTC).replace(tzinfo=None),
        }
        await self.kept.rows(conn, _INSERT, values)
        self.recorded += 1
