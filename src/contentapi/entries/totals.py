"""List totals kept per worker, forgotten the moment any content write commits.

Every list answers ``meta.pagination.total``: an exact ``count(*)`` over every matching row,
which grows with the table (at 50,000 books it is most of a list request's cost). On PostgreSQL
each worker keeps the totals it counted, per query; a write committed by this worker empties
them at once (``Database.write``), and one committed anywhere else — another worker, another
instance, a tool on the database — empties them through ``NOTIFY contentapi_content`` from
triggers on every content table, which the change listener (``db/notify.py``) hears and
``runtime.py`` subscribes these totals to. The generation and live protocol is
``caching.InvalidatedCache``'s, as for the caller cache: trusted only while the listener is
connected, and a count that raced with a write is not kept. SQLite: not used (every list counts).
"""

from __future__ import annotations

from collections.abc import Hashable

from contentapi.caching import LIST_TOTALS, InvalidatedCache

__all__ = ["TotalsCache"]


class TotalsCache(InvalidatedCache[Hashable, int]):
    """Count key (a list query without its page) → its total."""

    __slots__ = ()

    def __init__(self, size: int = LIST_TOTALS) -> None:
        super().__init__(size)
