"""In-process subscribers of the change feed: ``app.events.on("entry.create", fn)``.

For an extension's side effects that must happen only once a write is committed (a cache to
purge, a search index to feed, a mail to send): unlike a lifecycle hook (``entries/
lifecycles.py``), which runs inside the write's transaction, a listener runs after the commit,
off the request path, in the dispatcher (``dispatch.py``) that fans the event out — once
across all workers and instances, in the order of the events. It is called at most once: a
worker that dies between the fan-out's commit and the call loses that call (a webhook is the
at-least-once path). A listener that raises is logged and the others still run.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from contentapi.entries.events import ENTRY_EVENTS, MEDIA_EVENTS

__all__ = ["ChangeEvent", "EventListeners", "ListenerError"]

log = logging.getLogger("contentapi.events")

#: what a listener may name: the webhooks' events, or ``*`` for all of them
LISTENABLE = frozenset((*ENTRY_EVENTS, *MEDIA_EVENTS, "*"))


class ListenerError(Exception):
    """A listener that cannot be: an unknown event name, a handler that is not callable."""


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """One committed event of the change feed, as a listener receives it."""

    #: the feed's id: increasing in commit order, the webhooks' ``X-Contentapi-Event-Id``
    id: int
    #: ``entry.create``, ..., ``media.delete``
    event: str
    #: the content type's uid (``None`` for a ``media.*`` event)
    uid: str | None
    entry_id: int | None
    locale: str | None
    #: what a webhook carries besides ``event`` and ``createdAt``: ``{model, uid, entry}`` or
    #: ``{media}``
    payload: dict[str, Any]
    #: when the write recorded it (UTC, naive)
    created_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> ChangeEvent:
        """An event from a ``contentapi_events`` row (its payload as stored, JSON text)."""
        return cls(
            id=row.id,
            event=row.event,
            uid=row.uid,
            entry_id=row.entry_id,
            locale=row.locale,
            payload=orjson.loads(row.payload),
            created_at=row.created_at,
        )


Listener = Callable[[ChangeEvent], Any]


class EventListeners:
    """Listeners by event name."""

    def __init__(self) -> None:
        self._by_event: dict[str, list[Listener]] = {}

    def on(self, event: str, listener: Listener) -> None:
        """Call ``listener`` (sync or async) with each committed ``event`` (``*``: every one)."""
        if event not in LISTENABLE:
            raise ListenerError(f"events.on: unknown event {event!r} (one of {sorted(LISTENABLE)})")
        if not callable(listener):
            raise ListenerError(f"events.on({event!r}): the listener is not callable")
        self._by_event.setdefault(event, []).append(listener)

    def __bool__(self) -> bool:
        return bool(self._by_event)

    async def notify(self, event: ChangeEvent) -> None:
        """Call the listeners of ``event``, then those of ``*``; a failure is logged."""
        for listener in (*self._by_event.get(event.event, ()), *self._by_event.get("*", ())):
            try:
                outcome = listener(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                log.exception("event listener %r failed on %s #%d", listener, event.event, event.id)
