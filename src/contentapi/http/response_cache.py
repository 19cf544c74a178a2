"""The response cache: a content GET answered from the answers kept per worker, exactly.

Opt-in (``CONTENTAPI_RESPONSE_CACHE=memory``). Only reads whose answer is a function of the
database and of what the caller may read are kept: the content types' REST ``find`` and
``findOne`` (no extension controller configured for them) and GraphQL GET queries that do not
ask for the caller (``me``). The key is the caller's **permission set** — kind (public, API
token, user), token type and actions, the very things the query parser and ``may`` consult;
users of one role share their answers — and the **normalized request** (method, path, query
string; GraphQL: document, variables, operation name, extensions).

Exact invalidation, whoever writes (``docs/response-cache.md``):

- the answer records the tables its statements read (``http/read_tables.py``) and the store
  (``http/answer_store.py``) evicts it when ``contentapi_content`` says one of them changed;
- a read that started before a change is not kept after it (the store's sequence);
- before a read consults the store, the change listener is **caught up**
  (``ChangeListener.caught_up``): every change committed before the read started has been
  heard, so a read that starts after a commit never sees an answer that predates it — on any
  worker, of any instance, whoever committed (a notification's own delay is no window);
- while the listener does not hear (and on SQLite, which has no notifications) nothing is
  served from the cache nor kept in it;
- with read replicas, a read whose answer may be kept is read on the **primary**
  (``_on_the_primary``): the listener hears the primary's commits, and a replica's copy can be
  older than a change the store has already evicted for — kept, it would outlive that change.

What is kept is the body's bytes; kept or fresh, the caller renders the response from them with
``http/conditional.py`` (``ETag``, ``Cache-Control``, 304, ``HEAD``), so both are the same
bytes with the same headers. A request that asks for a fresh answer (``Cache-Control:
no-cache``, ``request_wants_fresh``) is read from the database, and its answer kept. Every
answer that passes here carries ``Surrogate-Key`` and ``Cache-Tag`` headers naming the tables
it read (``with_surrogate_keys``), the keys a CDN purge names (``events/cdn_purge.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from contentapi.auth.actor import Actor
from contentapi.db.counter import StatementCounter
from contentapi.db.read_position import current_read_position
from contentapi.http.answer_store import AnswerStore, KeptAnswer
from contentapi.http.conditional import request_wants_fresh
from contentapi.http.read_tables import ReadTables
from contentapi.http.shared_answers import SharedAnswers

__all__ = ["ResponseCache", "asks_for_caller", "surrogate_headers", "with_surrogate_keys"]

#: a GraphQL document naming ``me`` (the caller itself) or the users-permissions plugin's own
#: operations is never kept: its answer depends on who asks, not only on what they may read
_CALLER_FIELDS = re.compile(r"\bme\b|\busersPermissions")


def asks_for_caller(document: str) -> bool:
    """Whether a GraphQL document may read the caller's identity (conservatively: by name)."""
    return _CALLER_FIELDS.search(document) is not None


def surrogate_headers(tables: frozenset[str]) -> list[tuple[bytes, bytes]]:
    """``Surrogate-Key`` (Fastly, Varnish: space separated) and ``Cache-Tag`` (Cloudflare:
    comma separated) naming the tables an answer read."""
    names = sorted(tables)
    return [
        (b"surrogate-key", " ".join(names).encode()),
        (b"cache-tag", ",".join(names).encode()),
    ]


def with_surrogate_keys(response: Response, tables: frozenset[str]) -> Response:
    """``response`` (a read's 200 or 304, ``http/conditional.py``) naming the tables read."""
    response.raw_headers += surrogate_headers(tables)
    return response


@asynccontextmanager
async def _on_the_primary(keeping: bool) -> AsyncIterator[None]:
    """While ``keeping``, this request's reads go to the primary, not to a read replica
    (``db/read_position.py``; no position: no replicas, nothing to do)."""
    position = current_read_position()
    if not keeping or position is None or not position.replica_ok:
        yield
        return
    position.replica_ok = False
    try:
        yield
    finally:
        position.replica_ok = True


