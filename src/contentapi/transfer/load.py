"""An archive into the database, as ``strapi import`` restores one: the content of every type
the archive carries is replaced, in one transaction, ids kept.

Entities carry their scalar fields and, inline, their components and dynamic-zone items (with
the component rows' ids); relations, media and localizations come as links between
``(type, id, field)`` pairs. Ids are kept as they are in the archive (the tables are emptied
first, as Strapi's import empties them), so a link needs no id mapping; PostgreSQL's sequences
are moved past the largest id afterwards. Types the archive names that this server does not
know (Strapi's admin and other plugins' types) are skipped and counted; a content type
(``api::``) it does not know refuses the archive: its content would be lost.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, delete, func, insert, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import dialect_of
from contentapi.db.locales import DEFAULT_LOCALE_KEY
from contentapi.db.system import i18n_locales
from contentapi.db.tables import ContentTables
from contentapi.entries.row_values import row_values
from contentapi.i18n.manage import set_default_locale
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from contentapi.transfer.archive import Archive, ArchiveError
from contentapi.upload.storage import StorageProvider
from contentapi.values import parse_value

__all__ = ["LoadReport", "load_archive"]

_LOCALE_UID = "plugin::i18n.locale"
#: timestamps and the like: entity keys that are columns without being attributes
_SYSTEM_FIELDS = {
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "publishedAt": "published_at",
    "locale": "locale",
}


@dataclass(slots=True)
class LoadReport:
    entities: Counter[str] = field(default_factory=Counter)
    links: int = 0
    assets: int = 0
    #: types of the archive this server does not have (entities and links skipped)
    skipped: Counter[str] = field(default_factory=Counter)


def _model(registry: Registry, uid: str) -> Model | None:
    return registry.content_types.get(uid) or registry.components.get(uid)


def check_types(archive: Archive, registry: Registry) -> None:
    """Refuse an archive whose content types this server lacks (before anything is written)."""
    unknown = sorted(
        {
            str(entity.get("type"))
            for entity in archive.entities
            if str(entity.get("type", "")).startswith("api::")
            and _model(registry, str(entity["type"])) is None
        }
    )
    if unknown:
        raise ArchiveError(
            "the archive holds content types this server does not have: " + ", ".join(unknown)
        )
    for number, entity in enumerate(archive.entities, start=1):
        if not isinstance(entity.get("type"), str) or not isinstance(entity.get("id"), int):
            raise ArchiveError(f"entity {number} has no type or id")
        if not isinstance(entity.get("data", {}), dict):
            raise ArchiveError(f"entity {number} ({entity['type']}) has no data object")
    for number, link in enumerate(archive.links, start=1):
        sides = (link.get("left"), link.get("right"))
        if not all(isinstance(side, dict) and "type" in side and "ref" in side for side in sides):
            raise ArchiveError(f"link {number} lacks a left or right side")


class _Loader:
    def __init__(self, conn: AsyncConnection, registry: Registry, tables: ContentTables) -> None:
        self.conn = conn
        self.registry = registry
        self.tables = tables
        self.report = LoadReport()
        self.orders: Counter[tuple[str, str, int]] = Counter()
        self.touched: set[Table] = set()

    def _next_order(self, table: str, column: str, owner: int) -> int:
        self.orders[(table, column, owner)] += 1
        return self.orders[(table, column, owner)]

    def _order(self, table: str, column: str, owner: int, side: dict[str, Any]) -> float:
        """The side's ``pos`` (Strapi writes the order it had), else the next in turn."""
        count = self._next_order(table, column, owner)
        position = side.get("pos")
        return float(position) if isinstance(position, int | float) else float(count)

    async def _insert(self, table: Table, values: dict[str, Any]) -> None:
        self.touched.add(table)
        await self.conn.execute(insert(table).values(row_values(table, values)))

    # ------------------------------------------------------------------ emptying
    async def empty(self, uids: set[str]) -> None:
        """Delete the rows of ``uids``' tables and of every table hanging off them."""
        doomed: list[Table] = []
        for uid in uids:
            model = _model(self.registry, uid)
            if model is None:
                continue
            for name, link in model.links.items():
                if link.owner and name in model.attributes:
                    doomed.append(self.tables.links[link.table])
            if uid in self.tables.component_joins:
                doomed.append(self.tables.component_joins[uid])
            if uid in self.tables.localizations:
                doomed.append(self.tables.localizations[uid])
        if FILE_UID in uids and self.tables.file_morphs is not None:
            doomed.append(self.tables.file_morphs)
        doomed += [self.tables.entities[uid] for uid in uids if uid in self.tables.entities]
        for table in doomed:
            await self.conn.execute(delete(table))

    # ------------------------------------------------------------------ entities
    def _columns(self, model: Model, data: dict[str, Any]) -> dict[str, Any]:
        table = self.tables.entities[model.uid]
        values: dict[str, Any] = {}
        for key, value in data.items():
            attribute = model.attributes.get(key)
            if isinstance(attribute, ScalarAttribute):
                values[attribute.column] = (
                    None if value is None else _parse(attribute.type, value, model.uid, key)
                )
            elif key in _SYSTEM_FIELDS:
                column = _SYSTEM_FIELDS[key]
                if column not in table.c:
                    continue  # e.g. publishedAt of a type without draft & publish here
                kind = "string" if column == "locale" else "datetime"
                values[column] = None if value is None else _parse(kind, value, model.uid, key)
            elif attribute is None:
                # Strapi's import refuses schemas that differ; dropping the value would lose it
                raise ArchiveError(f"{model.uid} has no field {key!r} here (its models differ)")
        return values

    async def entity(self, model: Model, entity_id: int, data: dict[str, Any]) -> None:
        values = self._columns(model, data)
        await self._insert(self.tables.entities[model.uid], {"id": entity_id, **values})
        if isinstance(model, ContentType):  # components are counted with their entry
            self.report.entities[model.uid] += 1
        for key, value in data.items():
            attribute = model.attributes.get(key)
            if isinstance(attribute, ComponentAttribute) and value is not None:
                items = value if isinstance(value, list) else [value]
                for order, item in enumerate(items, start=1):
                    await self._component(model, entity_id, key, attribute.component, item, order)
            elif isinstance(attribute, DynamicZoneAttribute) and isinstance(value, list):
                for order, item in enumerate(value, start=1):
                    uid = item.get("__component") if isinstance(item, dict) else None
                    if uid not in attribute.components:
                        raise ArchiveError(
                            f"{model.uid} {entity_id}: {key} holds an unknown component {uid!r}"
                        )
                    await self._component(model, entity_id, key, uid, item, order)

    async def _component(
        self, owner: Model, owner_id: int, key: str, uid: str, item: Any, order: int
    ) -> None:
        component = self.registry.components[uid]
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            raise ArchiveError(f"{owner.uid} {owner_id}: a {key} component has no id")
        data = {name: value for name, value in item.items() if name not in ("id", "__component")}
        await self.entity(component, item["id"], data)
        join = self.tables.component_joins[owner.uid]
        await self._insert(
            join,
            {
                "entity_id": owner_id,
                "component_id": item["id"],
                "component_type": uid,
                "field": key,
                "order": order,
            },
        )

    # ------------------------------------------------------------------ links
    async def link(self, link: dict[str, Any]) -> None:
        left, right = link["left"], link["right"]
        left_model = _model(self.registry, str(left["type"]))
        right_model = _model(self.registry, str(right["type"]))
        if left_model is None or right_model is None:
            missing = left["type"] if left_model is None else right["type"]
            self.report.skipped[f"links to {missing}"] += 1
            return
        field_name = left.get("field")
        if left_model.uid == FILE_UID and field_name == "related":
            await self._morph(
                int(left["ref"]), right_model.uid, int(right["ref"]), right["field"], right
            )
        elif isinstance(left_model.attributes.get(field_name or ""), MediaAttribute):
            await self._morph(int(right["ref"]), left_model.uid, int(left["ref"]), field_name, left)
        elif field_name == "localizations" and isinstance(left_model, ContentType):
            await self._localization(left_model, int(left["ref"]), int(right["ref"]))
        elif isinstance(left_model.attributes.get(field_name or ""), RelationAttribute):
            await self._relation(left_model, str(field_name), left, right)
        else:
            raise ArchiveError(f"a link from {left_model.uid}.{field_name}: no such relation")
        self.report.links += 1

    async def _relation(
        self, model: Model, name: str, left: dict[str, Any], right: dict[str, Any]
    ) -> None:
        source, target = int(left["ref"]), int(right["ref"])
        link = model.links[name]
        table = self.tables.links[link.table]
        exists = await self.conn.scalar(
            select(func.count())
            .select_from(table)
            .where(table.c[link.source_column] == source, table.c[link.target_column] == target)
        )
        if exists:  # both sides of a bidirectional relation were listed
            return
        values: dict[str, Any] = {link.source_column: source, link.target_column: target}
        if link.order_column:
            values[link.order_column] = self._order(table.name, link.order_column, source, left)
        if link.inverse_order_column:
            column = link.inverse_order_column
            values[column] = self._order(table.name, column, target, right)
        await self._insert(table, values)

    async def _morph(
        self, file_id: int, uid: str, related_id: int, name: str | None, side: dict[str, Any]
    ) -> None:
        morphs = self.tables.file_morphs
        assert morphs is not None
        order = self._order(morphs.name, f"{uid}.{name}", related_id, side)
        await self._insert(
            morphs,
            {
                "file_id": file_id,
                "related_id": related_id,
                "related_type": uid,
                "field": name,
                "order": order,
            },
        )

    async def _localization(self, model: ContentType, source: int, target: int) -> None:
        table = self.tables.localizations[model.uid]
        own, other, order_column = (column.name for column in list(table.c)[1:4])
        await self._insert(
            table,
            {own: source, other: target, order_column: self._next_order(table.name, own, source)},
        )

    # ------------------------------------------------------------------ locales, sequences
    async def locales(self, entities: list[dict[str, Any]]) -> None:
        """Add the archive's locales this server lacks (its own are kept, and its default)."""
        have = set((await self.conn.execute(select(i18n_locales.c.code))).scalars())
        for entity in entities:
            code = entity.get("data", {}).get("code")
            if isinstance(code, str) and code not in have:
                name = entity["data"].get("name") or code
                await self.conn.execute(insert(i18n_locales).values(code=code, name=name))
                have.add(code)
                self.report.entities[_LOCALE_UID] += 1

    async def default_locale(self, configuration: list[dict[str, Any]]) -> None:
        """The archive's default locale (its configuration stage), as Strapi's import sets it."""
        for item in configuration:
            value = item.get("value")
            if item.get("type") != "core-store" or not isinstance(value, dict):
                continue
            if value.get("key") != DEFAULT_LOCALE_KEY:
                continue
            code = value.get("value")
            if isinstance(code, str) and code.startswith('"'):
                code = code.strip('"')  # stored JSON-encoded, as in the table
            have = set((await self.conn.execute(select(i18n_locales.c.code))).scalars())
            if isinstance(code, str) and code in have:
                await set_default_locale(self.conn, code)

    async def move_sequences(self) -> None:
        """The next id of each filled table after the largest one inserted."""
        dialect = dialect_of(self.conn)
        for table in self.touched:
            await dialect.follow_ids(self.conn, table)


