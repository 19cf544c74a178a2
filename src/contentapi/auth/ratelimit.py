"""Throttling of ``/api/auth/*`` as the users-permissions plugin keys it: a fixed-window
counter per ``e-mail in the body + request path + client address``, kept in the database so
that every worker process (and every machine) shares it.

Strapi 4.25 (``middlewares/rateLimit.js``) builds the key
``${toLower(body.email) || 'unknownIdentifier'}:${toLower(path)}:${ctx.request.ip}``, so a
site registering or signing in many different users from one server address is not
throttled as a whole. Its login body names the account ``identifier``, not ``email``; that
name is used when the body has no ``email``, so sign-ins of different accounts from one
address count apart too (the reference keys them all as ``unknownIdentifier``).

    limiter = RateLimiter(database, max_hits=10, window_seconds=60)
    await limiter.hit("/api/auth/local", "203.0.113.7", identifier_of(body))
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case
from sqlalchemy.dialects import postgresql, sqlite

from contentapi.db.engine import Database
from contentapi.db.system import rate_limits
from contentapi.errors import RateLimitError

__all__ = ["RateLimiter", "identifier_of"]

#: Strapi's key part when the body names no account.
UNKNOWN_IDENTIFIER = "unknownIdentifier"


def identifier_of(body: Mapping[str, Any]) -> str | None:
    """The account a ``/api/auth/*`` body names: ``email``, else ``identifier`` (login)."""
    for name in ("email", "identifier"):
        value = body.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def rate_limit_key(path: str, client_ip: str, identifier: str | None) -> str:
    """Strapi's key, hashed to fit the counters' primary key."""
    account = identifier.lower() if identifier else UNKNOWN_IDENTIFIER
    return hashlib.sha256(f"{account}:{path.lower()}:{client_ip}".encode()).hexdigest()


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

    async def hit(self, path: str, client_ip: str, identifier: str | None) -> None:
        """Count one request to ``path``; ``RateLimitError`` when its key is over the limit."""
        now = datetime.now(UTC).replace(tzinfo=None)
        key = rate_limit_key(path, client_ip, identifier)
        async with self.database.write() as conn:
            hits = (await conn.execute(self._upsert(key, now))).scalar_one()
            if random.random() < 0.01:  # now and then, forget windows long past
                await conn.execute(
                    rate_limits.delete().where(rate_limits.c.window_start < now - 2 * self.window)
                )
        if hits > self.max_hits:
            raise RateLimitError()
