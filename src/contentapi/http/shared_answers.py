"""Kept answers shared by every instance through Redis (``CONTENTAPI_RESPONSE_CACHE=redis``).

Each worker keeps its own answers in memory (``http/answer_store.py``) and, behind them, in
Redis, where every worker of every instance finds them. Eviction cannot be a deletion there: a
worker that has not heard a change yet could store an old answer right after another worker
deleted it. So Redis answers are **validated, not deleted**:

- a hash of table versions (``<prefix>versions``) is raised (``HINCRBY``) by every worker that
  hears a table's change — through its change listener (PostgreSQL) or the tables' versions
  (SQLite) — several raises per change are as good as one;
- a reader snapshots the versions *after* catching up (its own raises for every change committed
  before it started are done: ``flushed``) and *before* reading the database, and stores its
  answer with the versions of the tables it read;
- a lookup returns an answer only if every one of its tables still has the version it was stored
  with (one Lua script: one round trip).

A change that committed after the reader's snapshot was raised after it, so it invalidates the
answer for every later reader: each of them caught up first, which includes its own worker's
raise. A raise that fails (Redis away) or changes missed by the listener (it reconnected) make
the worker raise ``__epoch__``, part of every answer's versions, before it uses Redis again: then
nothing stored before is served. Answers expire after ``CONTENTAPI_RESPONSE_CACHE_TTL`` seconds;
Redis's own ``maxmemory`` policy bounds its memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Hashable
from typing import Any

import orjson

from contentapi.http.answer_store import KeptAnswer

__all__ = ["SharedAnswers", "shared_key"]

log = logging.getLogger("contentapi")

EPOCH = "__epoch__"

#: the kept answer if every table it read still has the version it was stored with
_LOOKUP = """
local deps = redis.call('HGET', KEYS[1], 'deps')
if not deps then return false end
for table, version in pairs(cjson.decode(deps)) do
  local now = tonumber(redis.call('HGET', KEYS[2], table) or '0')
  if now ~= version then return false end
end
return redis.call('HMGET', KEYS[1], 'body', 'tables')
"""


def shared_key(key: Hashable) -> str:
    """A cache key as a Redis key's digest (the key's parts in a stable order)."""

    def plain(part: Any) -> Any:
        if isinstance(part, bytes):
            return part.decode("latin-1")
        if isinstance(part, frozenset):
            return sorted(part)
        if isinstance(part, tuple):
            return [plain(p) for p in part]
        return part

    return hashlib.sha256(orjson.dumps(plain(key))).hexdigest()


class SharedAnswers:
    """Answers in Redis, validated by table versions (see the module)."""

    def __init__(self, url: str, ttl: int, prefix: str = "contentapi:answers:") -> None:
        try:  # the optional extra: imported only when configured
            import redis.asyncio as redis
        except ImportError:
            raise ValueError(
                "CONTENTAPI_RESPONSE_CACHE=redis needs the redis package: "
                "pip install 'contentapi[redis]'"
            ) from None

        self.client: Any = redis.from_url(url)
        self.ttl = ttl
        self.prefix = prefix
        self.versions_key = prefix + "versions"
        self._lookup = self.client.register_script(_LOOKUP)
        #: raises sent and not yet answered
        self._raising: set[asyncio.Task[None]] = set()
        #: a raise failed or changes were missed: raise the epoch before the next use
        self._behind = True
        #: answers found in Redis, for ``GET /_cache``
        self.hits = 0

    def changed(self, table: str) -> None:
        """A change subscriber: raise ``table``'s version (in the background; ``flushed``)."""
        task = asyncio.get_running_loop().create_task(self._raise(table))
        self._raising.add(task)
        task.add_done_callback(self._raising.discard)

    def missed(self, _live: bool = False) -> None:
        """Changes may have been missed (the listener stopped or started hearing)."""
        self._behind = True

    async def _raise(self, table: str) -> None:
        try:
            await self.client.hincrby(self.versions_key, table, 1)
        except Exception as error:  # Redis away: what it holds is not trusted again
            log.warning("response cache: Redis version not raised: %s", error)
            self._behind = True

    async def flushed(self) -> bool:
        """Whether every raise heard so far is done and Redis can be trusted."""
        if self._raising:
            await asyncio.gather(*tuple(self._raising), return_exceptions=True)
        if self._behind:
            try:
                await self.client.hincrby(self.versions_key, EPOCH, 1)
            except Exception as error:
                log.warning("response cache: Redis unavailable: %s", error)
                return False
            self._behind = False
        return True

    async def versions(self) -> dict[str, int] | None:
        """Every table's version now (``None``: Redis away)."""
        try:
            found = await self.client.hgetall(self.versions_key)
        except Exception as error:
            log.warning("response cache: Redis unavailable: %s", error)
            return None
        return {name.decode(): int(value) for name, value in found.items()}

    async def get(self, key: Hashable) -> KeptAnswer | None:
        try:
            found = await self._lookup(keys=[self.prefix + shared_key(key), self.versions_key])
        except Exception as error:
            log.warning("response cache: Redis unavailable: %s", error)
            return None
        if not found:
            return None
        body, tables = found
        self.hits += 1
        return KeptAnswer(bytes(body), frozenset(tables.decode().split()))

    async def put(self, key: Hashable, answer: KeptAnswer, versions: dict[str, int]) -> None:
        """Keep ``answer`` with the versions its tables had before it was read."""
        deps = {table: versions.get(table, 0) for table in answer.tables}
        deps[EPOCH] = versions.get(EPOCH, 0)
        name = self.prefix + shared_key(key)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hset(
                    name,
                    mapping={
                        "body": answer.body,
                        "tables": " ".join(sorted(answer.tables)),
                        "deps": orjson.dumps(deps),
                    },
                )
                pipe.expire(name, self.ttl)
                await pipe.execute()
        except Exception as error:
            log.warning("response cache: answer not kept in Redis: %s", error)

    async def close(self) -> None:
        await self.client.aclose()