def _parse(kind: str, value: Any, uid: str, key: str) -> Any:
    if kind in ("password", "string", "email", "uid", "enumeration", "text", "richtext"):
        if not isinstance(value, str):
            raise ArchiveError(f"{uid}: {key} is not a string")
        return value
    try:
        return parse_value(kind, value)
    except (ValueError, TypeError) as error:
        raise ArchiveError(f"{uid}: {key} has an invalid {kind} value ({error})") from None


async def load_archive(
    conn: AsyncConnection,
    registry: Registry,
    tables: ContentTables,
    storage: StorageProvider,
    archive: Archive,
) -> LoadReport:
    """Replace the content of ``conn``'s database by the archive's (the caller's transaction:
    an error leaves nothing written, except asset bytes already stored, which it removes)."""
    check_types(archive, registry)
    loader = _Loader(conn, registry, tables)
    known = [e for e in archive.entities if e["type"] in registry.content_types]
    for entity in archive.entities:
        if entity["type"] not in (*registry.content_types, *registry.components, _LOCALE_UID):
            loader.report.skipped[entity["type"]] += 1
    uids = {uid for uid in registry.content_types if uid.startswith("api::")}
    uids |= {entity["type"] for entity in known}
    uids |= {uid for uid in registry.components}
    await loader.empty(uids)
    await loader.locales([e for e in archive.entities if e["type"] == _LOCALE_UID])
    await loader.default_locale(archive.configuration)
    for entity in known:
        model = registry.content_types[entity["type"]]
        await loader.entity(model, entity["id"], entity.get("data") or {})
    for link in archive.links:
        await loader.link(link)
    await loader.move_sequences()
    stored: list[str] = []
    try:
        for asset in archive.assets.values():
            await storage.save_bytes(asset.name, asset.data)
            stored.append(asset.name)
            loader.report.assets += 1
    except (ValueError, OSError) as error:
        for name in stored:
            await storage.delete(name)
        raise ArchiveError(f"cannot store the file {asset.name!r}: {error}") from None
    await _point_files_at(conn, tables, storage, archive)
    return loader.report


async def _point_files_at(
    conn: AsyncConnection, tables: ContentTables, storage: StorageProvider, archive: Archive
) -> None:
    """The file rows whose bytes were stored here: this provider's name and URLs (an archive
    from a server on local disk imported with S3, or the other way round)."""
    files = tables.files
    assert files is not None
    for entity in archive.entities:
        if entity["type"] != FILE_UID:
            continue
        data = entity.get("data") or {}
        name = f"{data.get('hash')}{data.get('ext') or ''}"
        if name not in archive.assets:
            continue
        formats = data.get("formats")
        if isinstance(formats, dict):
            formats = {
                size: {**value, "url": storage.url(f"{value['hash']}{value.get('ext') or ''}")}
                if isinstance(value, dict)
                and f"{value.get('hash')}{value.get('ext') or ''}" in archive.assets
                else value
                for size, value in formats.items()
            }
        values = {"url": storage.url(name), "provider": storage.name, "formats": formats}
        await conn.execute(
            files.update().where(files.c.id == entity["id"]).values(row_values(files, values))
        )
