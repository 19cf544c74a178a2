"""Resolved callers, cached per worker and emptied the moment an auth table changes.

Resolving the caller (token lookup, the role's permissions) costs a connection and one or two
statements on every request. On PostgreSQL each worker keeps the resolved ``Actor`` per
credential; the change listener (``db/notify.py``) hears ``contentapi_auth``, which triggers on
every table that decides who may do what send when a change commits, and ``runtime.py``
subscribes this cache to it — so a role change, a blocked user or a revoked token applies to the
next request in every worker, milliseconds after its commit.

The generation and live protocol is ``caching.InvalidatedCache``'s: trusted only while the
listener is connected, and a resolution that raced with a change is not kept. Unknown
credentials are never cached (random tokens cannot grow the cache), and an API token's own
expiry (``Actor.expires_at``) is checked on every hit.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, datetime

from contentapi.auth.actor import Actor
from contentapi.caching import CALLERS, InvalidatedCache

__all__ = ["CallerCache"]


class CallerCache(InvalidatedCache[Hashable, Actor]):
    """Credential key → ``Actor`` (the first stored dropped past ``size``)."""

    __slots__ = ()

    def __init__(self, size: int = CALLERS) -> None:
        super().__init__(size)

    def get(self, key: Hashable) -> Actor | None:
        actor = self._entries.get(key) if self.live else None
        if actor is None:
            return None
        expires_at = actor.expires_at
        if expires_at is not None and expires_at <= datetime.now(UTC):
            self._entries.discard(key)
            return None
        return actor
