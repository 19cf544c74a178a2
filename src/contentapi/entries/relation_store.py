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
entry's row lock. There the new rows go in as one ``INSERT … SELECT FROM unnest(…)`` of arrays
(one statement whatever their number) that also numbers the added targets' inverse order from
their highest and, where the entry had rows, deletes those first (``WITH gone AS (DELETE …)``,
which the ``INSERT`` waits for: a row deleted by its own statement is no conflict for the
unique index). An update that connects reads the entry's link rows in the statement that also
locks the connected targets' lists (``_locking_current``). A PUT that connects one tag and
disconnects another sent seven statements between ``BEGIN`` and ``COMMIT``; it sends four. The
highest inverse order is still read after the advisory lock, by a statement started after it
was granted, so it sees the rows of the writer it waited for. SQLite reads the highest orders,
deletes and inserts (an ``executemany``) one statement after the other.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ARRAY,
    Boolean,
    Executable,
    Integer,
    Select,
    Table,
    and_,
    bindparam,
    case,
    func,
    literal_column,
    null,
    select,
    union_all,
)

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


def _locking_current(table: Table, link: RelationLink) -> Executable:
    """``_current_statement`` that first locks the lists of the targets bound as ``targets``
    (sorted: ``_take_turns``), PostgreSQL's ``UNION ALL`` of the link rows and one row that
    counts the locks taken: an aggregate always gives its row, so the locks are taken even for
    an entry without link rows (that row, its target NULL, is left out of the answer). The
    locks may be taken after the rows are read: the entry's rows are safe under its row lock,
    and what the locks guard is the highest inverse order, read by the next statement (module
    doc)."""
    target = table.c[link.target_column]
    assert link.inverse_order_column is not None
    ordered = _ordered(link, table)
    rows = select(target, table.c[link.inverse_order_column], *ordered).where(
        table.c[link.source_column] == bindparam("source_id")
    )
    locked = (
        func.unnest(bindparam("targets", type_=ARRAY(Integer())))
        .table_valued("id")
        .render_derived()
    )
    lock = func.pg_advisory_xact_lock(bindparam("table_key", type_=Integer()), locked.c.id)
    locks = select(null(), null(), *[null() for _ in ordered[:-1]], func.count(lock)).select_from(
        locked
    )
    together = union_all(rows, locks).subquery()
    return select(together.c[0], together.c[1]).order_by(
        *[together.c[index] for index in range(2, 2 + len(ordered))]
    )


