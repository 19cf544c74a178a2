"""The change feed, read live: every worker tails ``contentapi_events`` for its streams.

A stream (``GET /api/P/events``: ``rest/event_stream.py``) subscribes here and gets each event
committed after it subscribed — by any worker of any instance, since all of them write the one
table — through a bounded queue. One ``ChangeFeed`` per worker reads the table while it has
subscribers (every ``TAIL_SECONDS``), whatever the number of streams: one indexed range query
per turn.

Ids are taken in insert order but may commit out of order (PostgreSQL's sequence; a rolled-back
write leaves its id unused for good). So the tail reads ``id > highest seen`` and remembers the
ids it skipped over as gaps, looked for again each turn for ``GAP_SECONDS``: an event that
commits late is still delivered (out of order), and a hole is given up on after that.

A subscriber whose queue is full (it does not read) is cut off: its stream ends with a reason,
and no memory grows without bound. A turn hands out at most as many events as a queue holds,
so a burst of writes alone does not cut off a client that reads: only one that did not take
what the last turn gave it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError

from contentapi.db.engine import Database
from contentapi.db.system import events
from contentapi.errors import ServiceUnavailableError
from contentapi.events.listeners import ChangeEvent

__all__ = ["ChangeFeed", "FeedSubscription", "read_events_after"]

log = logging.getLogger("contentapi.events")

#: seconds between two reads of the table while someone listens
TAIL_SECONDS = 0.2
#: seconds an id skipped over is looked for again before it is taken for a rolled-back write
GAP_SECONDS = 30.0
#: events a subscriber may have waiting before it is cut off (``CONTENTAPI_EVENTS_QUEUE_LIMIT``)
QUEUE_LIMIT = 1000
#: events read per query (at most the queue limit)
BATCH = 1000

_COLUMNS = (
    events.c.id,
    events.c.event,
    events.c.uid,
    events.c.entry_id,
    events.c.locale,
    events.c.payload,
    events.c.created_at,
)


async def read_events_after(
    database: Database, event_id: int, uid: str | None, limit: int = BATCH
) -> list[ChangeEvent]:
    """The events after ``event_id`` (of ``uid``'s entries when given), in id order — what a
    stream resuming from ``Last-Event-ID`` missed, as long as the retention kept it."""
    statement = select(*_COLUMNS).where(events.c.id > event_id)
    if uid is not None:
        statement = statement.where(events.c.uid == uid)
    async with database.read() as conn:
        rows = (await conn.execute(statement.order_by(events.c.id).limit(limit))).all()
    return [ChangeEvent.from_row(row) for row in rows]


@dataclass(eq=False)
class FeedSubscription:
    """One stream's place in the feed: the events ``wants`` accepts, queued for it."""

    wants: Callable[[ChangeEvent], bool]
    limit: int = QUEUE_LIMIT
    queue: asyncio.Queue[ChangeEvent] = field(init=False)
    #: why the feed stopped serving it (``None`` while it is served)
    ended: str | None = None
    #: set when ``ended`` is
    closed: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.queue = asyncio.Queue(self.limit)

    async def next(self, timeout: float) -> ChangeEvent | None:
        """The next event, or ``None`` after ``timeout`` seconds without one or once ended."""
        if not self.queue.empty():
            return self.queue.get_nowait()
        getting = asyncio.ensure_future(self.queue.get())
        ending = asyncio.ensure_future(self.closed.wait())
        try:
            done, _ = await asyncio.wait(
                {getting, ending}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:  # also when the stream is cancelled (its client went away)
            for waiting in (getting, ending):
                if not waiting.done():
                    waiting.cancel()
        return getting.result() if getting in done else None

    def offer(self, event: ChangeEvent) -> None:
        if self.ended is not None or not self.wants(event):
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.end(f"the client did not keep up: more than {self.limit} events waited")

    def end(self, reason: str) -> None:
        if self.ended is None:
            self.ended = reason
            self.closed.set()


class ChangeFeed:
    """This worker's tail of ``contentapi_events`` and its subscribers."""

    def __init__(self, database: Database, queue_limit: int = QUEUE_LIMIT) -> None:
        self.database = database
        self.queue_limit = queue_limit
        self._subscribers: set[FeedSubscription] = set()
        self._task: asyncio.Task[None] | None = None
        self._highest: int | None = None
        self._gaps: dict[int, float] = {}
        self._stopped = False

    async def subscribe(self, wants: Callable[[ChangeEvent], bool]) -> FeedSubscription:
        """A subscription to every event committed from now on that ``wants`` accepts."""
        if self._stopped:
            raise ServiceUnavailableError()
        if self._highest is None:
            self._highest = await self._current_highest()
        subscription = FeedSubscription(wants, self.queue_limit)
        self._subscribers.add(subscription)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._tail(), name="contentapi-feed")
        return subscription

    def unsubscribe(self, subscription: FeedSubscription) -> None:
        self._subscribers.discard(subscription)

    async def stop(self) -> None:
        """At the worker's shutdown: every stream ends."""
        self._stopped = True
        for subscription in list(self._subscribers):
            subscription.end("the server is shutting down")
        self._subscribers.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    async def _current_highest(self) -> int:
        async with self.database.read() as conn:
            return int((await conn.execute(select(func.max(events.c.id)))).scalar() or 0)

    async def _tail(self) -> None:
        """Read and hand out new events while anyone listens."""
        while self._subscribers:
            try:
                for event in await self._read():
                    for subscription in list(self._subscribers):
                        subscription.offer(event)
            except (ServiceUnavailableError, DBAPIError, OSError) as error:
                log.warning("change feed: the database failed (%s); trying again", error)
            await asyncio.sleep(TAIL_SECONDS)
        # nobody listens: the next subscriber starts from what is committed then
        self._highest = None
        self._gaps.clear()

    async def _read(self) -> list[ChangeEvent]:
        assert self._highest is not None
        now = time.monotonic()
        async with self.database.read() as conn:
            rows = (
                await conn.execute(
                    select(*_COLUMNS)
                    .where(events.c.id > self._highest)
                    .order_by(events.c.id)
                    .limit(min(BATCH, self.queue_limit))
                )
            ).all()
            late: list[Any] = []
            if self._gaps:
                late = list(
                    (await conn.execute(select(*_COLUMNS).where(events.c.id.in_(self._gaps)))).all()
                )
        for row in late:
            self._gaps.pop(row.id, None)
        expected = self._highest + 1
        for row in rows:
            for skipped in range(expected, row.id):
                self._gaps[skipped] = now
            expected = row.id + 1
        if rows:
            self._highest = rows[-1].id
        for gap, since in list(self._gaps.items()):
            if now - since > GAP_SECONDS:
                del self._gaps[gap]
        return [ChangeEvent.from_row(row) for row in sorted([*late, *rows], key=lambda row: row.id)]
