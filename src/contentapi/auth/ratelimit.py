"""Throttling of the auth flows as the users-permissions plugin keys it: a fixed-window
counter per ``e-mail in the body + flow + client address``, kept in the database so that every
worker process (and every machine) shares it.

Strapi 4.25 (``middlewares/rateLimit.js``) builds the key
``${toLower(body.email) || 'unknownIdentifier'}:${toLower(path)}:${ctx.request.ip}``, so a
site registering or signing in many different users from one server address is not
throttled as a whole. Its login body names the account ``identifier``, not ``email``; that
name is counted too, so sign-ins of different accounts from one address count apart (the
reference keys them all as ``unknownIdentifier``) and a login cannot escape its account's
count by adding an ``email`` of its choosing (Strapi's key alone would give each made-up
``email`` a fresh count while ``identifier`` guesses one account's password). A request is
counted under each account its body names and refused when any of those counts is over.

The flow's name (``users.flows.AuthFlow``, e.g. ``auth.local``) stands for Strapi's path, so a
REST and a GraphQL sign-in of one account count together (Strapi's GraphQL is not throttled).

The client address is part of every key, so nobody elsewhere can lock an account out: a
thousand wrong passwords from one address leave the owner's own address untouched. (Behind a
reverse proxy that is only true with ``CONTENTAPI_TRUSTED_PROXIES`` set; otherwise every client
has the proxy's address.)

    limiter = RateLimiter(database, max_hits=10, window_seconds=60)
    await limiter.hit("auth.local", "203.0.113.7", accounts_of(body))
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case
from starlette.requests import HTTPConnection

from contentapi.db.engine import Database
from contentapi.db.system import rate_limits
from contentapi.errors import RateLimitError

__all__ = ["RateLimiter", "accounts_of", "client_address"]

#: Strapi's key part when the body names no account.
UNKNOWN_IDENTIFIER = "unknownIdentifier"


def accounts_of(body: Mapping[str, Any]) -> tuple[str, ...]:
    """The accounts an auth flow's body names, lower-cased: its ``email`` (Strapi's key) and
    a login's ``identifier``; Strapi's ``unknownIdentifier`` when it names none."""
    accounts = []
    for name in ("email", "identifier"):
        value = body.get(name)
        if isinstance(value, str) and value and value.lower() not in accounts:
            accounts.append(value.lower())
    return tuple(accounts) or (UNKNOWN_IDENTIFIER,)


def client_address(connection: HTTPConnection) -> str:
    """The address a request is counted under (the proxy's, unless proxies are trusted)."""
    return connection.client.host if connection.client else "unknown"


def rate_limit_key(flow: str, client_ip: str, account: str) -> str:
    """Strapi's key with the flow for the path, hashed to fit the counters' primary key."""
    return hashlib.sha256(f"{account}:{flow}:{client_ip}".encode()).hexdigest()


class RateLimiter:
    """At most ``max_hits`` per key in any ``window`` (fixed windows)."""

    def __init__(self, database: Database, max_hits: int, window_seconds: int) -> None:
        self.database = database
        self.max_hits = max_hits
        self.window = timedelta(seconds=window_seconds)

    def _upsert(self, key: str, now: datetime) -> Any:
        insert = self.database.dialect.insert(rate_limits)
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

    async def hit(self, flow: str, client_ip: str, accounts: Sequence[str]) -> None:
        """Count one request of ``flow`` under each of ``accounts`` (``accounts_of``);
        ``RateLimitError`` when any of those counts is over the limit."""
        now = datetime.now(UTC).replace(tzinfo=None)
        hits = 0
        async with self.database.write() as conn:
            for account in accounts:
                key = rate_limit_key(flow, client_ip, account)
                hits = max(hits, (await conn.execute(self._upsert(key, now))).scalar_one())
            if random.random() < 0.01:  # now and then, forget windows long past
                await conn.execute(
                    rate_limits.delete().where(rate_limits.c.window_start < now - 2 * self.window)
                )
        if hits > self.max_hits:
            raise RateLimitError()
