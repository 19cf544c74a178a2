"""i18n localizations: entries of one content type in several locales, linked as a group.

A localization is created from an existing entry: it takes the entry's non-localized scalar
attributes where the request has none (the request's win), starts as a draft (as in Strapi),
and is linked both ways to every member of the group; then its non-localized values are copied
onto every member — the new entry's, not the source's, as Strapi 4.25's i18n plugin does
(``syncNonLocalizedAttributes`` after ``entityService.create``).

An update copies only where Strapi's does: ``syncNonLocalizedAttributes`` reads the updated
entry *as the request populated it*, so a REST ``PUT`` copies the non-localized values the
answer selects (``fields``) to the localizations the answer populates (``populate`` naming
``localizations``, or ``*``), and a plain ``PUT`` or a GraphQL update copies nothing.
Each copy bumps the member's ``updatedAt`` (Strapi copies through ``entityService.update``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.entries.writer import row_values
from contentapi.query.compile import localizations_link
from contentapi.schema.model import ContentType, ScalarAttribute

__all__ = ["copy_non_localized", "group_ids", "link_group", "non_localized", "shared_columns"]


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


def shared_columns(content_type: ContentType, fields: Sequence[str] | None) -> list[str]:
    """The non-localized columns an entry read with ``fields`` carries — what Strapi's
    ``copyNonLocalizedAttributes`` picks from it (private ones too: Strapi's entry is not yet
    sanitized; with ``fields`` only those named, which never name a private attribute)."""
    return [
        attribute.column
        for attribute in non_localized(content_type)
        if fields is None or attribute.name in fields
    ]


async def copy_non_localized(
    conn: AsyncConnection,
    tables: Any,
    content_type: ContentType,
    source_id: int,
    targets: Sequence[int],
    columns: Sequence[str],
) -> None:
    """Copy ``source_id``'s values of ``columns`` onto ``targets`` (their ``updatedAt`` bumped
    as Strapi's ``entityService.update`` bumps it); nothing when either is empty."""
    wanted = [target for target in targets if target != source_id]
    if not wanted or not columns:
        return
    table = tables.entity(content_type.uid)
    row = (
        (await conn.execute(select(*(table.c[c] for c in columns)).where(table.c.id == source_id)))
        .mappings()
        .one()
    )
    values = {column: row[column] for column in columns}
    values["updated_at"] = datetime.now(UTC).replace(tzinfo=None)
    await conn.execute(
        table.update().where(table.c.id.in_(wanted)).values(row_values(table, values))
    )
