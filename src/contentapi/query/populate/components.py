"""Populated components and dynamic zones read per level, never per row.

The join rows of all parents of a level come first (one statement), then each component
type's rows by id (one statement per type), and one more statement per field whose populate
filters or sorts its components (ties broken by the stored order, as Strapi's join does). On
PostgreSQL, when no field filters or sorts, the whole level is one statement
(``ComponentsBatch._components_together``). Each item then populates its own attributes, the
next level down, once for all items of a field and type.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from contentapi.db.async_engine import AsyncConnection
from contentapi.query.ast import ComponentPopulate, DynamicZonePopulate, attribute_of
from contentapi.query.populate.base import Level
from contentapi.query.populate.batched import ComponentsBatch
from contentapi.query.populate.columns import Entry, select_columns, to_entry
from contentapi.query.populate.component_specs import own_batch, wanted, zone_spec
from contentapi.schema.model import ComponentAttribute, Model

__all__ = ["ComponentReader"]


class ComponentReader(ComponentsBatch):
    """Reads populated component and dynamic-zone fields of a level."""

    async def _components(
        self, level: Level, nodes: dict[str, ComponentPopulate | DynamicZonePopulate]
    ) -> None:
        conn, model, ids = level.conn, level.model, level.ids
        rows: dict[tuple[str, str | None, int], Any] = {}  # (uid, batch, id) → row mapping
        rank: dict[tuple[str, str | None, int], int] = {}
        # attribute → the populate keys reading it (more than one: GraphQL aliases)
        keys: dict[str, list[str]] = defaultdict(list)
        for name in nodes:
            keys[attribute_of(name)].append(name)
        together = self._components_together(model, nodes)
        # (entity id, populate key, component uid, component id), in the entries' order
        links: list[tuple[int, str, str, int]] = []
        joins: Sequence[Sequence[Any]]  # (entity id, field, component uid, component id, ...)
        if together is not None:  # PostgreSQL, nothing filtered or sorted: one statement
            joins = await self.kept.rows(conn, together, {"ids": ids})
            for _, _, uid, component_id, values in joins:  # each join row with its item
                if values is not None and uid in self.registry.components:
                    rows[(uid, None, int(component_id))] = self._from_json(uid, values)
        else:
            join_key = ("components", model.uid, tuple(keys))
            joined = self._statements.get(join_key)
            if joined is None:  # built once per model and fields; the ids are bound
                join = self.tables.component_joins[model.uid]
                sql = self.compiler.sql
                joined = self._keep(
                    join_key,
                    select(
                        join.c.entity_id, join.c.field, join.c.component_type, join.c.component_id
                    )
                    .where(sql.among(join.c.entity_id), sql.among(join.c.field, list(keys)))
                    .order_by(join.c.order, join.c.id),
                )
            joins = await self.kept.rows(conn, joined, {"ids": ids})
        for entity_id, field, uid, component_id, *_ in joins:
            if uid not in self.registry.components:  # a component type no longer modelled
                continue
            for name in keys[field]:
                if wanted(nodes[name], uid):
                    links.append((int(entity_id), name, uid, int(component_id)))
        specs: dict[tuple[str, str], ComponentPopulate] = {}  # (field, component uid) → spec
        for _, field, uid, _ in links:
            if (field, uid) not in specs:
                node = nodes[field]
                specs[(field, uid)] = (
                    node
                    if isinstance(node, ComponentPopulate)
                    else zone_spec(node, self.registry.components[uid])
                )
        # One statement per component type, and one more per field that filters or sorts it.
        batches: dict[tuple[str, str | None], set[int]] = defaultdict(set)
        for _, field, uid, component_id in links:
            if together is None:
                batches[(uid, own_batch(specs, field, uid))].add(component_id)
        for (uid, own), component_ids in batches.items():
            component = self.registry.components[uid]
            table = self.tables.entity(uid)
            if own is None:
                statement = self._statements.get(("component", uid))
                if statement is None:  # built once per component; the ids are bound
                    statement = self._keep(
                        ("component", uid),
                        select(table).where(self.compiler.sql.among(table.c.id)),
                    )
                found = await self.kept.mappings(conn, statement, {"ids": sorted(component_ids)})
            else:
                found = await self._own_batch_rows(conn, model, own, uid, specs[(own, uid)], ids)
            for position, row in enumerate(found):
                rows[(uid, own, int(row["id"]))] = row
                rank[(uid, own, int(row["id"]))] = position
        placed: dict[tuple[int, str], list[Entry]] = defaultdict(list)
        nested: dict[tuple[str, str], list[Entry]] = defaultdict(list)
        for entity_id, field, uid, component_id in links:
            own = own_batch(specs, field, uid)
            found_row = rows.get((uid, own, component_id))
            if found_row is None:
                continue  # left out by the populate's filters
            component = self.registry.components[uid]
            spec = specs[(field, uid)]
            item = to_entry(found_row, select_columns(component, spec.fields))
            if isinstance(nodes[field], DynamicZonePopulate):
                item = {"id": item["id"], "__component": component.uid, **item}
            placed[(entity_id, field)].append(item)
            nested[(field, component.uid)].append(item)
        for (_, field), items in placed.items():
            node = nodes[field]
            if isinstance(node, ComponentPopulate) and node.sort:
                attribute = model.attributes[attribute_of(field)]
                assert isinstance(attribute, ComponentAttribute)
                uid = attribute.component
                items.sort(key=lambda item: rank[(uid, field, int(item["id"]))])
        for (field, uid), items in nested.items():
            spec = specs[(field, uid)]
            if spec.populate:
                await self.run(
                    conn,
                    self.registry.components[uid],
                    items,
                    spec.populate,
                    level.publication_state,
                )
        single: dict[str, bool] = {}
        for name in nodes:
            attribute = model.attributes[attribute_of(name)]
            single[name] = isinstance(attribute, ComponentAttribute) and not attribute.repeatable
        for entry in level.entries:
            for name, one in single.items():
                items = placed.get((int(entry["id"]), name), [])
                entry[name] = (items[0] if items else None) if one else items

    async def _own_batch_rows(
        self,
        conn: AsyncConnection,
        model: Model,
        name: str,
        uid: str,
        spec: ComponentPopulate,
        ids: list[int],
    ) -> list[dict[str, Any]]:
        """The rows of a populated component field that filters or sorts them, for all the
        parents ``ids`` at once, in the order asked: the sort, then — for ties, as Strapi's
        join does — the order the components are stored in. Read from the join rows of the
        parents (their entity index), each component by its primary key: selecting the
        components by id list as well let PostgreSQL's generic plan scan the component table
        once per join row (160 ms instead of 0.4 for 25 books)."""
        component = self.registry.components[uid]
        table = self.tables.entity(uid)
        join = self.tables.component_joins[model.uid]
        statement = (
            select(table)
            .select_from(join.join(table, table.c.id == join.c.component_id))
            .where(
                self.compiler.sql.among(join.c.entity_id, ids),
                join.c.field == attribute_of(name),
                join.c.component_type == uid,
                self.compiler.where(component, table, spec.filters),
            )
            .order_by(
                *self.compiler.sort_terms(component, table, spec.sort), join.c.order, join.c.id
            )
        )
        return [dict(row) for row in (await conn.execute(statement)).mappings()]
