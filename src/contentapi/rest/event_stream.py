"""``GET /api/P/events``: one content type's changes as server-sent events (beyond Strapi).

Each committed ``entry.create``, ``entry.update``, ``entry.delete`` (and ``entry.publish`` /
``entry.unpublish`` when recorded) of the type, from any worker or instance, is one event:

    id: <the change feed's id>
    event: entry.update
    data: {"data": {"id": 5, "attributes": {...}}, "meta": {}}

A create or update carries the entry as ``GET /api/P/:id`` with the stream's query would show
it — the same ``filters`` (an entry they do not match is not sent), ``locale``,
``publicationState``, ``fields`` and ``populate``, checked as the list's are for this caller —
read when the message is sent: a later change already committed shows, and an entry deleted
meanwhile is skipped (its delete follows); a delete carries ``{"data": {"id": N}, "meta":
{}}``. A client
reconnecting with ``Last-Event-ID`` first gets what it missed (as long as the change feed's
retention keeps it). The caller needs the type's ``find`` permission, checked again every
second: a revoked token or a changed role ends the stream (``event: error``) within a second;
so does a client that does not read (``events/feed.py``). A comment line every 15 s keeps
proxies from closing an idle stream.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response, StreamingResponse

from contentapi.auth.actor import may
from contentapi.db.read_position import current_read_position
from contentapi.errors import ApplicationError, ValidationError
from contentapi.events.feed import ChangeFeed, FeedSubscription, read_events_after
from contentapi.events.listeners import ChangeEvent
from contentapi.http.params import query_params
from contentapi.http.services import ContentServices
from contentapi.query.ast import And, Comparison, Filter, OffsetPagination, ReadQuery
from contentapi.rest.envelope import single_envelope
from contentapi.schema.model import ContentType

__all__ = ["EventStream"]

#: seconds between two checks that the caller may still read the type
REAUTHORIZE_SECONDS = 1.0
#: seconds of silence before a keep-alive comment
KEEP_ALIVE_SECONDS = 15.0
_ENTRY_EVENTS = frozenset(
    {"entry.create", "entry.update", "entry.delete", "entry.publish", "entry.unpublish"}
)


def _message(event_id: int, name: str, data: Any) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event_id, name.encode(), orjson.dumps(data))


class EventStream:
    """The ``/events`` route of one content type."""

    def __init__(
        self, content_type: ContentType, services: ContentServices, feed: ChangeFeed
    ) -> None:
        self.content_type = content_type
        self.uid = content_type.uid
        self.services = services
        self.feed = feed
        self.action = f"{self.uid}.find"

    async def __call__(self, request: Request) -> Response:
        actor = await self.services.callers.require(request, self.action)
        parser = self.services.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))
        query = parser.read_query(self.content_type, query_params(request))
        resume = request.headers.get("last-event-id")
        after: int | None = None
        if resume is not None:
            if not resume.isdigit():
                raise ValidationError("Last-Event-ID must be an event id")
            after = int(resume)
        uid = self.uid
        subscription = await self.feed.subscribe(
            lambda event: event.uid == uid and event.event in _ENTRY_EVENTS
        )
        return StreamingResponse(
            self._events(request, query, subscription, after),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _events(
        self,
        request: Request,
        query: ReadQuery,
        subscription: FeedSubscription,
        after: int | None,
    ) -> AsyncIterator[bytes]:
        try:
            yield b"retry: 1000\n\n"
            last = after or 0
            if after is not None:  # what the client missed while it was away
                database = self.services.entries.database
                for missed in await read_events_after(database, after, self.uid):
                    message = await self._render(missed, query)
                    last = missed.id
                    if message is not None:
                        yield message
            checked = spoke = time.monotonic()
            while True:
                event = await subscription.next(REAUTHORIZE_SECONDS)
                now = time.monotonic()
                if subscription.ended is not None:
                    yield _message(last, "error", {"reason": subscription.ended})
                    return
                if now - checked >= REAUTHORIZE_SECONDS:
                    try:
                        await self.services.callers.require(request, self.action)
                    except ApplicationError as refused:
                        yield _message(last, "error", {"reason": refused.message})
                        return
                    checked = now
                if event is not None and event.id > last:
                    last = max(last, event.id)
                    message = await self._render(event, query)
                    if message is not None:
                        spoke = now
                        yield message
                elif now - spoke >= KEEP_ALIVE_SECONDS:
                    spoke = now
                    yield b": keep-alive\n\n"
        finally:
            self.feed.unsubscribe(subscription)

    async def _render(self, event: ChangeEvent, query: ReadQuery) -> bytes | None:
        """The event's message for this stream; ``None`` when its entry does not match."""
        if event.event == "entry.delete":
            return _message(event.id, event.event, single_envelope({"id": event.entry_id}))
        if event.entry_id is None:
            return None
        position = current_read_position()
        if position is not None:  # read replicas: the event is the primary's, maybe not theirs yet
            position.replica_ok = False
        this_entry: Filter = Comparison("id", "integer", "$eq", event.entry_id)
        filters = this_entry if query.filters is None else And((query.filters, this_entry))
        one = replace(query, filters=filters, pagination=OffsetPagination(0, 1, False))
        page = await self.services.entries.find_many(self.uid, one)
        if not page.entries:
            return None
        data = self.services.serializer.entry(self.content_type, page.entries[0])
        return _message(event.id, event.event, single_envelope(data))
