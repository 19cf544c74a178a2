"""Resolved callers, cached per worker and emptied the moment an auth table changes.

Resolving the caller (token lookup, the role's permissions) costs a connection and one or two
statements on every request. On PostgreSQL each worker keeps the resolved ``Actor`` per
credential and listens on the ``contentapi_auth`` channel: triggers on every table that decides
who may do what (``notify.py``) send a notification when a change commits, and the listener
empties the cache — so a role change, a blocked user or a revoked token applies to the next
request in every worker, milliseconds after its commit.

The cache is only trusted while the listener is connected: before it is, or after it loses its
connection, ``get`` misses and every request reads the database as before. A generation number
keeps a resolution that raced with a change out of the cache (it was read before the change).
Unknown credentials are never cached (random tokens cannot grow the cache), and an API token's
own expiry is kept with its entry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from datetime import UTC, datetime

from contentapi.auth.actor import Actor

__all__ = ["CallerCache"]


class CallerCache:
    """Credential key → ``Actor`` (least recently used dropped past ``size``)."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self.generation = 0
        #: whether changes are being heard (the listener is connected)
        self.live = False
        self._entries: OrderedDict[Hashable, tuple[Actor, datetime | None]] = OrderedDict()

    def get(self, key: Hashable) -> Actor | None:
        if not self.live:
            return None
        found = self._entries.get(key)
        if found is None:
            return None
        actor, expires_at = found
        if expires_at is not None and expires_at <= datetime.now(UTC):
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return actor

    def put(
        self, key: Hashable, actor: Actor, generation: int, expires_at: datetime | None = None
    ) -> None:
        """Keep ``actor`` unless something changed since ``generation`` was read."""
        if not self.live or generation != self.generation:
            return
        self._entries[key] = (actor, expires_at)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget everything (an auth table changed, or changes can no longer be heard)."""
        self.generation += 1
        self._entries.clear()

    def set_live(self, live: bool) -> None:
        self.clear()
        self.live = live

    def __len__(self) -> int:
        return len(self._entries)
