"""Read replicas: which one may serve a read now, and the look at each that says so.

``ReplicaSet`` holds one engine per ``CONTENTAPI_DATABASE_REPLICA_URLS`` entry (PostgreSQL
streaming replicas of the primary) and, per worker, a background task that every
``interval`` (0.1 s) asks the primary for its WAL position (``pg_current_wal_lsn()``) and each
replica for the position it has replayed (``pg_last_wal_replay_lsn()``), each on a connection
kept for that alone. The hot read path
only compares numbers in memory (``pick``): no round trip decides where a read goes, except
when the request carries a read-your-writes token the replica was last seen behind — then one
``pg_last_wal_replay_lsn()`` on the connection that would serve the read settles it
(``read``), and the primary serves it if the replica is still behind.

Lag, in seconds, is measured from WAL positions, not from
``now() - pg_last_xact_replay_timestamp()`` (which grows on a replica that is perfectly current
while the primary commits nothing): the primary's positions of the last few seconds are kept
with the time each was seen, and a replica's lag is how long ago the primary was at the
position it has replayed — 0 when it has replayed the newest. A replica more than ``max_lag``
behind, or one that did not answer (down, refused, too slow), is skipped, its reads served by
the primary, and looked at again a second later. A read that fails on a replica midway is run
again on the primary: the client sees no error.

Values read on a replica are never kept in a worker's caches (list totals, locales):
invalidations come from the primary and may arrive before the replica has replayed the
change, and the stale value would then be kept until the next change (``on_replica``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.exc import DBAPIError

from contentapi.db.async_engine import AsyncConnection, AsyncEngine, create_async_engine
from contentapi.db.lsn import parse_lsn
from contentapi.db.outage import is_unavailable
from contentapi.db.urls import redacted

__all__ = [
    "Replica",
    "ReplicaMissed",
    "ReplicaSet",
    "look_engine",
    "on_replica",
    "replica_engine_options",
]

log = logging.getLogger("contentapi")

T = TypeVar("T")

#: seconds one look at a server may take before it counts as not answering
_LOOK_TIMEOUT = 1.0
#: seconds a new connection to a replica may take before the read goes to the primary
_CONNECT_TIMEOUT = 2.0
#: seconds a replica that failed is left alone before it is looked at again
_RETRY_AFTER = 1.0
_PRIMARY_POSITION = "SELECT pg_current_wal_lsn()::text"
#: NULL on a server that is not a standby (a promoted one is on a timeline of its own)
_REPLAYED = "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END"
_REPLICA_MARK = "contentapi_replica"


def on_replica(conn: AsyncConnection) -> bool:
    """Whether ``conn`` is a replica's (what it reads must not be kept in a cache)."""
    return bool(conn.info.get(_REPLICA_MARK))


class ReplicaMissed(Exception):
    """The replica could not serve this read (behind, down, failed midway): the primary will."""


@dataclass(eq=False, slots=True)
class Replica:
    """One replica and what was last seen of it."""

    name: str
    engine: AsyncEngine
    #: the same pool in autocommit, as the primary's reads
    autocommit: AsyncEngine
    #: a connection of its own for the looks, so that a pool busy with reads never delays one
    #: (a look that waited for a pooled connection would count the replica as not answering)
    looks: AsyncEngine
    #: the WAL position it had replayed at the last look
    replayed: int = 0
    #: answering, and at most ``max_lag`` behind, at the last look
    usable: bool = False
    #: ``time.monotonic()`` before which it is not looked at again (it failed)
    resting_until: float = 0.0
    #: it failed and the failure was logged (logged again only once it has recovered)
    reported: bool = False

    @classmethod
    def of(cls, url: str, engine: AsyncEngine, looks: AsyncEngine) -> Replica:
        """The replica at ``url`` read through ``engine``, looked at through ``looks``
        (``look_engine``); connections of ``engine`` are marked for ``on_replica``."""

        @event.listens_for(engine.sync_engine, "connect")
        def _mark(dbapi_connection: Any, record: Any) -> None:
            record.info[_REPLICA_MARK] = True

        autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
        return cls(redacted(url), engine, autocommit, looks)

    def failed(self, error: BaseException) -> None:
        self.usable = False
        self.resting_until = time.monotonic() + _RETRY_AFTER
        if not self.reported:
            self.reported = True
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            log.warning("replica %s skipped, reads go to the primary: %s", self.name, reason)


