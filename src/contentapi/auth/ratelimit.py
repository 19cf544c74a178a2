"""Throttling of ``/api/auth/*``: a fixed window counter per key, kept in the database so that
every worker process (and every machine) shares it.

A request is counted under two keys, and refused (429) when either is over the limit:
``route + client IP`` — which an attacker cannot vary per request — and ``route + targeted
identifier`` (the account being logged into or registered), which protects one account
from attempts spread over many addresses. No key is built from a body field alone.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case
from sqlalchemy.dialects import postgresql, sqlite

from contentapi.db.engine import Database
from contentapi.db.system import rate_limits
from contentapi.errors import RateLimitError

__all__ = ["RateLimiter"]


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class RateLimiter:
    """At most ``max_hits`` per key in any ``window`` (fixed windows)."""

    def __init__(self, database: Database, max_hits: int, window_seconds: int) -> None:
        self.database = database
        self.max_hits = max_hits
        self.window = timedelta(seconds=window_seconds)

    def _upsert(self, key: str, now: datetime) -> Any:
        insert = (postgresql.insert if not self.database.is_sqlite else sqlite.insert)(rate_limits)
        expired = rate_limits.c.window_start <= now - self.window
        return (
            insert.values(key=key, window_start=now, hits=1)
            .on_conflict_do_update(
                index_elements=[rate_limits.c.key],
                set_={
                    "hits": case((expired, 1), else_=rate_limits.c.hits + 1),
                    "window_start": case((expired, now), else_=rate_limits.c.window_start),
                },
            )
            .returning(rate_limits.c.hits)
        )

    async def hit(self, route: str, client_ip: str, identifiers: Sequence[str] = ()) -> None:
        """Count one attempt; ``RateLimitError`` when a key is over the limit."""
        now = datetime.now(UTC).replace(tzinfo=None)
        keys = [_key(f"{route}|ip|{client_ip}")]
        keys += [_key(f"{route}|id|{ident.strip().lower()}") for ident in identifiers if ident]
        over = False
        async with self.database.write() as conn:
            for key in keys:
                hits = (await conn.execute(self._upsert(key, now))).scalar_one()
                over = over or hits > self.max_hits
            if random.random() < 0.01:  # now and then, forget windows long past
                await conn.execute(
                    rate_limits.delete().where(rate_limits.c.window_start < now - 2 * self.window)
                )
        if over:
            raise RateLimitError()
