"""Kept read statements sent straight to asyncpg: the rows of a built statement, for less CPU.

The read path builds its statements once and keeps them (a list page per query, one entry per
type, populated relations and components per model). SQLAlchemy still does a lot per
execution around the driver's own work: its cache-key lookup, an execution context, the
cursor adapter, result metadata. Measured on one kept ``SELECT`` by id on this machine
(``bench/driver_micro.py``): 108 µs of CPU through ``AsyncConnection.execute``, 49 µs
through asyncpg alone. A request with ``populate=*`` runs nine of them.

``KeptStatements.rows`` compiles a kept statement once (its SQL, the order of its parameters,
its bind and result processors: the same ones SQLAlchemy would apply) and then runs it on the
connection's asyncpg connection, through the prepared statement SQLAlchemy's adapter keeps
for that SQL — so no extra PREPARE round trip and one cache for both paths. It does so for
connections in autocommit (``Database.read()`` on PostgreSQL) and inside a transaction
SQLAlchemy has begun (a write's statements): where the driver has not sent its ``BEGIN`` yet
it is sent first, as SQLAlchemy's adapter does before its own first statement. An expanding
``IN`` (``filters[tags][name][$in]``) is spread once, with the values the statement was built
with, into one positional parameter per value. Such a statement used to take SQLAlchemy's
path at every run: the related-attribute filter cost 1.9 ms of CPU a request, now 1.1 ms. On
SQLite, for a run that passes a value of its own for an expanding parameter, and after any
error, the ordinary path runs, so errors are raised, translated and the pool invalidated as
before.
Statements are counted like every other (``StatementCounter``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Executable

from contentapi.caching import COMPILED_STATEMENTS, BoundedCache
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.counter import StatementCounter

__all__ = ["KeptStatements"]

log = logging.getLogger(__name__)

Processor = Callable[[Any], Any]
#: a result column's position and the processor its values go through
_Processed = tuple[int, Processor]

_DOLLAR_PARAMETER = re.compile(r"\$(\d+)")


@dataclass(frozen=True, slots=True)
class _Compiled:
    """What running one kept statement on asyncpg needs, derived once from SQLAlchemy's
    compiled form; ``results`` is filled at the first run (it depends on the column types the
    server reports)."""

    sql: str
    compiled: Any
    names: tuple[str, ...]
    bind_processors: Mapping[str, Processor]
    keys: tuple[str, ...]
    #: the values of the positional parameters an expanding ``IN`` was spread into
    spread_values: Mapping[str, Any]
    #: the names of those expanding parameters: a run that passes one takes SQLAlchemy's path
    spread: frozenset[str]


def _asyncpg_connection_class() -> type:
    from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection

    return AsyncAdapt_asyncpg_connection


class KeptStatements:
    """Rows of kept statements: through asyncpg on PostgreSQL in autocommit, else SQLAlchemy.

    ``rows`` and ``mappings`` must only be given statements that the caller keeps and reuses
    (compiling costs about as much as a few hundred executions); a statement built for one
    request goes through ``conn.execute`` as usual.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        # SQLAlchemy's asyncpg adapter is used for its prepared statement cache and its
        # execution lock; without them (another version's internals) everything takes the
        # ordinary path.
        self.enabled = (
            dialect.driver == "asyncpg"
            and hasattr(dialect, "_invalidate_schema_cache_asof")
            and hasattr(_asyncpg_connection_class(), "_prepare")
        )
        #: by ``id(statement)``: the statement (kept alive, so its id is not reused while
        #: here, and compared) and its compiled form, ``None`` where it cannot run on asyncpg
        self._compiled: BoundedCache[int, tuple[Executable, _Compiled | None]] = BoundedCache(
            COMPILED_STATEMENTS
        )
        #: statements run through asyncpg, and those that failed there and ran again through
        #: SQLAlchemy (tests assert the first grows and the second stays 0)
        self.driver_runs = 0
        self.fallbacks = 0
        #: result processors by (SQL, column type oids)
        self._results: dict[tuple[str, tuple[int, ...]], tuple[_Processed, ...] | None] = {}

    async def rows(
        self,
        conn: AsyncConnection,
        statement: Executable,
        parameters: Mapping[str, Any] | None = None,
    ) -> Sequence[Sequence[Any]]:
        """The rows of ``statement`` as sequences, columns in the statement's order."""
        compiled = self._ready(statement) if self.enabled else None
        if compiled is not None and parameters and not compiled.spread.isdisjoint(parameters):
            compiled = None  # its own values for a spread ``IN``: rendered by SQLAlchemy
        if compiled is not None:
            adapted = conn.sync_connection.connection.dbapi_connection  # type: ignore[union-attr]
            autocommit = getattr(adapted, "isolation_level", None) == "autocommit"
            # SQLAlchemy has begun a transaction the driver has not: the adapter sends BEGIN
            # with its first statement, so a write's first statement may be a kept one
            in_transaction = not autocommit and conn.in_transaction()
            if in_transaction or autocommit:
                try:
                    rows = await self._run(adapted, compiled, parameters or {}, in_transaction)
                except Exception as error:  # the ordinary path raises it as SQLAlchemy would
                    self.fallbacks += 1
                    if in_transaction:  # there the second try fails as "transaction aborted"
                        log.warning("a kept statement failed in a transaction: %r", error)
                else:
                    self.driver_runs += 1
                    return rows
        result = await conn.execute(statement, parameters)
        return result.all() if result.returns_rows else []  # an INSERT without RETURNING

    async def mappings(
        self,
        conn: AsyncConnection,
        statement: Executable,
        parameters: Mapping[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The rows of ``statement`` as dicts keyed by the selected columns' keys."""
        compiled = self._ready(statement) if self.enabled else None
        if compiled is None:
            return [dict(row) for row in (await conn.execute(statement, parameters)).mappings()]
        keys = compiled.keys
        return [
            dict(zip(keys, row, strict=True))
            for row in await self.rows(conn, statement, parameters)
        ]

    def _ready(self, statement: Executable) -> _Compiled | None:
        key = id(statement)
        found = self._compiled.get(key)
        if found is not None and found[0] is statement:
            return found[1]
        # ``None`` (cannot run on the driver) is kept too; an id reused by another statement
        # (the first one was dropped) is compiled again
        compiled = self._compile(statement)
        self._compiled.put(key, (statement, compiled))
        return compiled

    def _compile(self, statement: Executable) -> _Compiled | None:
        """The statement's SQL and parameter order, or ``None`` where it is not in the
        one-name-per-position form this runner sends.

        Post-compile parameters are rendered here, once: a kept statement is built for one
        request's values and kept with them, so its SQL is the same at every run. The
        literal-execute ones (the values ``Dialect.matches`` and ``Dialect.range_operand``
        write into a statement) become literals; an expanding one (an ``IN`` list) becomes a
        positional parameter per value, with those values. They are anonymous parameters
        (``bindparam(None, …)``), which no run passes a value for (``rows`` checks)."""
        compiled: Any = statement.compile(dialect=self.dialect)  # type: ignore[attr-defined]
        sql, names = compiled.string, tuple(compiled.positiontup or ())
        processors: Mapping[str, Processor] = compiled._bind_processors
        spread_values: dict[str, Any] = {}
        spread: frozenset[str] = frozenset()
        if compiled.post_compile_params or compiled.literal_execute_params:
            rendered = compiled.construct_expanded_state(compiled.construct_params(_check=False))
            sql, names = rendered.statement, tuple(rendered.positiontup or ())
            processors = {**processors, **rendered.processors}
            expansion: Mapping[str, list[str]] = rendered.parameter_expansion
            spread_values = {
                name: rendered.parameters[name]
                for spread_names in expansion.values()
                for name in spread_names
            }
            spread = frozenset(expansion)
        numbers = {int(n) for n in _DOLLAR_PARAMETER.findall(sql)}
        if numbers != set(range(1, len(names) + 1)):
            return None
        keys = tuple(column.keyname for column in compiled._result_columns)
        return _Compiled(
            sql=sql,
            compiled=compiled,
            names=names,
            bind_processors=processors,
            keys=keys,
            spread_values=spread_values,
            spread=spread,
        )

    async def _run(
        self,
        adapted: Any,
        compiled: _Compiled,
        parameters: Mapping[str, Any],
        in_transaction: bool = False,
    ) -> Sequence[Sequence[Any]]:
        values = compiled.compiled.construct_params(parameters)
        if compiled.spread_values:
            values = {**values, **compiled.spread_values}
        processors = compiled.bind_processors
        arguments = [
            processors[name](values[name]) if name in processors else values[name]
            for name in compiled.names
        ]
        StatementCounter.record(compiled.sql, tuple(arguments))
        async with adapted._execute_mutex:
            if in_transaction and adapted._transaction is None:
                await adapted._start_transaction()  # BEGIN, as the adapter's own execute does
            prepared, attributes = await adapted._prepare(
                compiled.sql,
                self.dialect._invalidate_schema_cache_asof,  # type: ignore[attr-defined]
            )
            records = await prepared.fetch(*arguments)
        processed = self._result_processors(compiled, attributes)
        if processed is None:
            return records
        # only the columns that have a processor are touched: 5,000 rows of four columns
        # (``price`` the one numeric) took 9.0 ms through a generator over every value of
        # every row, 1.9 ms this way (timeit, tuples standing in for asyncpg's records)
        rows: list[tuple[Any, ...]] = []
        for record in records:
            row = list(record)
            for index, process in processed:
                row[index] = process(row[index])
            rows.append(tuple(row))
        return rows

    def _result_processors(
        self, compiled: _Compiled, attributes: Sequence[Any]
    ) -> tuple[_Processed, ...] | None:
        """SQLAlchemy's result processors for the columns that have one (e.g. ``numeric`` to
        float), with the column's position; ``None`` when no column has one."""
        oids = tuple(attribute.type.oid for attribute in attributes)
        key = (compiled.sql, oids)
        try:
            return self._results[key]
        except KeyError:
            pass
        columns = compiled.compiled._result_columns
        if not columns:  # a textual statement: its rows as the driver gives them
            self._results[key] = None
            return None
        processors = tuple(
            column.type._cached_result_processor(self.dialect, oid)
            for column, oid in zip(columns, oids, strict=True)
        )
        found = tuple(
            (index, process) for index, process in enumerate(processors) if process is not None
        )
        self._results[key] = found or None
        return found or None
