"""What differs between SQLite and PostgreSQL, in one place: ``Dialect``, chosen once per engine.

Strapi's reference answers on PostgreSQL; SQLite is made to answer the same, mostly through
Python functions registered on each of its connections (``db/pgtext.py``, ``db/jsonb.py``).
Every other module asks its ``Dialect`` for the SQL or the behaviour it needs — a position
match, case folding, a list of ids, an upsert, a lock — or for a capability named by what it
allows (``has_arrays``, ``json_rows``, ``notifies``), never which database it is talking to.
So a difference is written once, beside its twin, and the statement texts stay what they were
(tests count them; the kept statements are cached by them).

``Database.dialect`` holds the engine's; ``dialect_of`` finds it for code that only has a
connection (a lock taken inside someone else's transaction).
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar, Literal

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Connection,
    Executable,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Table,
    Text,
    any_,
    bindparam,
    cast,
    event,
    func,
    literal,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Engine
from sqlalchemy.pool import NullPool

from contentapi.db.async_engine import AsyncConnection, AsyncEngine, create_async_engine
from contentapi.db.jsonb import SQLITE_JSONB_KEY, SQLITE_JSONB_OUT, json_text, jsonb_key, jsonb_out
from contentapi.db.pgtext import SQLITE_LOWER, SQLITE_PG_TEXT, pg_lower, pg_text

__all__ = ["Dialect", "Placement", "PostgreSQL", "SQLite", "dialect_named", "dialect_of"]

Column = Any  # a column or any SQL expression standing for one
#: where ``Dialect.matches`` looks for the value
Placement = Literal["start", "end", "anywhere"]
#: what ``LIKE`` reads as wildcards or its escape (PostgreSQL's default escape is ``\``)
_LIKE_SPECIAL = re.compile(r"[\\%_]")

#: One lock per (link table, target): the two-key form, apart from the one-key locks.
_LOCK_TARGETS = text(
    "SELECT pg_advisory_xact_lock(:table_key, target) "
    "FROM unnest(CAST(:targets AS integer[])) AS target"
)
_LOCK = text("SELECT pg_advisory_xact_lock(:key)")


class Dialect(ABC):
    """The SQL and behaviour one database needs; ``SQLite`` and ``PostgreSQL`` below."""

    #: SQLAlchemy's backend name (``sqlite``, ``postgresql``)
    name: ClassVar[str]
    #: the database is a file on this machine, not a server to connect to (``db/probe.py``)
    local_file: ClassVar[bool]
    #: array values and aggregates (``array_agg``, ``= ANY``): an update's relation targets are
    #: read by the ``UPDATE … RETURNING`` that takes the entry's row lock (``entries/writer.py``)
    has_arrays: ClassVar[bool]
    #: rows of several tables read in one statement as ``jsonb`` (the populated relations and
    #: components of a level, ``query/populate.py``); otherwise one statement per table
    json_rows: ClassVar[bool]
    #: triggers send ``NOTIFY`` and a listener hears other processes' writes (``db/notify.py``)
    notifies: ClassVar[bool]
    #: reads run in autocommit (no ``BEGIN``/``COMMIT`` round trips, ``Database.read``)
    reads_in_autocommit: ClassVar[bool]
    #: an index added to an existing table is built after the sync's transaction, without
    #: holding the table's writes (``CREATE INDEX CONCURRENTLY``, ``db/sync.py``)
    builds_indexes_concurrently: ClassVar[bool]
    #: takes a transaction-scoped lock per ``(table_key, target)`` of ``targets`` (sorted and
    #: distinct, so two transactions never wait for each other in a circle); ``None`` where
    #: writers already take turns (``entries/relation_store.py``)
    target_locks: ClassVar[Executable | None]

    # ------------------------------------------------------------ engine

    @abstractmethod
    def engine_options(
        self, url: URL, *, busy_timeout: float, statement_timeout: float
    ) -> dict[str, Any]:
        """``create_async_engine``'s options for this database (pool, connect arguments)."""

    @abstractmethod
    def install(self, engine: Engine, *, busy_timeout: float) -> None:
        """Set up each new connection of ``engine`` (and how it begins transactions)."""

    @abstractmethod
    async def for_writing(self, conn: AsyncConnection) -> AsyncConnection:
        """``conn``, ready to begin a write transaction."""

    @abstractmethod
    def side_engine(self, engine: AsyncEngine) -> AsyncEngine:
        """An engine for best-effort writes beside the requests (``auth/token_usage.py``);
        ``engine`` itself where sharing its pool costs nothing."""

    @abstractmethod
    async def vacuum(self, conn: AsyncConnection, tables: Sequence[Table]) -> None:
        """Reclaim the dead rows of ``tables``, queues whose rows are updated and deleted all
        the time, on an autocommit connection (``Database.read()``)."""

    # ------------------------------------------------------------ locks and upserts

    @abstractmethod
    async def lock(self, conn: AsyncConnection, key: int) -> None:
        """Serialise the transactions that take ``key`` until each ends."""

    @abstractmethod
    async def follow_ids(self, conn: AsyncConnection, table: Table) -> None:
        """After rows were written with their own ids (an import), the next id generated for
        ``table`` follows the largest one."""

    @abstractmethod
    def lock_schema(self, connection: Connection, key: int) -> None:
        """At the start of the start-up sync's transaction: one sync at a time, and no
        statement timeout (``db/sync.py``)."""

    @abstractmethod
    def insert(self, table: Table) -> Any:
        """``INSERT`` with ``on_conflict_do_update`` (an upsert)."""

    # ------------------------------------------------------------ expressions

    @abstractmethod
    def matches(self, column: Column, value: str, where: Placement) -> ColumnElement[bool]:
        """Whether ``column`` holds ``value`` literally (no wildcards), case-sensitively, at its
        start, its end or anywhere: ``$startsWith``, ``$endsWith``, ``$contains``."""

    @abstractmethod
    def lower(self, column: Column) -> Column:
        """``column`` folded as PostgreSQL's ``lower()`` (``pg_lower`` folds the values)."""

    @abstractmethod
    def byte_order(self, column: Column) -> Column:
        """A string column compared byte-wise (sorts, and the ``MIN``/``MAX`` of them)."""

    @abstractmethod
    def text_of(self, column: Column, kind: str) -> Column:
        """A column of attribute type ``kind`` as PostgreSQL's text of it (``db/pgtext.py``)."""

    @abstractmethod
    def json_sortable(self, column: Column) -> Column:
        """What compares (and sorts) a JSON column in ``jsonb``'s order (``db/jsonb.py``)."""

    @abstractmethod
    def json_value(self, value: Any) -> Column:
        """``JSON.stringify(value)`` as an operand of ``json_sortable``."""

    @abstractmethod
    def json_text(self, column: Column) -> Column:
        """A JSON column as ``jsonb``'s text (``{"a": 1}``, with its spaces)."""

    def extreme(self, column: Column, descending: bool) -> Column:
        """The ``MAX`` (``descending``) or ``MIN`` of ``column``."""
        return func.max(column) if descending else func.min(column)

    def json_extreme(self, column: Column, descending: bool) -> Column:
        """``extreme`` of a ``json_sortable`` column."""
        return self.extreme(column, descending)

    def boolean_extreme(self, column: Column, descending: bool) -> Column:
        """``extreme`` of a boolean column (false < true)."""
        return self.extreme(column, descending)

    @abstractmethod
    def among(
        self, column: Column, values: Sequence[Any] | None = None, *, name: str = "ids"
    ) -> Column:
        """``column IN values``; without ``values`` a parameter ``name``, bound when the
        statement runs."""

    def range_operand(self, column: Column, value: Any) -> Any:
        """The operand of a range comparison (``$lt``, ``$lte``, ``$gt``, ``$gte``,
        ``$between``) of ``column``: a parameter, unless the database plans better without."""
        return value

    def comparand(self, column: Column, value: Any) -> Any:
        """The operand of an equality (``$eq``, ``$ne``) of ``column``: the value as it is,
        unless the database would compare it as another type than the column's."""
        return value

    def comparands(self, column: Column, values: Sequence[Any]) -> Any:
        """The list of ``$in`` / ``$notIn`` (or ``$eq`` given a list) of ``column``, as
        ``comparand`` treats one value."""
        return values


