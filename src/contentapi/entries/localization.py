"""i18n localizations: entries of one content type in several locales, linked as a group.

A localization is created from an existing entry: it takes the entry's non-localized
attributes, its own localized ones from the request, starts as a draft (as in Strapi), and is
linked both ways to every member of the group. Updating a non-localized attribute of one
member updates it on all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.entries.writer import row_values
from contentapi.query.compile import localizations_link
from contentapi.schema.model import ContentType, ScalarAttribute

__all__ = ["group_ids", "link_group", "non_localized", "sync_non_localized"]


def non_localized(content_type: ContentType) -> list[ScalarAttribute]:
    """Scalar attributes shared by every localization of an entry."""
    return [attribute for attribute in content_type.scalars() if not attribute.localized]


async def group_ids(
    conn: AsyncConnection, tables: Any, content_type: ContentType, entry_id: int
) -> list[int]:
    """The other members of an entry's localization group."""
    link = localizations_link(tables, content_type)
    table: Table = tables.localizations[content_type.uid]
    source, target = table.c[link.source_column], table.c[link.target_column]
    rows = await conn.execute(
        select(source, target).where(or_(source == entry_id, target == entry_id))
    )
    members = {int(value) for row in rows for value in row}
    members.discard(entry_id)
    return sorted(members)


async def link_group(
    conn: AsyncConnection,
    tables: Any,
    content_type: ContentType,
    new_id: int,
    members: Sequence[int],
) -> None:
    """Link a new localization to every member, in both directions."""
    link = localizations_link(tables, content_type)
    table: Table = tables.localizations[content_type.uid]
    assert link.order_column is not None
    rows: list[dict[str, Any]] = []
    for order, member in enumerate(members, start=1):
        rows.append(
            {
                link.source_column: new_id,
                link.target_column: member,
                link.order_column: float(order),
            }
        )
        rows.append(
            {
                link.source_column: member,
                link.target_column: new_id,
                link.order_column: float(order),
            }
        )
    if rows:
        await conn.execute(table.insert(), rows)


async def sync_non_localized(
    conn: AsyncConnection,
    tables: Any,
    content_type: ContentType,
    entry_id: int,
    columns: dict[str, Any],
) -> None:
    """Copy the non-localized values just written to every other localization."""
    shared = {a.column for a in non_localized(content_type)}
    values = {column: value for column, value in columns.items() if column in shared}
    if not values:
        return
    members = await group_ids(conn, tables, content_type, entry_id)
    if members:
        table = tables.entity(content_type.uid)
        await conn.execute(
            table.update().where(table.c.id.in_(members)).values(row_values(table, values))
        )
