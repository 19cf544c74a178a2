"""The database into an archive, as ``strapi export`` writes one.

Entities are the rows of every content type (components inline, with their rows' ids, in their
order), links the rows of every relation's owner table, ``files_related_morphs`` and the
localization tables; the locales come as ``plugin::i18n.locale`` entities and the files'
bytes as assets. Values are written as Strapi's REST answers them (dates as ISO strings,
big integers as strings), which is also how its export writes them.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import select

from contentapi import __version__
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.locales import DEFAULT_LOCALE_KEY
from contentapi.db.system import core_store, i18n_locales
from contentapi.db.tables import ContentTables
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.naming import snake_case
from contentapi.schema.registry import Registry
from contentapi.transfer.archive import Archive
from contentapi.values import format_datetime, render_value

__all__ = ["dump_database"]

_SYSTEM_COLUMNS = {
    "created_at": "createdAt",
    "updated_at": "updatedAt",
    "published_at": "publishedAt",
    "locale": "locale",
}
#: where a row's components are: (owner uid, owner id) → [(field, order, uid, component id)]
Joins = dict[tuple[str, int], list[tuple[str, float, str, int]]]


class _Dumper:
    def __init__(self, conn: AsyncConnection, registry: Registry, tables: ContentTables) -> None:
        self.conn = conn
        self.registry = registry
        self.tables = tables
        self.rows: dict[str, dict[int, dict[str, Any]]] = {}
        self.joins: Joins = defaultdict(list)

    async def read(self) -> None:
        for model in self.registry.models():
            table = self.tables.entities[model.uid]
            result = await self.conn.execute(select(table).order_by(table.c.id))
            self.rows[model.uid] = {row["id"]: dict(row) for row in result.mappings()}
        for uid, join in self.tables.component_joins.items():
            result = await self.conn.execute(select(join).order_by(join.c.order, join.c.id))
            for row in result.mappings():
                self.joins[(uid, row["entity_id"])].append(
                    (row["field"], row["order"] or 0, row["component_type"], row["component_id"])
                )

    def data(self, model: Model, row: dict[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, attribute in model.attributes.items():
            if isinstance(attribute, ScalarAttribute):
                value = row.get(attribute.column)
                data[name] = value if attribute.type == "password" else _render(attribute, value)
        for column, name in _SYSTEM_COLUMNS.items():
            if column in row:
                value = row[column]
                data[name] = format_datetime(value) if isinstance(value, datetime) else value
        held = self.joins.get((model.uid, row["id"]), [])
        for name, attribute in model.attributes.items():
            items = [(uid, ref) for field, _, uid, ref in held if field == name]
            if isinstance(attribute, ComponentAttribute):
                inline = [self.component(uid, ref) for uid, ref in items]
                inline = [item for item in inline if item is not None]
                data[name] = inline if attribute.repeatable else (inline[0] if inline else None)
            elif isinstance(attribute, DynamicZoneAttribute):
                zone = []
                for uid, ref in items:
                    item = self.component(uid, ref)
                    if item is not None:
                        zone.append({"__component": uid, **item})
                data[name] = zone
        return data

    def component(self, uid: str, ref: int) -> dict[str, Any] | None:
        row = self.rows.get(uid, {}).get(ref)
        if row is None:
            return None
        return {"id": ref, **self.data(self.registry.components[uid], row)}

    def entities(self) -> list[dict[str, Any]]:
        return [
            {"type": uid, "id": entity_id, "data": self.data(model, row)}
            for uid, model in self.registry.content_types.items()
            for entity_id, row in self.rows[uid].items()
        ]

    async def links(self) -> list[dict[str, Any]]:
        links: list[dict[str, Any]] = []
        for model in self.registry.models():
            for name, link in model.links.items():
                attribute = model.attributes.get(name)
                if not link.owner or not isinstance(attribute, RelationAttribute):
                    continue
                table = self.tables.links[link.table]
                target = self.registry.content_types[attribute.target]
                inverse = attribute.inversed_by or None
                result = await self.conn.execute(select(table).order_by(table.c.id))
                for row in result.mappings():
                    left: dict[str, Any] = {
                        "type": model.uid,
                        "field": name,
                        "ref": row[link.source_column],
                    }
                    right: dict[str, Any] = {"type": target.uid, "ref": row[link.target_column]}
                    if link.order_column and row[link.order_column] is not None:
                        left["pos"] = row[link.order_column]
                    if inverse:
                        right["field"] = inverse
                    if link.inverse_order_column and row[link.inverse_order_column] is not None:
                        right["pos"] = row[link.inverse_order_column]
                    kind = "relation.circular" if target.uid == model.uid else "relation.basic"
                    links.append(
                        {"kind": kind, "relation": attribute.relation, "left": left, "right": right}
                    )
        links += await self._morph_links()
        links += await self._localization_links()
        return links

    async def _morph_links(self) -> list[dict[str, Any]]:
        morphs = self.tables.file_morphs
        if morphs is None:
            return []
        result = await self.conn.execute(select(morphs).order_by(morphs.c.id))
        return [
            {
                "kind": "relation.morph",
                "relation": "morphToMany",
                "left": {"type": FILE_UID, "field": "related", "ref": row["file_id"]},
                "right": {
                    "type": row["related_type"],
                    "ref": row["related_id"],
                    "field": row["field"],
                    "pos": row["order"],
                },
            }
            for row in result.mappings()
        ]

    async def _localization_links(self) -> list[dict[str, Any]]:
        links = []
        for uid, table in self.tables.localizations.items():
            own, other, order = (column.name for column in list(table.c)[1:4])
            result = await self.conn.execute(select(table).order_by(table.c.id))
            for row in result.mappings():
                links.append(
                    {
                        "kind": "relation.circular",
                        "relation": "oneToMany",
                        "left": {
                            "type": uid,
                            "field": "localizations",
                            "ref": row[own],
                            "pos": row[order],
                        },
                        "right": {"type": uid, "ref": row[other]},
                    }
                )
        return links

    async def configuration(self) -> list[dict[str, Any]]:
        """The default locale, as Strapi's configuration stage carries it (a core-store row,
        its value parsed): without it Strapi's import would leave no locale the default."""
        row = (
            (
                await self.conn.execute(
                    select(core_store).where(core_store.c.key == DEFAULT_LOCALE_KEY)
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            return []
        try:
            value = orjson.loads(row["value"])
        except (orjson.JSONDecodeError, TypeError):
            value = row["value"]
        columns = ("id", "key", "type", "environment", "tag")
        entry = {**{name: row[name] for name in columns}, "value": value}
        return [{"type": "core-store", "value": entry}]

    async def locales(self) -> list[dict[str, Any]]:
        result = await self.conn.execute(select(i18n_locales).order_by(i18n_locales.c.id))
        return [
            {
                "type": "plugin::i18n.locale",
                "id": row["id"],
                "data": {"name": row["name"], "code": row["code"]},
            }
            for row in result.mappings()
        ]


def _render(attribute: ScalarAttribute, value: Any) -> Any:
    return render_value(attribute.type, value)


def schema_of(model: Model) -> dict[str, Any]:
    """The model as Strapi's schemas stage lists it: its JSON, with uid and model type."""
    try:
        schema: dict[str, Any] = orjson.loads(model.source.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        schema = {"collectionName": model.table, "attributes": {}}
    if isinstance(model, ContentType):
        schema.update(
            kind=model.kind,
            modelType="contentType",
            modelName=model.singular_name,
            uid=model.uid,
            globalId=snake_case(model.singular_name),
        )
    else:
        schema.update(modelType="component", modelName=model.name, uid=model.uid)
    return schema


async def dump_database(
    conn: AsyncConnection, registry: Registry, tables: ContentTables
) -> Archive:
    """Everything of the registry's types as an archive (assets left to the caller)."""
    dumper = _Dumper(conn, registry, tables)
    await dumper.read()
    return Archive(
        metadata={
            "createdAt": format_datetime(datetime.now(UTC)),
            "strapi": {"version": "4.25.24"},
            "contentapi": {"version": __version__},
        },
        schemas=[schema_of(model) for model in registry.models() if model.source.is_file()],
        entities=await dumper.locales() + dumper.entities(),
        links=await dumper.links(),
        configuration=await dumper.configuration(),
    )
