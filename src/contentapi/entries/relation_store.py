"""Writing an entry's final ordered list of related ids to a relation's link table.

Works the same from either side of a relation (``RelationLink`` is the side's view of the
shared table): rows of this entry are replaced by the new list, numbered 1..n in this side's
order column; an added row goes to the end of each target's own list (its inverse order), and a
kept row keeps its inverse order. A target that may belong to only one entry of this side is
first taken away from its previous owner. Callers hold a lock on the entry (see
``EntryService``), so concurrent writes to the same entry serialise and lose nothing.

Writes to *different* entries may append to one target's list at once (twenty articles setting
one author): on PostgreSQL each read the same highest inverse order — neither sees the other's
uncommitted row — and all took place 1. A transaction-scoped advisory lock per (link table,
target), taken in id order before that read, makes them take turns; SQLite's writers already
run one at a time (``BEGIN IMMEDIATE``).

Every statement is built once per link table and side (``LinkStore``) and run through
``KeptStatements``: on PostgreSQL straight on the driver, inside the transaction that holds the
entry's row lock, and the new rows go in as one ``INSERT … SELECT FROM unnest(…)`` of arrays —
one statement whatever their number. SQLite inserts them as an ``executemany``.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ARRAY, Executable, Select, Table, and_, bindparam, func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import Dialect
from contentapi.db.driver import KeptStatements
from contentapi.schema.model import RelationLink

__all__ = ["LinkRows", "LinkStore"]

#: an entry's link rows through one side, in its order: (target id, inverse order or None)
LinkRows = list[tuple[int, Any]]


def _ordered(link: RelationLink, table: Table) -> list[Any]:
    order = [table.c[link.order_column]] if link.order_column else []
    return [*order, table.c.id]


def _current_statement(table: Table, link: RelationLink) -> Select[Any]:
    """The link rows of the entry bound as ``source_id`` through this side, in this side's
    order: ``(target id, inverse order)``, or the target id alone when the other side keeps
    no order."""
    target = table.c[link.target_column]
    inverse_order = table.c[link.inverse_order_column] if link.inverse_order_column else None
    return (
        select(target, *([inverse_order] if inverse_order is not None else []))
        .where(table.c[link.source_column] == bindparam("source_id"))
        .order_by(*_ordered(link, table))
    )


@dataclass(frozen=True, slots=True)
class _LinkStatements:
    """The statements that read and write one side's link rows, bound per call."""

    #: the link rows of ``source_id`` (``_current_statement``)
    current: Executable
    #: the rows of other sources holding any of ``ids`` (a target that belongs to one entry)
    taken: Executable
    #: every row of ``source_id``
    cleared: Executable
    #: the highest inverse order of each of ``ids`` (``None`` when the other side keeps none)
    highest: Executable | None
    #: the new rows, from one array per column (``None`` without arrays: an ``executemany``)
    inserted: Executable | None
    #: the columns of a new row, in the order of ``inserted``'s arrays
    columns: tuple[str, ...]
    #: the key of the table's advisory locks (``_take_turns``)
    lock_key: int


class LinkStore:
    """Writes entries' link rows, each side's statements built once and kept."""

    def __init__(self, dialect: Dialect, kept: KeptStatements) -> None:
        self.dialect = dialect
        #: runs the statements (``db/driver.py``)
        self.kept = kept
        self._statements: dict[tuple[str, str], _LinkStatements] = {}

    async def rows(
        self, conn: AsyncConnection, table: Table, link: RelationLink, source_id: int
    ) -> LinkRows:
        """The entry's link rows through this side, in its order (``store`` starts from
        them)."""
        found = await self.kept.rows(conn, self._for(table, link).current, {"source_id": source_id})
        inverse = link.inverse_order_column is not None
        return [(int(row[0]), row[1] if inverse else None) for row in found]

    async def store(
        self,
        conn: AsyncConnection,
        table: Table,
        link: RelationLink,
        source_id: int,
        targets: Sequence[int],
        rows: LinkRows,
    ) -> None:
        """Make ``targets`` (ordered) the related ids of ``source_id`` through this side.
        ``rows``: its current link rows (``rows``; none for a new entry)."""
        current = [row[0] for row in rows]
        if current == list(targets):
            return
        statements = self._for(table, link)
        kept_inverse_order = (
            {row[0]: row[1] for row in rows} if statements.highest is not None else {}
        )
        current_set = set(current)
        added = [entry_id for entry_id in targets if entry_id not in current_set]
        if added and link.target_to_one:
            await self.kept.rows(conn, statements.taken, {"ids": added, "source_id": source_id})
        if current:
            await self.kept.rows(conn, statements.cleared, {"source_id": source_id})
        if not targets:
            return
        next_inverse_order: dict[int, float] = {}
        if statements.highest is not None and added:
            await self._take_turns(conn, statements.lock_key, added)
            found = await self.kept.rows(conn, statements.highest, {"ids": added})
            next_inverse_order = {int(t): float(highest or 0) + 1 for t, highest in found}
        values: dict[str, list[Any]] = {column: [] for column in statements.columns}
        for index, entry_id in enumerate(targets, start=1):
            values[link.source_column].append(source_id)
            values[link.target_column].append(entry_id)
            if link.order_column:
                values[link.order_column].append(float(index))
            if link.inverse_order_column:
                values[link.inverse_order_column].append(
                    kept_inverse_order.get(entry_id, next_inverse_order.get(entry_id, 1.0))
                )
        if statements.inserted is not None:
            await self.kept.rows(conn, statements.inserted, values)
        else:
            await conn.execute(table.insert(), _row_dicts(values))

    async def _take_turns(
        self, conn: AsyncConnection, lock_key: int, targets: Sequence[int]
    ) -> None:
        """Wait for any other transaction appending to these targets' lists (module doc; nothing
        to wait for on SQLite); ids in ascending order, so two writers never wait for each other
        in a circle."""
        statement = self.dialect.target_locks
        if statement is not None:
            parameters = {"table_key": lock_key, "targets": sorted(set(targets))}
            await self.kept.rows(conn, statement, parameters)

    def _for(self, table: Table, link: RelationLink) -> _LinkStatements:
        key = (table.name, link.source_column)
        found = self._statements.get(key)
        if found is None:
            found = self._statements[key] = self._build(table, link)
        return found

    def _build(self, table: Table, link: RelationLink) -> _LinkStatements:
        source, target = table.c[link.source_column], table.c[link.target_column]
        source_id = bindparam("source_id", type_=source.type)
        highest = None
        if link.inverse_order_column:
            inverse_order = table.c[link.inverse_order_column]
            highest = (
                select(target, func.max(inverse_order))
                .where(self.dialect.among(target))
                .group_by(target)
            )
        columns = tuple(
            column
            for column in (
                link.source_column,
                link.target_column,
                link.order_column,
                link.inverse_order_column,
            )
            if column
        )
        inserted = None
        if self.dialect.has_arrays:
            arrays = [bindparam(name, type_=ARRAY(table.c[name].type)) for name in columns]
            unnested = func.unnest(*arrays).table_valued(*columns).render_derived()
            inserted = table.insert().from_select(
                list(columns), select(*(unnested.c[name] for name in columns))
            )
        return _LinkStatements(
            current=_current_statement(table, link),
            taken=table.delete().where(and_(self.dialect.among(target), source != source_id)),
            cleared=table.delete().where(source == source_id),
            highest=highest,
            inserted=inserted,
            columns=columns,
            lock_key=zlib.crc32(table.name.encode()) - 2**31,
        )


def _row_dicts(columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Rows from one list of values per column (all of one length)."""
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]
