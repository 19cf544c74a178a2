"""List totals kept per worker, forgotten the moment any content write commits.

Every list answers ``meta.pagination.total``: an exact ``count(*)`` over every matching row,
which grows with the table (at 50,000 books it is most of a list request's cost). On PostgreSQL
each worker keeps the totals it counted, per query; a write committed by this worker empties
them at once (``Database.write``), and one committed anywhere else — another worker, another
instance, a tool on the database — empties them through ``NOTIFY contentapi_content`` from
triggers on every content table (``db/notify.py``). As with the caller cache, the totals are
trusted only while the listener is connected, and a count that raced with a write is not kept.
SQLite: not used (every list counts).
"""

from __future__ import annotations

from collections.abc import Hashable

__all__ = ["TotalsCache"]


class TotalsCache:
    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.generation = 0
        self.live = False
        self._totals: dict[Hashable, int] = {}

    def get(self, key: Hashable) -> int | None:
        return self._totals.get(key) if self.live else None

    def put(self, key: Hashable, total: int, generation: int) -> None:
        if not self.live or generation != self.generation:
            return
        if len(self._totals) >= self.size:
            self._totals.clear()
        self._totals[key] = total

    def clear(self) -> None:
        self.generation += 1
        self._totals.clear()

    def set_live(self, live: bool) -> None:
        self.clear()
        self.live = live
