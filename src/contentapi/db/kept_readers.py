"""Autocommit read connections kept open between reads instead of going back to the pool.

Why: taking a connection from SQLAlchemy's pool and giving it back costs 118 µs of CPU per
read on PostgreSQL (``async with Database.read()`` doing nothing, on the benchmark machine): a
``Connection`` and a pool record are made, the checkout and checkin events run, the autocommit
isolation level is set and reset, each step through a greenlet. A request reads once, so that
was 5-10% of a read request's CPU (one entry with ``populate=*``: about 2.3 ms). A read that
went well now leaves its connection here, still checked out and still in autocommit, and the
next read takes it back in 8 µs.

What the pool would have done is kept:
- at most ``keep`` connections wait here, the rest go back to the pool; and when a write finds
  every connection of the pool out, those waiting here go back to it (``make_room``), so a
  write never waits on a connection no read is using;
- the one returned last is taken first (the pool's ``pool_use_lifo``: a query is prepared on
  few connections);
- none is kept longer than the pool's ``recycle`` age, and none that failed, was cancelled or
  was invalidated;
- the transaction SQLAlchemy begins by itself at a statement is ended, as the pool's checkin
  would end it;
- when a read finds the database unreachable, the connections waiting here were opened before
  the outage: they are closed, as SQLAlchemy invalidates its whole pool then, so no later read
  fails on one of them;
- ``close()`` (at shutdown, before the engine is disposed) closes them all.
"""

from __future__ import annotations

import contextlib
import time

from contentapi.db.async_engine import AsyncConnection, AsyncEngine

__all__ = ["KEPT_READERS", "KeptReaders"]

#: connections kept at most: the read gate lets 2 reads at once through per worker on a
#: local database; without the gate, reads beyond this many take the pool's path
KEPT_READERS = 4


class KeptReaders:
    """A last-in-first-out stack of open autocommit connections of ``engine``'s pool."""

    __slots__ = ("_engine", "_idle", "_opened", "keep", "recycle")

    def __init__(self, engine: AsyncEngine, *, keep: int = KEPT_READERS) -> None:
        self._engine = engine
        self.keep = keep
        #: seconds a connection is kept at most (the pool's ``pool_recycle``; -1: no limit)
        self.recycle: float = getattr(engine.sync_engine.pool, "_recycle", -1)
        self._idle: list[AsyncConnection] = []
        #: when each connection kept here was taken from the pool (``time.monotonic()``)
        self._opened: dict[int, float] = {}

    @property
    def idle(self) -> int:
        """Connections waiting here now (tests)."""
        return len(self._idle)

    async def take(self) -> AsyncConnection:
        """The connection returned last, or a new one from the pool."""
        if self._idle:
            return self._idle.pop()
        conn = await self._engine.connect()
        self._opened[id(conn)] = time.monotonic()
        return conn

    async def give_back(self, conn: AsyncConnection) -> None:
        """After a read that went well: kept for the next read, or closed (to the pool)."""
        opened = self._opened.get(id(conn))
        if (
            len(self._idle) < self.keep
            and opened is not None
            and (self.recycle < 0 or time.monotonic() - opened < self.recycle)
            and not conn.closed
            and not conn.invalidated
        ):
            try:
                if conn.in_transaction():
                    # SQLAlchemy begins a transaction of its own at a statement it executes
                    # (a kept statement run on the driver does not); in autocommit it holds
                    # nothing on the server, and ending it sends nothing, as closing would
                    await conn.rollback()
            except Exception:  # the read went well: its answer stands, the connection goes
                pass
            else:
                self._idle.append(conn)
                return
        with contextlib.suppress(Exception):
            await self.close_one(conn)

    async def close_one(self, conn: AsyncConnection) -> None:
        """Close ``conn`` (back to the pool) and forget it."""
        self.forget(conn)
        await conn.close()

    def forget(self, conn: AsyncConnection) -> None:
        """``conn`` is being closed by its user (a read that failed): not to be kept."""
        self._opened.pop(id(conn), None)

    async def make_room(self) -> None:
        """Before a write: when every connection of the pool is out, those waiting here go
        back to it, so the write does not wait on connections no read is using."""
        pool = self._engine.sync_engine.pool
        if self._idle and pool.checkedout() >= pool.size():  # type: ignore[attr-defined]
            await self.close()

    async def close(self) -> None:
        """Close every connection waiting here (shutdown, or the database became
        unreachable: they were opened before)."""
        idle, self._idle = self._idle, []
        for conn in idle:
            self._opened.pop(id(conn), None)
            with contextlib.suppress(Exception):  # a dead one: the pool discards it anyway
                await conn.close()