@dataclass(frozen=True, slots=True)
class _LinkStatements:
    """The statements that read and write one side's link rows, bound per call."""

    #: the link rows of ``source_id`` (``_current_statement``)
    current: Executable
    #: the same, after locking the lists of ``targets`` (``_locking_current``; ``None`` where
    #: the other side keeps no order or the database has no such locks)
    locking_current: Executable | None
    #: the rows of other sources holding any of ``ids`` (a target that belongs to one entry)
    taken: Executable
    #: every row of ``source_id``
    cleared: Executable
    #: the highest inverse order of each of ``ids`` (``None`` when the other side keeps none)
    highest: Executable | None
    #: the new rows, from one array per column and ``added`` (module doc; ``None`` without
    #: arrays: an ``executemany``)
    inserted: Executable | None
    #: ``inserted`` once ``cleared`` has run, in one statement
    replaced: Executable | None
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
        self,
        conn: AsyncConnection,
        table: Table,
        link: RelationLink,
        source_id: int,
        *,
        lock: Sequence[int] = (),
    ) -> tuple[LinkRows, frozenset[int]]:
        """The entry's link rows through this side, in its order (``store`` starts from
        them), and the targets whose lists this statement locked: those of ``lock`` (targets
        the write may add, which ``store`` would lock) where the other side keeps an order and
        the database has the locks — one round trip fewer for a write that connects."""
        statements = self._for(table, link)
        inverse = link.inverse_order_column is not None
        if lock and statements.locking_current is not None:
            targets = sorted(set(lock))
            parameters = {
                "source_id": source_id,
                "table_key": statements.lock_key,
                "targets": targets,
            }
            found = await self.kept.rows(conn, statements.locking_current, parameters)
            # the row counting the locks has no target
            rows = [(int(row[0]), row[1]) for row in found if row[0] is not None]
            return rows, frozenset(targets)
        found = await self.kept.rows(conn, statements.current, {"source_id": source_id})
        return [(int(row[0]), row[1] if inverse else None) for row in found], frozenset()

    async def store(
        self,
        conn: AsyncConnection,
        table: Table,
        link: RelationLink,
        source_id: int,
        targets: Sequence[int],
        rows: LinkRows,
        locked: frozenset[int] = frozenset(),
    ) -> None:
        """Make ``targets`` (ordered) the related ids of ``source_id`` through this side.
        ``rows``: its current link rows, ``locked``: the targets whose lists are locked
        already (both from ``rows``; none for a new entry)."""
        current = [row[0] for row in rows]
        if current == list(targets):
            return
        statements = self._for(table, link)
        current_set = set(current)
        added = [entry_id for entry_id in targets if entry_id not in current_set]
        if added and link.target_to_one:
            await self.kept.rows(conn, statements.taken, {"ids": added, "source_id": source_id})
        if not targets:
            await self.kept.rows(conn, statements.cleared, {"source_id": source_id})
            return
        unlocked = [entry_id for entry_id in added if entry_id not in locked]
        if statements.highest is not None and unlocked:
            await self._take_turns(conn, statements.lock_key, unlocked)
        if statements.inserted is None:
            await self._store_one_by_one(conn, table, link, statements, source_id, targets, rows)
            return
        # a kept target keeps its inverse order; an added one is numbered by the statement
        kept_inverse_order = {row[0]: row[1] for row in rows}
        parameters: dict[str, Any] = self._new_rows(link, source_id, targets, kept_inverse_order)
        if statements.highest is not None:
            parameters["added"] = [entry_id not in current_set for entry_id in targets]
        if current:
            assert statements.replaced is not None
            parameters["source_id"] = source_id
            await self.kept.rows(conn, statements.replaced, parameters)
        else:
            await self.kept.rows(conn, statements.inserted, parameters)

    async def _store_one_by_one(
        self,
        conn: AsyncConnection,
        table: Table,
        link: RelationLink,
        statements: _LinkStatements,
        source_id: int,
        targets: Sequence[int],
        rows: LinkRows,
    ) -> None:
        """``store``'s rows without arrays (SQLite): the old rows deleted, the added targets'
        highest inverse orders read and the new rows inserted, a statement each."""
        kept_inverse_order = {row[0]: row[1] for row in rows}
        added = [entry_id for entry_id in targets if entry_id not in kept_inverse_order]
        if rows:
            await self.kept.rows(conn, statements.cleared, {"source_id": source_id})
        if statements.highest is not None and added:
            found = await self.kept.rows(conn, statements.highest, {"ids": added})
            highest = {int(t): float(value or 0) + 1 for t, value in found}
            kept_inverse_order.update((t, highest.get(t, 1.0)) for t in added)
        values = self._new_rows(link, source_id, targets, kept_inverse_order)
        await conn.execute(table.insert(), _row_dicts(values))

    @staticmethod
    def _new_rows(
        link: RelationLink,
        source_id: int,
        targets: Sequence[int],
        inverse_orders: dict[int, Any],
    ) -> dict[str, Any]:
        """The new link rows as one list per column: this side's order 1..n; the inverse order
        from ``inverse_orders`` (``None`` for a target not in it: numbered by the statement)."""
        values: dict[str, Any] = {link.source_column: [], link.target_column: []}
        if link.order_column:
            values[link.order_column] = []
        if link.inverse_order_column:
            values[link.inverse_order_column] = []
        for index, entry_id in enumerate(targets, start=1):
            values[link.source_column].append(source_id)
            values[link.target_column].append(entry_id)
            if link.order_column:
                values[link.order_column].append(float(index))
            if link.inverse_order_column:
                values[link.inverse_order_column].append(inverse_orders.get(entry_id))
        return values

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
        inserted = replaced = None
        cleared = table.delete().where(source == source_id)
        if self.dialect.has_arrays:
            inserted, replaced = self._inserts(table, link, columns, cleared)
        locking_current = None
        if link.inverse_order_column and self.dialect.target_locks is not None:
            locking_current = _locking_current(table, link)
        return _LinkStatements(
            current=_current_statement(table, link),
            locking_current=locking_current,
            taken=table.delete().where(and_(self.dialect.among(target), source != source_id)),
            cleared=cleared,
            highest=highest,
            inserted=inserted,
            replaced=replaced,
            columns=columns,
            lock_key=zlib.crc32(table.name.encode()) - 2**31,
        )

    @staticmethod
    def _inserts(
        table: Table, link: RelationLink, columns: tuple[str, ...], cleared: Any
    ) -> tuple[Executable, Executable]:
        """The ``INSERT … SELECT FROM unnest(…)`` of new rows, and the same after ``cleared``
        in one statement (module doc)."""
        arrays = [bindparam(name, type_=ARRAY(table.c[name].type)) for name in columns]
        names = list(columns)
        if link.inverse_order_column:
            arrays.append(bindparam("added", type_=ARRAY(Boolean())))
            names.append("added")
        unnested = func.unnest(*arrays).table_valued(*names).render_derived()
        selected: list[Any] = [unnested.c[name] for name in columns]
        if link.inverse_order_column:
            # an added target goes to the end of its own list; a kept one keeps its place
            other = table.alias()
            highest = (
                select(func.max(other.c[link.inverse_order_column]))
                .where(other.c[link.target_column] == unnested.c[link.target_column])
                .scalar_subquery()
            )
            numbered = case(
                (
                    unnested.c.added,
                    func.coalesce(highest, literal_column("0")) + literal_column("1"),
                ),
                else_=unnested.c[link.inverse_order_column],
            )
            selected[columns.index(link.inverse_order_column)] = numbered
        rows = select(*selected)
        inserted = table.insert().from_select(names[: len(columns)], rows)
        gone = cleared.returning(literal_column("1")).cte("gone")
        # the INSERT reads the DELETE's rows first, so the DELETE has run before it inserts
        deleted = select(func.count()).select_from(gone).scalar_subquery()
        after_gone = rows.where(deleted >= literal_column("0"))
        replaced = table.insert().from_select(names[: len(columns)], after_gone).add_cte(gone)
        return inserted, replaced


def _row_dicts(columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Rows from one list of values per column (all of one length)."""
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]