class SQLite(Dialect):
    """A local file: writers take turns (``BEGIN IMMEDIATE``), so locks are no-ops; what
    PostgreSQL prints and orders is computed by functions registered on each connection."""

    name = "sqlite"
    builds_indexes_concurrently = False
    local_file = True
    has_arrays = False
    target_locks = None  # writers already run one at a time (BEGIN IMMEDIATE)
    json_rows = False
    notifies = False
    reads_in_autocommit = False

    def engine_options(
        self, url: URL, *, busy_timeout: float, statement_timeout: float
    ) -> dict[str, Any]:
        database = url.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        return {"connect_args": {"timeout": busy_timeout}}

    def install(self, engine: Engine, *, busy_timeout: float) -> None:
        busy_ms = int(busy_timeout * 1000)

        @event.listens_for(engine, "connect")
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

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
            conn.exec_driver_sql(f"BEGIN {mode}")

    async def for_writing(self, conn: AsyncConnection) -> AsyncConnection:
        # two concurrent writers queue on the busy timeout instead of failing when one
        # upgrades its read lock
        return await conn.execution_options(sqlite_begin="IMMEDIATE")

    def side_engine(self, engine: AsyncEngine) -> AsyncEngine:
        return engine  # connections to a local file: nothing to spare

    async def lock(self, conn: AsyncConnection, key: int) -> None:
        return None  # writers already run one at a time (BEGIN IMMEDIATE)

    async def follow_ids(self, conn: AsyncConnection, table: Table) -> None:
        return None  # SQLite's next rowid is already the largest one plus one

    async def vacuum(self, conn: AsyncConnection, tables: Sequence[Table]) -> None:
        """Nothing: SQLite keeps no dead row versions (a deleted row's page is reused)."""

    def lock_schema(self, connection: Connection, key: int) -> None:
        return None

    def insert(self, table: Table) -> Any:
        return sqlite.insert(table)

    def matches(self, column: Column, value: str, where: Placement) -> ColumnElement[bool]:
        # SQLite's LIKE ignores case: positions and substrings instead
        if where == "anywhere":
            return func.instr(column, value) > 0
        if where == "start":
            return func.substr(column, 1, len(value)) == value
        if not value:
            return column.is_not(None)
        return func.substr(column, func.length(column) - len(value) + 1) == value

    def lower(self, column: Column) -> Column:
        # SQLite's lower() folds ASCII only: `$containsi=é` must find `Éditions`
        return getattr(func, SQLITE_LOWER)(column)

    def byte_order(self, column: Column) -> Column:
        return column  # SQLite's BINARY collation

    def text_of(self, column: Column, kind: str) -> Column:
        if kind in ("integer", "biginteger", "date"):
            return cast(column, String)  # SQLite prints integers and stores dates as PostgreSQL
        return getattr(func, SQLITE_PG_TEXT)(literal(kind), column, type_=String)

    def json_sortable(self, column: Column) -> Column:
        return getattr(func, SQLITE_JSONB_KEY)(column, type_=LargeBinary)

    def json_value(self, value: Any) -> Column:
        return literal(jsonb_key(json_text(value)), LargeBinary)

    def json_text(self, column: Column) -> Column:
        return getattr(func, SQLITE_JSONB_OUT)(column, type_=Text)

    def among(
        self, column: Column, values: Sequence[Any] | None = None, *, name: str = "ids"
    ) -> Column:
        if values is None:
            return column.in_(bindparam(name, expanding=True))
        return column.in_(list(values))


