"""Reading back what an entry owns: related ids, file ids, and its component tree.

Batched per level: one statement per relation, one for all media of a model, one per
component-join table and one per component type — never one per row. The query-language
issue's ``populate`` renders from the same loaders.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.db.tables import ContentTables
from contentapi.schema.model import (
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["load_nested"]

Nested = dict[str, Any]


def _first(values: Sequence[Any]) -> Any:
    """A to-one value: the only element, or ``None``."""
    return values[0] if values else None


async def _relations(
    conn: AsyncConnection, tables: ContentTables, model: Model, ids: Sequence[int]
) -> dict[int, Nested]:
    found: dict[int, Nested] = defaultdict(dict)
    for name, attribute in model.attributes.items():
        if not isinstance(attribute, RelationAttribute):
            continue
        link = model.links[name]
        table = tables.link(link)
        order = [table.c[link.order_column]] if link.order_column else []
        rows = await conn.execute(
            select(table.c[link.source_column], table.c[link.target_column])
            .where(table.c[link.source_column].in_(ids))
            .order_by(*order, table.c.id)
        )
        by_source: dict[int, list[int]] = defaultdict(list)
        for source, target in rows:
            by_source[int(source)].append(int(target))
        for row_id in ids:
            related = by_source.get(row_id, [])
            found[row_id][name] = related if attribute.is_to_many else _first(related)
    return found


async def _media(
    conn: AsyncConnection, tables: ContentTables, model: Model, ids: Sequence[int]
) -> dict[int, Nested]:
    media = {n: a for n, a in model.attributes.items() if isinstance(a, MediaAttribute)}
    found: dict[int, Nested] = defaultdict(dict)
    if not media:
        return found
    morphs = tables.file_morphs
    assert morphs is not None
    rows = await conn.execute(
        select(morphs.c.related_id, morphs.c.field, morphs.c.file_id)
        .where(and_(morphs.c.related_type == model.uid, morphs.c.related_id.in_(ids)))
        .order_by(morphs.c.order, morphs.c.id)
    )
    by_key: dict[tuple[int, str], list[int]] = defaultdict(list)
    for related_id, field_name, file_id in rows:
        by_key[(int(related_id), field_name)].append(int(file_id))
    for row_id in ids:
        for name, attribute in media.items():
            files = by_key.get((row_id, name), [])
            found[row_id][name] = files if attribute.multiple else _first(files)
    return found


async def _components(
    conn: AsyncConnection,
    registry: Registry,
    tables: ContentTables,
    model: Model,
    ids: Sequence[int],
) -> dict[int, Nested]:
    fields = {
        n: a
        for n, a in model.attributes.items()
        if isinstance(a, ComponentAttribute | DynamicZoneAttribute)
    }
    found: dict[int, Nested] = defaultdict(dict)
    if not fields:
        return found
    join = tables.component_joins[model.uid]
    rows = (
        await conn.execute(
            select(join.c.entity_id, join.c.field, join.c.component_type, join.c.component_id)
            .where(join.c.entity_id.in_(ids))
            .order_by(join.c.order, join.c.id)
        )
    ).all()
    by_type: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        by_type[row.component_type].append(int(row.component_id))
    loaded: dict[tuple[str, int], Nested] = {}
    for uid, component_ids in by_type.items():
        component = registry.components[uid]
        states = await load_nested(conn, registry, tables, component, component_ids)
        for component_id, state in states.items():
            loaded[(uid, component_id)] = state
    placed: dict[tuple[int, str], list[Nested]] = defaultdict(list)
    for row in rows:
        item = dict(loaded[(row.component_type, int(row.component_id))])
        if isinstance(fields.get(row.field), DynamicZoneAttribute):
            item = {"__component": row.component_type, **item}
        placed[(int(row.entity_id), row.field)].append(item)
    for row_id in ids:
        for name, attribute in fields.items():
            items = placed.get((row_id, name), [])
            single = isinstance(attribute, ComponentAttribute) and not attribute.repeatable
            found[row_id][name] = _first(items) if single else items
    return found


async def load_nested(
    conn: AsyncConnection,
    registry: Registry,
    tables: ContentTables,
    model: Model,
    ids: Sequence[int],
) -> dict[int, Nested]:
    """``{row id: {attribute: value}}`` with every scalar (components only), relation (ids),
    media (file ids) and component (nested dicts with ``id``) attribute of ``model``."""
    ids = list(dict.fromkeys(ids))
    result: dict[int, Nested] = {row_id: {} for row_id in ids}
    if not ids:
        return result
    if model.uid in registry.components:
        table = tables.entity(model.uid)
        rows = (await conn.execute(select(table).where(table.c.id.in_(ids)))).mappings()
        for row in rows:
            state = result[int(row["id"])]
            state["id"] = int(row["id"])
            for attribute in model.scalars():
                state[attribute.name] = row[attribute.column]
    for part in (
        await _relations(conn, tables, model, ids),
        await _media(conn, tables, model, ids),
        await _components(conn, registry, tables, model, ids),
    ):
        for row_id, values in part.items():
            result[row_id].update(values)
    return result
