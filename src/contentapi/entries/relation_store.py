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
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, Table, and_, bindparam, func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import dialect_of
from contentapi.schema.model import RelationLink

__all__ = ["LinkRows", "link_rows_statement", "store_relation"]

#: an entry's link rows through one side, in its order: (target id, inverse order or None)
LinkRows = list[tuple[int, Any]]


def _ordered(link: RelationLink, table: Table) -> list[Any]:
    order = [table.c[link.order_column]] if link.order_column else []
    return [*order, table.c.id]


def link_rows_statement(table: Table, link: RelationLink) -> Select[Any]:
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


async def store_relation(
    conn: AsyncConnection,
    table: Table,
    link: RelationLink,
    source_id: int,
    targets: Sequence[int],
    rows: LinkRows,
) -> None:
    """Make ``targets`` (ordered) the related ids of ``source_id`` through this side.
    ``rows``: its current link rows (``link_rows_statement``; none for a new entry)."""
    source, target = table.c[link.source_column], table.c[link.target_column]
    inverse_order = table.c[link.inverse_order_column] if link.inverse_order_column else None
    current = [row[0] for row in rows]
    if current == list(targets):
        return
    kept_inverse_order = {row[0]: row[1] for row in rows} if inverse_order is not None else {}
    current_set = set(current)
    added = [entry_id for entry_id in targets if entry_id not in current_set]
    if added and link.target_to_one:
        await conn.execute(table.delete().where(and_(target.in_(added), source != source_id)))
    if current:
        await conn.execute(table.delete().where(source == source_id))
    if not targets:
        return
    next_inverse_order: dict[int, float] = {}
    if inverse_order is not None and added:
        await _take_turns(conn, table, added)
        found = await conn.execute(
            select(target, func.max(inverse_order)).where(target.in_(added)).group_by(target)
        )
        next_inverse_order = {int(t): float(highest or 0) + 1 for t, highest in found}
    values = []
    for index, entry_id in enumerate(targets, start=1):
        row: dict[str, Any] = {link.source_column: source_id, link.target_column: entry_id}
        if link.order_column:
            row[link.order_column] = float(index)
        if link.inverse_order_column:
            row[link.inverse_order_column] = kept_inverse_order.get(
                entry_id, next_inverse_order.get(entry_id, 1.0)
            )
        values.append(row)
    await conn.execute(table.insert(), values)


async def _take_turns(conn: AsyncConnection, table: Table, targets: Sequence[int]) -> None:
    """Wait for any other transaction appending to these targets' lists (module doc; nothing
    to wait for on SQLite); ids in ascending order, so two writers never wait for each other
    in a circle."""
    table_key = zlib.crc32(table.name.encode()) - 2**31
    await dialect_of(conn).lock_each(conn, table_key, sorted(set(targets)))
