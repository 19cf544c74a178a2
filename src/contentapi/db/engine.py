"""The async engine, read and write connections, and the statement counter.

Writes run in one transaction each. On SQLite a write transaction starts with
``BEGIN IMMEDIATE`` so that two concurrent writers queue on the busy timeout instead of failing
when one upgrades its read lock; reads use a plain deferred ``BEGIN`` and, in WAL mode, never
block writers. What differs between the two databases is ``Database.dialect``
(``db/dialect.py``).

With read replicas (PostgreSQL, ``db/replicas.py``), ``read_replicated(work)`` runs a read a
replica may serve there when the request allows it (``db/read_position.py``), and on the
primary otherwise or when the replica misses; ``write()`` then notes each commit's WAL position
for the request's read-your-writes token. Without replicas both are exactly what they were:
``read_replicated`` is a plain primary read and ``write()`` asks nothing more.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import Token
from typing import Any, TypeVar

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url

from contentapi.db.async_engine import AsyncConnection, AsyncEngine, create_async_engine
from contentapi.db.counter import StatementCounter
from contentapi.db.dialect import Dialect, dialect_named
from contentapi.db.driver import KeptStatements
from contentapi.db.gate import OldestFirstGate, read_permits
from contentapi.db.kept_readers import KeptReaders
from contentapi.db.lsn import parse_lsn
from contentapi.db.outage import is_unavailable
from contentapi.db.read_position import current_read_position
from contentapi.db.replicas import (
    Replica,
    ReplicaMissed,
    ReplicaSet,
    look_engine,
    replica_engine_options,
)
from contentapi.errors import ServiceUnavailableError

__all__ = ["Database", "StatementCounter"]

T = TypeVar("T")

#: below this, every float orjson reads was written as a float or an integer it reads exactly
_HUGE = 9.2e18


def json_loads(text: str) -> Any:
    """How JSON and JSONB values are read: orjson, several times faster than the standard
    library on the small objects a populated page reads by the hundred (each related row comes
    back as ``jsonb``). orjson reads an integer beyond 64 bits as a float, so a value holding a
    float that large is read again by the standard library, as is what orjson refuses
    (``1e400``, lone surrogate escapes, ``NaN`` in SQLite's JSON text): every value reads
    exactly as before."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
    return json.loads(text) if _holds_huge_float(value) else value


def _holds_huge_float(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return not -_HUGE < value < _HUGE
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return False
    for item in value:
        kind = type(item)
        if kind is float:
            if not -_HUGE < item < _HUGE:
                return True
        elif (kind is dict or kind is list) and _holds_huge_float(item):
            return True
    return False


class Database:
    """One engine per process; ``read()`` and ``write()`` hand out connections in a transaction."""

    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        sqlite_busy_timeout: float = 30,
        statement_timeout: float = 0,
        read_concurrency: int | None = 0,
        replica_urls: Sequence[str] = (),
        replica_max_lag: float = 5,
    ) -> None:
        parsed = make_url(url)
        #: what differs between SQLite and PostgreSQL (``db/dialect.py``)
        self.dialect: Dialect = dialect_named(parsed.get_backend_name())
        #: how long a SQLite statement waits for the database lock before failing (503)
        self.sqlite_busy_timeout = sqlite_busy_timeout
        options: dict[str, Any] = {"echo": echo, "json_deserializer": json_loads}
        options.update(
            self.dialect.engine_options(
                parsed, busy_timeout=sqlite_busy_timeout, statement_timeout=statement_timeout
            )
        )
        self.engine: AsyncEngine = create_async_engine(url, **options)
        #: the same pool, its connections in autocommit for ``read()`` (set at checkout without
        #: a call of its own: 10 µs less per request than ``conn.execution_options``)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        #: ``read()``'s connections, kept open between reads (``db/kept_readers.py``)
        self.readers = KeptReaders(self._autocommit)
        #: called after every committed write transaction (the entry service's list totals)
        self.after_write: list[Callable[[], None]] = []
        #: called after a committed write that changed who may do what (the caller cache):
        #: this process must not wait for its own notification to see its own change
        self.after_caller_change: list[Callable[[], None]] = []
        #: kept read statements, run through asyncpg directly where that is safe
        self.kept = KeptStatements(self.engine.dialect)
        #: ``dialect.reads_in_autocommit``, read once per request
        self._reads_in_autocommit = self.dialect.reads_in_autocommit
        #: reads at once, oldest request first (``db/gate.py``; ``None``: decided by where
        #: the database is); PostgreSQL only: SQLite's reads run in its own threads, not in
        #: backends competing for the cores
        permits = read_permits(read_concurrency, parsed, replicated=bool(replica_urls))
        self.read_gate: OldestFirstGate | None = (
            OldestFirstGate(permits) if permits and self._reads_in_autocommit else None
        )
        self._install_hooks(self.engine)
        #: the read replicas (``None``: none configured, every read on the primary)
        self.replicas: ReplicaSet | None = None
        if replica_urls:
            replicas = []
            for replica_url in replica_urls:
                engine = create_async_engine(replica_url, **replica_engine_options(options))
                self._install_hooks(engine)
                replicas.append(Replica.of(replica_url, engine, look_engine(engine)))
            self.replicas = ReplicaSet(replicas, look_engine(self.engine), max_lag=replica_max_lag)

    def _install_hooks(self, engine: AsyncEngine) -> None:
        sync_engine = engine.sync_engine

        @event.listens_for(sync_engine, "before_cursor_execute")
        def _count(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
            StatementCounter.record(statement, parameters)

        self.dialect.install(sync_engine, busy_timeout=self.sqlite_busy_timeout)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reading. On PostgreSQL it runs in autocommit: no BEGIN and COMMIT
        round trips, and nothing lost — under READ COMMITTED every statement takes its own
        snapshot inside a transaction too. SQLite reads in a deferred transaction.
        An unavailable database raises ``ServiceUnavailableError`` (``db/outage.py``)."""
        gate = self.read_gate
        permit: Token[bool] | None = None
        try:
            if gate is not None:
                permit = await gate.enter()
            if self._reads_in_autocommit:
                readers = self.readers
                conn = await readers.take()
                try:
                    yield conn
                except BaseException as error:  # closed as ``async with`` closes it: shielded
                    readers.forget(conn)
                    await conn.__aexit__(type(error), error, error.__traceback__)
                    raise
                # After a read that went well, keeping or closing the connection awaits
                # nothing in the ordinary case (no transaction to roll back, the isolation
                # level an attribute): nothing can cancel it midway, so it needs no task of
                # its own to shield it, which SQLAlchemy's ``async with`` creates for every
                # connection (in process, a list page's CPU 897 -> 794 us per request)
                await readers.give_back(conn)
                return
            async with self.engine.connect() as conn, conn.begin():
                yield conn
        except Exception as error:
            if is_unavailable(error):
                await self.readers.close()  # opened before the outage (``kept_readers.py``)
                raise ServiceUnavailableError() from error
            raise
        finally:
            if gate is not None and permit is not None:
                gate.leave(permit)

    async def read_replicated(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """``work``'s answer on a connection for reading that a replica may serve: a content
        read, holding no lock and kept in no cache. On a replica when there are replicas, the
        request allows it and one has replayed what the request must see
        (``db/read_position.py``); on the primary otherwise, and again on the primary when the
        replica fails midway (``db/replicas.py``). ``work`` may run twice: it only reads."""
        replicas = self.replicas
        if replicas is not None:
            position = current_read_position()
            if position is not None and position.replica_ok:
                chosen = replicas.pick(position.at_least)
                if chosen is not None:
                    try:
                        return await replicas.read(*chosen, position.at_least, work)
                    except ReplicaMissed:
                        pass
        async with self.read() as conn:
            return await work(conn)

    @asynccontextmanager
    async def write(self, *, changes_callers: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection in a write transaction: committed on success, rolled back on any error;
        ``ServiceUnavailableError`` when the database is unavailable (nothing was committed).
        ``changes_callers``: it writes users, roles or permissions (``after_caller_change``)."""
        try:
            await self.readers.make_room()
            async with self.engine.connect() as conn:
                conn = await self.dialect.for_writing(conn)
                async with conn.begin():
                    yield conn
                if self.replicas is not None:
                    await _note_written(conn)
        except Exception as error:
            if is_unavailable(error):
                raise ServiceUnavailableError() from error
            raise
        for hook in self.after_write:  # committed: what this process keeps may be stale
            hook()
        if changes_callers:
            for hook in self.after_caller_change:
                hook()

    async def start_replicas(self) -> None:
        """Look at the replicas now and then every 0.1 s (nothing without replicas)."""
        if self.replicas is not None:
            await self.replicas.start()

    async def close_idle(self) -> None:
        """Close the connections no read or write holds now: the kept readers and the pool's
        idle ones (the next request opens what it needs)."""
        await self.readers.close()
        await self.engine.dispose()

    async def dispose(self) -> None:
        if self.replicas is not None:
            await self.replicas.stop()
        await self.close_idle()


#: a position no replica reaches: the request's later reads go to the primary
_BEYOND_ANY_REPLICA = 1 << 64


async def _note_written(conn: AsyncConnection) -> None:
    """After a commit, with replicas: the primary's WAL position, which the commit record lies
    before, becomes the request's read-your-writes position. Asked after the commit, on the
    driver's connection outside any transaction (no BEGIN round trip); inside the transaction
    ``pg_current_wal_lsn()`` would not yet cover the commit record."""
    position = current_read_position()
    if position is None:
        return
    try:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        text = await driver.fetchval("SELECT pg_current_wal_lsn()::text")
        written = parse_lsn(str(text))
    except Exception:
        written = None
    if written is None:  # committed all the same; without its position, read on the primary
        position.at_least = _BEYOND_ANY_REPLICA
    else:
        position.wrote(written)
