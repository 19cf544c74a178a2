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
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, or_, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.entries.row_values import row_values
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.query.compile import localizations_link
from contentapi.query.parse import LOCALIZATIONS
from contentapi.query.populate import Populator
from contentapi.schema.model import ContentType, ScalarAttribute

__all__ = [
    "copy_non_localized",
    "group_ids",
    "link_group",
    "non_localized",
    "shared_columns",
    "sync_populated_localizations",
]


def non_localized(content_type: ContentType) -> list[ScalarAttribute]:
    """Scalar attributes shared by every localization of an entry."""
    return [attribute for attribute in content_type.scalars() if not attribute.localized]


async def group_ids(
    conn: AsyncConnection, tables: Any, content_type: ContentType, entry_id: int
) -> list[int]:
    """The other members of an entry's localization group: its own ``localizations`` in
    their order first (what Strapi reads as ``entry.localizations``), then any member linked
    only the other way, by id."""
    link = localizations_link(tables, content_type)
    table: Table = tables.localizations[content_type.uid]
    source, target = table.c[link.source_column], table.c[link.target_column]
    assert link.order_column is not None
    rows = await conn.execute(
        select(source, target, table.c[link.order_column], table.c.id).where(
            or_(source == entry_id, target == entry_id)
        )
    )
    own: list[tuple[float, int, int]] = []
    others: set[int] = set()
    for row_source, row_target, order, row_id in rows:
        if int(row_source) == entry_id:
            own.append((float(order or 0), int(row_id), int(row_target)))
        else:
            others.add(int(row_source))
    ordered = [member for _, _, member in sorted(own)]
    seen = set(ordered) | {entry_id}
    return ordered + sorted(others - seen)


async def link_group(
    conn: AsyncConnection,
    tables: Any,
    content_type: ContentType,
    new_id: int,
    members: Sequence[int],
) -> None:
    """Link a new localization to every member, in both directions, as Strapi's
    ``syncLocalizations`` leaves them: the new entry's list is ``members`` (the source, then
    its localizations), and each member's becomes the new entry first, then the others."""
    link = localizations_link(tables, content_type)
    table: Table = tables.localizations[content_type.uid]
    assert link.order_column is not None
    if not members:
        return
    await conn.execute(table.delete().where(table.c[link.source_column].in_(list(members))))
    rows: list[dict[str, Any]] = []
    lists = {new_id: list(members)}
    for member in members:
        lists[member] = [new_id, *(other for other in members if other != member)]
    for owner, linked in lists.items():
        for order, target in enumerate(linked, start=1):
            rows.append(
                {
                    link.source_column: owner,
                    link.target_column: target,
                    link.order_column: float(order),
                }
            )
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
) -> list[int]:
    """Copy ``source_id``'s values of ``columns`` onto ``targets`` (their ``updatedAt`` bumped
    as Strapi's ``entityService.update`` bumps it); nothing when either is empty. The ids
    changed."""
    wanted = [target for target in targets if target != source_id]
    if not wanted or not columns:
        return []
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
    return wanted


async def sync_populated_localizations(
    conn: AsyncConnection,
    tables: Any,
    populator: Populator,
    content_type: ContentType,
    entry: dict[str, Any],
    query: ReadQuery,
) -> list[int]:
    """Copy the answer's non-localized values to the localizations the request populates;
    the ids of those changed (each one an ``entry.update``, as Strapi updates each through
    its entity service).

    Strapi's entity service reads its update's answer with ``fields`` and ``populate``
    only, so the localizations it copies to are the populated ones drafts included,
    whatever ``publicationState`` says; this answer honours it (docs/differences-from-
    strapi.md), so in ``live`` the targets are read again in ``preview`` (ids only).
    """
    node = query.populate.get(LOCALIZATIONS) if content_type.localized else None
    if not isinstance(node, RelationPopulate) or node.count:
        return []
    populated = entry.get(LOCALIZATIONS)
    if query.publication_state != "preview" or populated is None:
        probe: dict[str, Any] = {"id": entry["id"]}
        ids_only_node = replace(node, fields=("id",), populate={})
        await populator.run(conn, content_type, [probe], {LOCALIZATIONS: ids_only_node}, "preview")
        populated = probe.get(LOCALIZATIONS)
    if not populated:
        return []
    targets = [int(member["id"]) for member in populated]
    columns = shared_columns(content_type, query.fields)
    return await copy_non_localized(conn, tables, content_type, int(entry["id"]), targets, columns)