class PostgreSQL(Dialect):
    """Strapi's own database: its types, functions and locks as they are."""

    name = "postgresql"
    builds_indexes_concurrently = True
    local_file = False
    has_arrays = True
    target_locks = _LOCK_TARGETS
    json_rows = True
    notifies = True
    reads_in_autocommit = True

    async def vacuum(self, conn: AsyncConnection, tables: Sequence[Table]) -> None:
        """``VACUUM``, skipping a table another process is vacuuming: autovacuum's default
        thresholds (a fifth of a table dead) let a queue's index fill with entries of rows
        that left it, which each look for work then walks (and it may be off)."""
        names = ", ".join(conn.dialect.identifier_preparer.format_table(t) for t in tables)
        await conn.exec_driver_sql(f"VACUUM (SKIP_LOCKED) {names}")

    def engine_options(
        self, url: URL, *, busy_timeout: float, statement_timeout: float
    ) -> dict[str, Any]:
        # Up to 20 connections, each kept once opened. Not 10 plus 10 "overflow": SQLAlchemy
        # closes an overflow connection as soon as it is returned, so a worker with more
        # than 10 requests in flight (the accept split between workers is uneven: 11 of 16
        # benchmark connections on one worker) opened and closed a connection per request
        # — a new backend, statements prepared and planned on cold caches: 160 new sessions
        # in 10 s and the deep filter's p99 at 190-300 ms (docs/benchmarks.md).
        # No pre-ping: it costs a round trip per checkout. A connection the server dropped
        # fails its statement once; SQLAlchemy then invalidates the whole pool, and
        # connections older than the recycle age are replaced before use.
        # Last in, first out: the connection a request gets is the one returned last, so
        # under a concurrency of c only about c connections are in use and the rest stay
        # idle. Taken in turn (SQLAlchemy's default), every connection ran every query: a
        # new query was prepared on each of the 20 (a round trip each), and each kept its
        # own copy of every statement in its cache.
        options: dict[str, Any] = {
            "pool_size": 20,
            "max_overflow": 0,
            "pool_recycle": 1800,
            "pool_use_lifo": True,
        }
        # Set when each connection opens, so they hold for every statement on it —
        # SQLAlchemy's and the kept statements run on asyncpg directly (driver.py).
        # No JIT: PostgreSQL compiles a statement whose estimated cost passes 100,000 to
        # machine code at every run, and a list page's filter through a repeatable component
        # is estimated that high (its correlated sub-plans, per row) while it runs in 2 ms:
        # 12.8 of its 32 ms went to compiling (bench/results/random-queries.md). Statements
        # of a content API are short; JIT pays off only for long analytical scans.
        settings = {"jit": "off"}
        if statement_timeout > 0:
            # A statement cancelled by it (SQLSTATE 57014) answers 503 (db/outage.py).
            settings["statement_timeout"] = str(max(1, round(statement_timeout * 1000)))
        options["connect_args"] = {"server_settings": settings}
        return options

    def install(self, engine: Engine, *, busy_timeout: float) -> None:
        return None

    async def for_writing(self, conn: AsyncConnection) -> AsyncConnection:
        return conn

    def side_engine(self, engine: AsyncEngine) -> AsyncEngine:
        # Opened per use: taken from the request pool, a side write would grow the pool, and
        # requests would then alternate between connections whose prepared statements differ.
        return create_async_engine(engine.url, poolclass=NullPool)

    async def lock(self, conn: AsyncConnection, key: int) -> None:
        await conn.execute(_LOCK, {"key": key})

    async def follow_ids(self, conn: AsyncConnection, table: Table) -> None:
        await conn.execute(
            text(
                "SELECT setval(pg_get_serial_sequence(:table, 'id'), "
                f'COALESCE((SELECT MAX(id) FROM "{table.name}"), 0) + 1, false)'
            ),
            {"table": f'"{table.name}"'},
        )

    def lock_schema(self, connection: Connection, key: int) -> None:
        # Migrations and index builds on a large table (and waiting for another process's)
        # may rightly take long: the statement timeout is for requests
        # (CONTENTAPI_STATEMENT_TIMEOUT), not for this transaction.
        connection.execute(text("SET LOCAL statement_timeout = 0"))
        connection.execute(_LOCK, {"key": key})

    def insert(self, table: Table) -> Any:
        return postgresql.insert(table)

    def matches(self, column: Column, value: str, where: Placement) -> ColumnElement[bool]:
        # `LIKE` with the value's wildcards escaped, the pattern written into the statement:
        # PostgreSQL estimates a constant prefix or infix from the column's statistics (and can
        # serve a prefix from a `text_pattern_ops` index). As a parameter, or as `substr(…) =`,
        # it guesses one row, and the generic plan it settles on after five runs probed the
        # tags of every book for `filters[author][name][$startsWith]=A` (28 ms instead of
        # 0.4: docs/benchmarks.md, "The related-attribute family").
        escaped = _LIKE_SPECIAL.sub(r"\\\g<0>", value)
        pattern = {"start": f"{escaped}%", "end": f"%{escaped}", "anywhere": f"%{escaped}%"}
        return column.like(bindparam(None, pattern[where], String(), literal_execute=True))

    def range_operand(self, column: Column, value: Any) -> Any:
        # A number or string written into the statement, as `matches` writes its patterns: a
        # prepared statement's generic plan estimates a range parameter at a third of the rows,
        # and PostgreSQL settles on it after five runs when the custom plans cost more — then
        # `filters[chapters][pages][$gt]=30` walked every book's components: 13 ms a request
        # from the sixth on, 1.3 ms before (docs/benchmarks.md, "Generic plans of range
        # filters"). A kept statement renders it once (`db/driver.py`). Dates, times and other
        # values stay parameters.
        if _renders_literally(column.type, value):
            return bindparam(None, value, column.type, literal_execute=True)
        return value

    def comparand(self, column: Column, value: Any) -> Any:
        # A decimal column compared with a float parameter is cast to double precision
        # (SQLAlchemy types a Python float ``FLOAT`` against ``numeric``): no index on it
        # serves `price = $1::FLOAT`, and the comparison is a float's where Strapi's is
        # the decimal's. A ``NUMERIC`` parameter keeps both (docs/benchmarks.md).
        if _exact_decimal(column.type, value):
            return bindparam(None, _decimal(value), Numeric())
        return value

    def comparands(self, column: Column, values: Sequence[Any]) -> Any:
        if values and all(_exact_decimal(column.type, value) for value in values):
            exact = [_decimal(value) for value in values]
            return bindparam(None, exact, Numeric(), expanding=True)
        return values

    def lower(self, column: Column) -> Column:
        return func.lower(column)

    def byte_order(self, column: Column) -> Column:
        return column.collate("C")

    def text_of(self, column: Column, kind: str) -> Column:
        return cast(column, String)

    def json_sortable(self, column: Column) -> Column:
        return column

    def json_value(self, value: Any) -> Column:
        return cast(literal(json_text(value), Text), postgresql.JSONB)

    def json_text(self, column: Column) -> Column:
        return cast(column, String)

    def json_extreme(self, column: Column, descending: bool) -> Column:
        # no min/max(jsonb): the first value in jsonb's order
        ordered = column.desc().nulls_last() if descending else column.asc().nulls_last()
        return func.array_agg(postgresql.aggregate_order_by(column, ordered))[1]

    def boolean_extreme(self, column: Column, descending: bool) -> Column:
        # no min/max(boolean): `bool_and` is the minimum (false < true), `bool_or` the maximum
        return func.bool_or(column) if descending else func.bool_and(column)

    def among(
        self, column: Column, values: Sequence[Any] | None = None, *, name: str = "ids"
    ) -> Column:
        # `= ANY($1::INTEGER[])`: one statement text whatever the number of values, so
        # asyncpg's prepared statement is reused, SQLAlchemy renders no expanding parameter
        # per call, and the statement can run straight on the driver (``db/driver.py``)
        if values is None:
            return column == any_(bindparam(name, type_=ARRAY(column.type)))
        return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))


