"""Parsed read queries kept per worker: a repeated query string is parsed once.

Parsing a query string (``qs`` rules, then filters, sort, fields and populate checked against
the models and the caller's rights) costs about 80 µs for ``populate=*`` on one entry — as much
as a statement. A front end asks the same few query strings over and over, so the result is
kept by content type, route kind, raw query string and the caller's reading rights (kind,
token type and permission set: what the parser consults). A query string that fails to parse
is not kept; it fails again, with the same error, every time. ``ReadQuery`` is frozen and
nothing downstream changes it, so one object serves every request that asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Literal

from contentapi.auth.actor import Actor
from contentapi.caching import PARSED_QUERIES, BoundedCache
from contentapi.query.ast import ReadQuery

__all__ = ["ParsedQueries", "RouteKind"]

RouteKind = Literal["list", "entry"]


class ParsedQueries:
    """``(uid, route kind, raw query string, caller's rights)`` → ``ReadQuery``."""

    def __init__(self, size: int = PARSED_QUERIES) -> None:
        self._queries: BoundedCache[Hashable, ReadQuery] = BoundedCache(size)

    def get(
        self,
        uid: str,
        kind: RouteKind,
        raw: bytes,
        actor: Actor,
        parse: Callable[[], ReadQuery],
    ) -> ReadQuery:
        key = (uid, kind, raw, actor.kind, actor.token_type, actor.permissions)
        found = self._queries.get(key)
        if found is None:
            # raises for a bad query string: nothing kept
            found = self._queries.put(key, parse())
        return found

    def __len__(self) -> int:
        return len(self._queries)
