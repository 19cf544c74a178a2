"""The async engine, read and write connections, and the statement counter.

Writes run in one transaction each. On SQLite a write transaction starts with
``BEGIN IMMEDIATE`` so that two concurrent writers queue on the busy timeout instead of failing
when one upgrades its read lock; reads use a plain deferred ``BEGIN`` and, in WAL mode, never
block writers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from contentapi.db.counter import StatementCounter
from contentapi.db.driver import KeptStatements
from contentapi.db.jsonb import SQLITE_JSONB_KEY, SQLITE_JSONB_OUT, jsonb_key, jsonb_out
from contentapi.db.outage import is_unavailable
from contentapi.db.pgtext import SQLITE_PG_TEXT, pg_text
from contentapi.errors import ServiceUnavailableError

__all__ = ["Database", "StatementCounter", "pg_lower"]

#: below this, every float orjson reads was written as a float or an integer it reads exactly
_HUGE = 9.2e18
#: The SQL name of ``pg_lower`` on SQLite connections.
SQLITE_LOWER = "pg_lower"


def pg_lower(text: str | None) -> str | None:
    """Lower case as PostgreSQL's ``lower()`` in a UTF-8 database: one character at a time
    (Unicode's simple mapping): capital sigma U+03A3 is always U+03C3 (never the final U+03C2
    Python's ``str.lower`` may give), U+1E9E becomes U+00DF and U+0130 a plain ``i``. SQLite's
    own ``lower()`` folds ASCII only; this function is registered on every SQLite connection
    under ``SQLITE_LOWER``, and folds filter values on both databases."""
    if text is None:
        return None
    return "".join(_SPECIAL_LOWER.get(c) or c.lower() for c in text)


#: Characters whose full lower-case mapping (Python's) has several characters.
_SPECIAL_LOWER = {"\u0130": "i"}


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
    ) -> None:
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        #: how long a SQLite statement waits for the database lock before failing (503)
        self.sqlite_busy_timeout = sqlite_busy_timeout
        options: dict[str, Any] = {"echo": echo, "json_deserializer": json_loads}
        if self.dialect == "sqlite":
            database = parsed.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            options["connect_args"] = {"timeout": sqlite_busy_timeout}
        else:
            # Up to 20 connections, each kept once opened. Not 10 plus 10 "overflow": SQLAlchemy
            # closes an overflow connection as soon as it is returned, so a worker with more
            # than 10 requests in flight (the accept split between workers is uneven: 11 of 16
            # benchmark connections on one worker) opened and closed a connection per request
            # — a new backend, statements prepared and planned on cold caches: 160 new sessions
            # in 10 s and the deep filter's p99 at 190-300 ms (docs/benchmarks.md).
            options["pool_size"] = 20
            options["max_overflow"] = 0
            # No pre-ping: it costs a round trip per checkout. A connection the server dropped
            # fails its statement once; SQLAlchemy then invalidates the whole pool, and
            # connections older than the recycle age are replaced before use.
            options["pool_recycle"] = 1800
            if statement_timeout > 0:
                # Set when each connection opens, so it holds for every statement on it —
                # SQLAlchemy's and the kept statements run on asyncpg directly (driver.py).
                # A statement cancelled by it (SQLSTATE 57014) answers 503 (db/outage.py).
                milliseconds = str(max(1, round(statement_timeout * 1000)))
                options["connect_args"] = {"server_settings": {"statement_timeout": milliseconds}}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        #: the same pool, its connections in autocommit for ``read()`` (set at checkout without
        #: a call of its own: 10 µs less per request than ``conn.execution_options``)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        #: called after every committed write transaction (the entry service's list totals)
        self.after_write: list[Callable[[], None]] = []
        #: called after a committed write that changed who may do what (the caller cache):
        #: this process must not wait for its own notification to see its own change
        self.after_caller_change: list[Callable[[], None]] = []
        #: kept read statements, run through asyncpg directly where that is safe
        self.kept = KeptStatements(self.engine.dialect)
        self._install_hooks()

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    def _install_hooks(self) -> None:
        sync_engine = self.engine.sync_engine

        @event.listens_for(sync_engine, "before_cursor_execute")
        def _count(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
            StatementCounter.record(statement, parameters)

        if not self.is_sqlite:
            return
        busy_ms = int(self.sqlite_busy_timeout * 1000)

        @event.listens_for(sync_engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, record: Any) -> None:
            # Let SQLAlchemy, not the driver, emit BEGIN (so it can be BEGIN IMMEDIATE).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.close()
            dbapi_connection.create_function(SQLITE_LOWER, 1, pg_lower, deterministic=True)
            # PostgreSQL's jsonb order and text for JSON filters and sorts (db/jsonb.py)
            dbapi_connection.create_function(SQLITE_JSONB_KEY, 1, jsonb_key, deterministic=True)
            dbapi_connection.create_function(SQLITE_JSONB_OUT, 1, jsonb_out, deterministic=True)
            # PostgreSQL's text of numbers, dates and times for the text operators (db/pgtext.py)
            dbapi_connection.create_function(SQLITE_PG_TEXT, 2, pg_text, deterministic=True)

        @event.listens_for(sync_engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
            conn.exec_driver_sql(f"BEGIN {mode}")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reading. On PostgreSQL it runs in autocommit: no BEGIN and COMMIT
        round trips, and nothing lost — under READ COMMITTED every statement takes its own
        snapshot inside a transaction too. SQLite reads in a deferred transaction.
        An unavailable database raises ``ServiceUnavailableError`` (``db/outage.py``)."""
        try:
            if self.is_sqlite:
                async with self.engine.connect() as conn, conn.begin():
                    yield conn
                return
            async with self._autocommit.connect() as conn:
                yield conn
        except Exception as error:
            if is_unavailable(error):
                raise ServiceUnavailableError() from error
            raise

    @asynccontextmanager
    async def write(self, *, changes_callers: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection in a write transaction: committed on success, rolled back on any error;
        ``ServiceUnavailableError`` when the database is unavailable (nothing was committed).
        ``changes_callers``: it writes users, roles or permissions (``after_caller_change``)."""
        try:
            async with self.engine.connect() as conn:
                if self.is_sqlite:
                    conn = await conn.execution_options(sqlite_begin="IMMEDIATE")
                async with conn.begin():
                    yield conn
        except Exception as error:
            if is_unavailable(error):
                raise ServiceUnavailableError() from error
            raise
        for hook in self.after_write:  # committed: what this process keeps may be stale
            hook()
        if changes_callers:
            for hook in self.after_caller_change:
                hook()

    async def dispose(self) -> None:
        await self.engine.dispose()