@dataclass(eq=False)
class ReplicaSet:
    """The replicas of one worker, looked at every ``interval`` seconds once ``start``ed."""

    replicas: Sequence[Replica]
    #: the primary's engine for the looks (one connection of its own, ``Replica.looks``)
    primary: AsyncEngine
    #: seconds a replica may be behind the primary and still serve reads
    max_lag: float
    interval: float = 0.1
    #: the primary's WAL positions of the last ``max_lag`` seconds, with when each was seen
    _positions: deque[tuple[float, int]] = field(default_factory=deque)
    _turn: int = 0
    _task: asyncio.Task[None] | None = None

    def pick(self, at_least: int) -> tuple[Replica, bool] | None:
        """A usable replica for a read that must see ``at_least``, in turn, and whether its
        replayed position must be checked first (it was last seen behind ``at_least``);
        ``None``: the primary serves the read."""
        replicas = self.replicas
        count = len(replicas)
        self._turn = turn = (self._turn + 1) % count
        behind: Replica | None = None
        for step in range(count):
            replica = replicas[(turn + step) % count]
            if not replica.usable:
                continue
            if replica.replayed >= at_least:
                return replica, False
            if behind is None or replica.replayed > behind.replayed:
                behind = replica
        return None if behind is None else (behind, True)

    async def read(
        self,
        replica: Replica,
        check: bool,
        at_least: int,
        work: Callable[[AsyncConnection], Awaitable[T]],
    ) -> T:
        """``work`` on ``replica``; ``ReplicaMissed`` when the primary must run it instead.
        Errors of ``work`` itself (a 404, a bad filter) pass through."""
        try:
            async with replica.autocommit.connect() as conn:
                if check:
                    replica.replayed = max(replica.replayed, await _replayed(conn))
                    if replica.replayed < at_least:
                        raise ReplicaMissed()
                return await work(conn)
        except ReplicaMissed:
            raise
        except Exception as error:
            if is_unavailable(error):
                replica.failed(error)
                raise ReplicaMissed() from error
            if isinstance(error, DBAPIError):
                # e.g. 40001, a statement cancelled by a conflict with recovery: the replica
                # is up, this read just could not finish there
                raise ReplicaMissed() from error
            raise

    async def start(self) -> None:
        await self.look()
        self._task = asyncio.create_task(self._look_forever(), name="contentapi-replicas")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for replica in self.replicas:
            await replica.engine.dispose()
            await replica.looks.dispose()
        await self.primary.dispose()

    async def _look_forever(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.look()
            except Exception:  # never let the look die: replicas would stay as last seen
                log.exception("looking at the replicas failed")

    async def look(self) -> None:
        """One look: the primary's position, then every replica's (at once)."""
        now = time.monotonic()
        try:
            async with asyncio.timeout(_LOOK_TIMEOUT), self.primary.connect() as conn:
                position = parse_lsn(str((await conn.exec_driver_sql(_PRIMARY_POSITION)).scalar()))
        except Exception:  # the primary's own reads and writes answer for it; keep the last
            position = None
        if position is not None:
            self._note_primary(now, position)
        await asyncio.gather(*(self._look_at(replica, now) for replica in self.replicas))

    def _note_primary(self, now: float, position: int) -> None:
        positions = self._positions
        positions.append((now, position))
        horizon = now - self.max_lag - 2 * self.interval
        while len(positions) > 1 and positions[0][0] < horizon:
            positions.popleft()

    async def _look_at(self, replica: Replica, now: float) -> None:
        if now < replica.resting_until:
            return
        try:
            async with asyncio.timeout(_LOOK_TIMEOUT), replica.looks.connect() as conn:
                replayed = await _replayed(conn)
        except Exception as error:
            replica.failed(error)
            return
        replica.replayed = max(replica.replayed, replayed)
        replica.usable = self.lag(replayed) <= self.max_lag
        if replica.usable and replica.reported:
            replica.reported = False
            log.info("replica %s serves reads again", replica.name)
        elif not replica.usable and not replica.reported and self._seen_for() >= self.max_lag:
            # (not in the first ``max_lag`` seconds: a replica still replaying the start-up's
            # writes is no news)
            replica.reported = True
            log.warning(
                "replica %s is more than %g s behind the primary (or not a standby): reads go "
                "to the primary until it catches up",
                replica.name,
                self.max_lag,
            )

    def _seen_for(self) -> float:
        """Seconds of the primary's positions kept."""
        positions = self._positions
        return positions[-1][0] - positions[0][0] if positions else 0.0

    def lag(self, replayed: int) -> float:
        """Seconds since the primary was at ``replayed`` (0: at or past its newest position;
        infinite: behind every position kept, or none seen yet)."""
        positions = self._positions
        if not positions:
            return math.inf
        newest = positions[-1][0]
        for seen, position in reversed(positions):
            if position <= replayed:
                return newest - seen
        return math.inf


def replica_engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """The primary's engine ``options`` for a replica, but for how long a new connection may
    take: a replica that does not answer sends the read to the primary after
    ``_CONNECT_TIMEOUT`` seconds, not after asyncpg's 60."""
    connect_args = {**options.get("connect_args", {}), "timeout": _CONNECT_TIMEOUT}
    return {**options, "connect_args": connect_args}


def look_engine(engine: AsyncEngine) -> AsyncEngine:
    """An engine on ``engine``'s server holding one connection, for the looks."""
    return _autocommit(
        create_async_engine(
            engine.url,
            pool_size=1,
            max_overflow=0,
            pool_recycle=1800,
            connect_args={"timeout": _LOOK_TIMEOUT},
        )
    )


def _autocommit(engine: AsyncEngine) -> AsyncEngine:
    return engine.execution_options(isolation_level="AUTOCOMMIT")


async def _replayed(conn: AsyncConnection) -> int:
    """The WAL position the replica has replayed (0 on a server that is not a standby)."""
    text = (await conn.exec_driver_sql(_REPLAYED)).scalar()
    return 0 if text is None else (parse_lsn(str(text)) or 0)