async def _not_heard() -> bool:
    return False


class ResponseCache:
    """The body of a cacheable GET from the store, or rendered and kept (see the module)."""

    def __init__(
        self,
        store: AnswerStore,
        tables: ReadTables,
        *,
        keeps: bool = True,
        shared: SharedAnswers | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        #: whether answers are kept at all (``False``: only the tables read are named)
        self.keeps = keeps
        #: the answers every instance shares (``CONTENTAPI_RESPONSE_CACHE=redis``), behind
        #: this worker's own
        self.shared = shared
        #: waits until every change committed before the call is heard (``runtime.py`` sets
        #: the change listener's ``caught_up``; until then nothing is served from the store)
        self.catch_up: Callable[[], Awaitable[bool]] = _not_heard

    @staticmethod
    def key(request: Request, actor: Actor, normalized: Hashable) -> Hashable:
        """The caller's permission set and the normalized request (``HEAD`` is ``GET``'s
        answer without its body: one key)."""
        return (
            request.scope["path"],
            normalized,
            actor.kind,
            actor.token_type,
            actor.permissions,
        )

    async def body(
        self,
        request: Request,
        actor: Actor,
        render: Callable[[], Awaitable[bytes | None]],
        normalized: Hashable | None = None,
    ) -> tuple[bytes | None, frozenset[str]]:
        """The kept body, or ``render()``'s (``None``: an answer not to keep, rendered by the
        caller), and the tables it read. ``normalized``: the request's normalized query
        (default: the raw query string). The caller renders the response from the body with
        ``http/conditional.py``, kept or not: the same bytes, the same headers."""
        if normalized is None:
            normalized = request.scope.get("query_string", b"")
        key = self.key(request, actor, normalized)
        store, shared = self.store, self.shared
        versions: dict[str, int] | None = None
        if self.keeps:
            found, versions = await self._find(request, key)
            if found is not None:
                return found.body, found.tables
            if shared is not None and versions is None and store.live:
                versions = await shared.versions()  # before the read: ``shared_answers.py``
        started = store.sequence
        async with StatementCounter.observing() as statements, _on_the_primary(self.keeps):
            body = await render()
        tables = self.tables.of(statements)
        if self.keeps and body is not None:
            kept = KeptAnswer(body, tables)
            if store.put(key, kept, started) and shared is not None and versions is not None:
                await shared.put(key, kept, versions)
        return body, tables

    async def _find(
        self, request: Request, key: Hashable
    ) -> tuple[KeptAnswer | None, dict[str, int] | None]:
        """The answer kept under ``key`` that may be served now (this worker's, else Redis's),
        and Redis's table versions when they were read on the way."""
        store, counters = self.store, self.store.counters
        if request_wants_fresh(request):
            counters.no_cache += 1
            return None, None
        if not (store.live and await self.catch_up()):
            counters.bypasses += 1
            return None, None
        found = store.get(key)
        versions = None
        shared = self.shared
        if found is None and shared is not None and await shared.flushed():
            started = store.sequence
            versions = await shared.versions()
            if versions is not None:
                found = await shared.get(key)
                if found is not None:
                    store.put(key, found, started)
        if found is None:
            counters.misses += 1
        else:
            counters.hits += 1
        return found, versions

    def stats(self) -> dict[str, Any]:
        """The counters and the size, for ``GET /_cache``: this worker's (``worker``, its
        process id, tells the workers' answers apart)."""
        return {
            "worker": os.getpid(),
            "enabled": self.keeps,
            "live": self.store.live,
            "entries": len(self.store),
            "sharedHits": 0 if self.shared is None else self.shared.hits,
            "size": self.store.size,
            "bytes": self.store.bytes,
            "maxBytes": self.store.max_bytes,
            **self.store.counters.as_dict(),
        }
