"""Writers of one entry take turns inside a worker before they open a transaction.

Concurrent updates of one entry serialise on its row lock in PostgreSQL anyway; left to
themselves, every one of them holds a pooled connection and an open transaction while it
waits there, PostgreSQL wakes them in no particular order (a few waited ten times the median
in the benchmark's PUT) and each one that waited re-checks the row it finally locks. Queued
here instead — first come, first served, one transaction per entry and worker — at most one
writer per worker waits in PostgreSQL; workers and instances still meet on the row lock, which
stays what makes the writes correct. The order and the answers do not change: the same
writes, one after the other.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager

__all__ = ["EntryTurns"]


class _Turn:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class EntryTurns:
    """One ``asyncio.Lock`` per entry being written, forgotten when nobody holds or waits."""

    def __init__(self) -> None:
        self._turns: dict[Hashable, _Turn] = {}

    @asynccontextmanager
    async def turn(self, key: Hashable) -> AsyncIterator[None]:
        turn = self._turns.get(key)
        if turn is None:
            turn = self._turns[key] = _Turn()
        turn.users += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.users -= 1
            if turn.users == 0:
                del self._turns[key]

    def __len__(self) -> int:
        """Entries with a writer in this worker now (tests: none left behind)."""
        return len(self._turns)
