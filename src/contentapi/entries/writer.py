"""Executing a validated write plan inside one transaction.

``Writer.apply`` stores what ``input.py`` validated for one entry or component row: its
relations (``relation_store``, after ``relation_targets``' reads), media (``media_store``) and
components — creating, updating in place, reordering and deleting component rows, recursively
for nested components — and the uniqueness checks that need the database.
``Writer.delete_rows`` removes entries or component rows with everything they own
(components, media attachments; link rows go by cascade).
Any ``ValidationError`` raised here rolls the whole transaction back.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from sqlalchemy import Column, and_, bindparam, null, select

from contentapi.caching import UPDATE_STATEMENTS, BoundedCache
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import Dialect
from contentapi.db.driver import KeptStatements
from contentapi.db.tables import ContentTables
from contentapi.entries.media_store import delete_media_of, store_media
from contentapi.entries.messages import MESSAGES
from contentapi.entries.relation_store import LinkRows, LinkStore
from contentapi.entries.relation_targets import RelationReads, check_existing, fail
from contentapi.entries.relations import PositionError, RelationWrite, apply_relation_write
from contentapi.entries.row_values import json_nulls, row_values
from contentapi.entries.write_plan import ComponentFieldWrite, ModelWrite, label
from contentapi.errors import FieldError, NotFoundError, ValidationError
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["Writer"]


@dataclass(slots=True, eq=False)
class Writer:
    """Stores write plans and deletes rows, for every model of the registry (a dataclass: it
    holds what it is handed; its statements run through ``kept``)."""

    registry: Registry
    tables: ContentTables
    _: KW_ONLY
    dialect: Dialect
    #: runs the kept statements of writes (``db/driver.py``)
    kept: KeptStatements
    reads: RelationReads = field(init=False)
    links: LinkStore = field(init=False)
    #: ``UPDATE … RETURNING`` statements by shape (``_update_statement``)
    _updates: BoundedCache[tuple[Any, ...], Any] = field(
        init=False, default_factory=lambda: BoundedCache(UPDATE_STATEMENTS)
    )

    def __post_init__(self) -> None:
        self.reads = RelationReads(self.tables, dialect=self.dialect, kept=self.kept)
        self.links = LinkStore(self.dialect, self.kept)

    async def lock(self, conn: AsyncConnection, name: str) -> None:
        """Serialise writers of ``name`` until the transaction ends (SQLite writes already are)."""
        await self.dialect.lock(conn, zlib.crc32(name.encode()))

    # ------------------------------------------------------------ rows

    async def insert_row(self, conn: AsyncConnection, model: Model, write: ModelWrite) -> int:
        table = self.tables.entity(model.uid)
        await self.check_unique(conn, model, write, None)
        result = await conn.execute(
            table.insert().values(row_values(table, write.columns)).returning(table.c.id)
        )
        row_id = int(result.scalar_one())
        await self.apply_nested(conn, model, row_id, write, creating=True)
        return row_id

    async def update_row(
        self, conn: AsyncConnection, model: Model, row_id: int, write: ModelWrite
    ) -> None:
        table = self.tables.entity(model.uid)
        await self.check_unique(conn, model, write, row_id)
        if write.columns:
            await conn.execute(
                table.update().where(table.c.id == row_id).values(row_values(table, write.columns))
            )
        await self.apply_nested(conn, model, row_id, write, creating=False)

    async def lock_and_update_row(
        self,
        conn: AsyncConnection,
        model: Model,
        row_id: int,
        write: ModelWrite,
        answer: Sequence[Column[Any]],
    ) -> Sequence[Any] | None:
        """``update_row`` for an entry not locked yet; the entry's ``answer`` columns as they
        are after the write, or ``None`` when the entry does not exist (nothing written).

        The row lock serialises concurrent writers of one entry, so what happens while it is
        held decides how many writes of one entry a second the server can take: the relation
        targets are checked before it is taken, and the ``UPDATE … RETURNING`` both takes it
        and reads the answer's columns (no ``SELECT … FOR UPDATE`` first, no read after).
        """
        table = self.tables.entity(model.uid)
        if write.columns and self.dialect.has_arrays:
            # The targets are read by the UPDATE itself (a subquery per relation, evaluated
            # once the row is found): one round trip fewer, and still none under the lock.
            checks = self.reads.target_reads(model, write)
            statement = self._update_statement(model, write, answer, checks)
            parameters: dict[str, Any] = {"row_id": row_id}
            for name, value in write.columns.items():
                parameters[f"value_{name}"] = value
            for index, (_, _, referenced) in enumerate(checks):
                parameters[f"targets_{index}"] = referenced
            found = await self.kept.rows(conn, statement, parameters)
            if not found:
                return None  # 404 before any missing target, as Strapi answers
            for (attribute, relation, _), existing in zip(
                checks, found[0][len(answer) :], strict=True
            ):
                check_existing(attribute, relation, existing or ())
            row: Sequence[Any] | None = found[0][: len(answer)]
        else:
            await self._check_targets(conn, model, row_id, write)
            if write.columns:
                statement = table.update().where(table.c.id == row_id)
                changed = statement.values(row_values(table, write.columns)).returning(*answer)
                row = (await conn.execute(changed)).first()
            else:
                locked = select(*answer).where(table.c.id == row_id).with_for_update()
                row = (await conn.execute(locked)).first()
            if row is None:
                return None
        await self.check_unique(conn, model, write, row_id)
        await self.apply_nested(conn, model, row_id, write, creating=False, targets_checked=True)
        return row

    def _update_statement(
        self,
        model: Model,
        write: ModelWrite,
        answer: Sequence[Column[Any]],
        checks: Sequence[tuple[RelationAttribute, RelationWrite, list[int]]],
    ) -> Any:
        """The ``UPDATE … RETURNING`` of one row of ``model`` writing ``write``'s columns,
        returning ``answer`` and the targets that exist of each of ``checks``, with its values
        as parameters (``row_id``, ``value_<column>``, ``targets_<n>``): built once per shape
        and kept, so a write pays neither building nor compiling it."""
        table = self.tables.entity(model.uid)
        nulls = json_nulls(table, write.columns)  # written as SQL NULL: part of the shape
        key = (
            model.uid,
            tuple(write.columns),
            nulls,
            tuple(column.key for column in answer),
            tuple(attribute.name for attribute, _, _ in checks),
        )
        found = self._updates.get(key)
        if found is not None:
            return found
        values = {
            name: null() if name in nulls else bindparam(f"value_{name}", type_=table.c[name].type)
            for name in write.columns
        }
        reads = [
            self.reads.target_read(attribute, f"targets_{index}")
            for index, (attribute, _, _) in enumerate(checks)
        ]
        statement = (
            table.update()
            .where(table.c.id == bindparam("row_id", type_=table.c.id.type))
            .values(values)
            .returning(*answer, *reads)
        )
        return self._updates.put(key, statement)

    async def apply_nested(
        self,
        conn: AsyncConnection,
        model: Model,
        row_id: int,
        write: ModelWrite,
        *,
        creating: bool,
        targets_checked: bool = False,
    ) -> None:
        """Relations, media and components of one row; ``targets_checked``: its relations'
        targets were checked already (``_check_targets``; components check their own)."""
        for name, relation in write.relations.items():
            attribute = model.attributes[name]
            assert isinstance(attribute, RelationAttribute)
            if not targets_checked:
                await self.reads.check_targets(conn, attribute, relation)
            await self._store_relation(conn, model, attribute, row_id, relation, creating)
        for media in write.media.values():
            assert self.tables.files is not None and self.tables.file_morphs is not None
            await store_media(
                conn, self.tables.files, self.tables.file_morphs, model.uid, row_id, media
            )
        for field_write in write.components.values():
            await self._store_components(conn, model, row_id, field_write, creating)

    async def _check_targets(
        self, conn: AsyncConnection, model: Model, row_id: int, write: ModelWrite
    ) -> None:
        """The relation targets of an update exist — or the entry itself does not: Strapi
        answers 404 for a missing entry before it looks at the data, so a missing target
        is only reported for an entry that exists (checked on that error path alone)."""
        try:
            for name, relation in write.relations.items():
                attribute = model.attributes[name]
                assert isinstance(attribute, RelationAttribute)
                await self.reads.check_targets(conn, attribute, relation)
        except ValidationError:
            table = self.tables.entity(model.uid)
            found = await conn.execute(select(table.c.id).where(table.c.id == row_id))
            if found.first() is None:
                raise NotFoundError() from None
            raise

    async def _store_relation(
        self,
        conn: AsyncConnection,
        model: Model,
        attribute: RelationAttribute,
        row_id: int,
        write: RelationWrite,
        creating: bool,
    ) -> None:
        link = model.links[attribute.name]
        table = self.tables.link(link)
        rows: LinkRows = []
        locked: frozenset[int] = frozenset()
        if not creating:
            # a connect's targets are the ones it may add: their lists are locked as the rows
            # are read (a full set may add hundreds: only those added are locked, by store)
            lock = [item.id for item in write.connect] if write.set_ids is None else []
            rows, locked = await self.links.rows(conn, table, link, row_id, lock=lock)
        try:
            final = apply_relation_write([row[0] for row in rows], write, to_one=link.source_to_one)
        except PositionError as problem:
            raise fail(problem.item.path, str(problem)) from problem
        await self.links.store(conn, table, link, row_id, final, rows, locked)

    async def _store_components(
        self,
        conn: AsyncConnection,
        model: Model,
        row_id: int,
        field_write: ComponentFieldWrite,
        creating: bool,
    ) -> None:
        """Make the field's components those of ``field_write``: new ones inserted, given ids
        updated (they must be this entry's), the others deleted. A row being created owns
        none yet: nothing is read or deleted first."""
        attribute = field_write.attribute
        join = self.tables.component_joins[model.uid]
        current = (
            []
            if creating
            else (
                await conn.execute(
                    select(join.c.component_id, join.c.component_type)
                    .where(and_(join.c.entity_id == row_id, join.c.field == attribute.name))
                    .order_by(join.c.order, join.c.id)
                )
            ).all()
        )
        owned = {(int(row.component_id), row.component_type) for row in current}
        kept: list[tuple[int, str]] = []
        for item in field_write.items:
            uid = item.component.uid
            if item.id is None:
                new_id = await self.insert_row(conn, item.component, item.write)
                kept.append((new_id, uid))
                continue
            if (item.id, uid) not in owned:
                raise fail(
                    (*item.path, "id"),
                    f"Some of the provided components in {label(field_write.path)} are not "
                    f"related to the entity",
                )
            await self.update_row(conn, item.component, item.id, item.write)
            kept.append((item.id, uid))
        removed: dict[str, list[int]] = defaultdict(list)
        for component_id, uid in owned - set(kept):
            removed[uid].append(component_id)
        for uid, ids in removed.items():
            await self.delete_rows(conn, self.registry.components[uid], ids)
        if not creating:
            await conn.execute(
                join.delete().where(
                    and_(join.c.entity_id == row_id, join.c.field == attribute.name)
                )
            )
        if kept:
            ordered = isinstance(attribute, DynamicZoneAttribute) or (
                isinstance(attribute, ComponentAttribute) and attribute.repeatable
            )
            await conn.execute(
                join.insert(),
                [
                    {
                        "entity_id": row_id,
                        "component_id": component_id,
                        "component_type": uid,
                        "field": attribute.name,
                        # Strapi leaves the order of a single component NULL.
                        "order": float(index) if ordered else None,
                    }
                    for index, (component_id, uid) in enumerate(kept, start=1)
                ],
            )

    # ------------------------------------------------------------ deletes

    async def delete_rows(self, conn: AsyncConnection, model: Model, ids: Sequence[int]) -> None:
        """Delete entries or component rows and what they own: components (recursively) and
        media attachments. Link rows and join rows go with the rows (ON DELETE CASCADE)."""
        if not ids:
            return
        join = self.tables.component_joins.get(model.uid)
        if join is not None:
            found = await conn.execute(
                select(join.c.component_type, join.c.component_id).where(join.c.entity_id.in_(ids))
            )
            by_type: dict[str, list[int]] = defaultdict(list)
            for component_type, component_id in found:
                by_type[component_type].append(int(component_id))
            for uid, component_ids in by_type.items():
                component = self.registry.components.get(uid)
                if component is not None:
                    await self.delete_rows(conn, component, component_ids)
        assert self.tables.file_morphs is not None
        await delete_media_of(conn, self.tables.file_morphs, model.uid, ids)
        table = self.tables.entity(model.uid)
        await conn.execute(table.delete().where(table.c.id.in_(ids)))

    # ------------------------------------------------------------ uniqueness

    async def check_unique(
        self, conn: AsyncConnection, model: Model, write: ModelWrite, row_id: int | None
    ) -> None:
        """Unique and uid attributes: no other row may hold the same value.

        On PostgreSQL concurrent writers of the same attribute are serialised with a
        transaction-scoped advisory lock, so two requests cannot both pass the check.
        """
        if not write.unique:
            return
        table = self.tables.entity(model.uid)
        locale = getattr(write, "locale", None)
        errors: list[FieldError] = []
        for attribute, value, path in write.unique:
            if value is None or value == "":
                continue
            await self.lock(conn, f"{table.name}.{attribute.column}")
            condition: Any = table.c[attribute.column] == value
            if row_id is not None:
                condition = and_(condition, table.c.id != row_id)
            # A uid is unique across all locales (Strapi backs it with a global constraint);
            # other unique attributes of a localized type are unique within their locale.
            localized = isinstance(model, ContentType) and model.localized
            if localized and attribute.localized and attribute.type != "uid":
                if locale is None and row_id is not None:
                    locale = (
                        await conn.execute(select(table.c.locale).where(table.c.id == row_id))
                    ).scalar()
                condition = and_(condition, table.c.locale == locale)
            clash = await conn.execute(select(table.c.id).where(condition).limit(1))
            if clash.first() is not None:
                errors.append(FieldError(path, MESSAGES["unique"]))
        if errors:
            raise ValidationError.from_errors(errors)