_DIALECTS: dict[str, Dialect] = {dialect.name: dialect for dialect in (SQLite(), PostgreSQL())}


def dialect_named(name: str) -> Dialect:
    """The dialect of SQLAlchemy's backend ``name`` (``KeyError`` for another database)."""
    return _DIALECTS[name]


def dialect_of(conn: AsyncConnection | Connection) -> Dialect:
    """The dialect ``conn`` speaks."""
    return _DIALECTS[conn.dialect.name]


def _exact_decimal(kind: Any, value: Any) -> bool:
    """Whether ``value`` is a number compared with a column of type ``kind`` that holds exact
    decimals (``numeric``, not ``double precision``)."""
    affinity = getattr(kind, "_type_affinity", None)
    if affinity is None or not issubclass(affinity, Numeric) or issubclass(affinity, Float):
        return False
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _decimal(value: int | float) -> Decimal:
    """The decimal a filter's number reads as (its shortest text: ``8.25``, not the float's
    binary expansion)."""
    return Decimal(repr(value))


def _renders_literally(kind: Any, value: Any) -> bool:
    """Whether ``value`` is a number or string that a column of type ``kind`` writes
    literally as itself (``Integer``, ``Float``, ``Numeric``, ``String`` and their kin)."""
    affinity = getattr(kind, "_type_affinity", None)
    if isinstance(value, bool) or affinity is None:
        return False
    if issubclass(affinity, String):
        return isinstance(value, str)
    if issubclass(affinity, Integer):
        return isinstance(value, int)
    if issubclass(affinity, Float | Numeric):
        if isinstance(value, float):
            return math.isfinite(value)
        if isinstance(value, Decimal):
            return value.is_finite()
        return isinstance(value, int)
    return False
