"""EntryService: find_many, find_one, count, create, update, delete — one transaction per write.

Protocol-agnostic: REST and GraphQL both call only this. Entries come back as dicts keyed by
attribute name (plus ``id`` and the system attributes) holding Python values; each protocol
renders them its own way. Private and password attributes are never selected, so they cannot
leak through any protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, and_, func, select, true
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.auth.passwords import hash_password
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries.input import EntryWrite, ModelWrite, parse_entry_input
from contentapi.entries.nested import load_nested
from contentapi.entries.writer import Writer
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry

__all__ = ["Entry", "EntryService", "Page"]

Entry = dict[str, Any]

#: System columns every entry carries, in Strapi's response order.
_SYSTEM_COLUMNS = (
    ("created_at", "createdAt"),
    ("updated_at", "updatedAt"),
    ("published_at", "publishedAt"),
    ("locale", "locale"),
)


@dataclass(frozen=True, slots=True)
class Page:
    """One page of entries and, unless counting was switched off, the total."""

    entries: list[Entry]
    total: int | None


@dataclass(frozen=True, slots=True)
class _ReadPlan:
    """The columns to select for a content type and the attribute name of each."""

    table: Table
    columns: tuple[tuple[str, str], ...]  # (column, attribute name)

    def select(self) -> Select[Any]:
        return select(*(self.table.c[column] for column, _ in self.columns))

    def to_entry(self, row: Mapping[str, Any]) -> Entry:
        return {name: row[column] for column, name in self.columns}


class EntryService:
    """Reads and writes entries of every content type in the registry."""

    def __init__(
        self,
        registry: Registry,
        tables: ContentTables,
        database: Database,
        *,
        locales: tuple[str, ...],
    ) -> None:
        self.registry = registry
        self.tables = tables
        self.database = database
        self.locales = locales
        self.writer = Writer(registry, tables, is_sqlite=database.is_sqlite)
        self._plans = {
            uid: self._read_plan(content_type)
            for uid, content_type in registry.content_types.items()
        }

    def _read_plan(self, content_type: ContentType) -> _ReadPlan:
        table = self.tables.entity(content_type.uid)
        columns: list[tuple[str, str]] = [("id", "id")]
        columns += [
            (attribute.column, attribute.name)
            for attribute in content_type.scalars()
            if not attribute.private
        ]
        columns += [(column, name) for column, name in _SYSTEM_COLUMNS if column in table.c]
        return _ReadPlan(table, tuple(columns))

    def content_type(self, uid: str) -> ContentType:
        return self.registry.content_types[uid]

    # ----------------------------------------------------------------- reads

    def _visible(self, content_type: ContentType, query: ReadQuery) -> ColumnElement[bool]:
        """Publication state and locale: which rows a read may see at all."""
        table = self.tables.entity(content_type.uid)
        conditions: list[ColumnElement[bool]] = []
        if content_type.draft_and_publish and query.publication_state == "live":
            conditions.append(table.c.published_at.is_not(None))
        if content_type.localized:
            conditions.append(table.c.locale == (query.locale or self.locales[0]))
        return and_(true(), *conditions)

    async def find_many(self, uid: str, query: ReadQuery) -> Page:
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        where = self._visible(content_type, query)
        statement = (
            plan.select()
            .where(where)
            .order_by(plan.table.c.id)
            .limit(query.pagination.limit)
            .offset(query.pagination.offset)
        )
        async with self.database.read() as conn:
            rows = (await conn.execute(statement)).mappings().all()
            total = None
            if query.pagination.with_count:
                total = await self._count(conn, plan.table, where)
        return Page([plan.to_entry(row) for row in rows], total)

    async def count(self, uid: str, query: ReadQuery) -> int:
        content_type = self.content_type(uid)
        async with self.database.read() as conn:
            return await self._count(
                conn, self._plans[uid].table, self._visible(content_type, query)
            )

    @staticmethod
    async def _count(conn: AsyncConnection, table: Table, where: ColumnElement[bool]) -> int:
        statement = select(func.count()).select_from(table).where(where)
        return int((await conn.execute(statement)).scalar_one())

    async def find_one(self, uid: str, entry_id: int, query: ReadQuery) -> Entry | None:
        """One entry by id, honouring the publication state (a draft is absent in ``live``)."""
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        where = plan.table.c.id == entry_id
        if content_type.draft_and_publish and query.publication_state == "live":
            where = and_(where, plan.table.c.published_at.is_not(None))
        async with self.database.read() as conn:
            row = (await conn.execute(plan.select().where(where))).mappings().first()
        return plan.to_entry(row) if row is not None else None

    async def find_single(self, uid: str, query: ReadQuery) -> Entry | None:
        """The entry of a single type (per locale when localized)."""
        plan = self._plans[uid]
        statement = (
            plan.select()
            .where(self._visible(self.content_type(uid), query))
            .order_by(plan.table.c.id)
            .limit(1)
        )
        async with self.database.read() as conn:
            row = (await conn.execute(statement)).mappings().first()
        return plan.to_entry(row) if row is not None else None

    async def nested_state(self, uid: str, entry_id: int) -> dict[str, Any]:
        """Everything an entry owns beyond its scalars: related ids (in this side's order),
        file ids and its component tree (``{}`` when the entry does not exist)."""
        async with self.database.read() as conn:
            states = await load_nested(
                conn, self.registry, self.tables, self.content_type(uid), [entry_id]
            )
        return states[entry_id]

    # ---------------------------------------------------------------- writes

    async def create(self, uid: str, data: Any) -> Entry:
        content_type = self.content_type(uid)
        write = self._parse(content_type, data, creating=True)
        await _hash_passwords(write)
        async with self._writing() as conn:
            entry_id = await self.writer.insert_row(conn, content_type, write)
            return await self._read_back_existing(conn, content_type, entry_id)

    async def update(self, uid: str, entry_id: int, data: Any) -> Entry:
        content_type = self.content_type(uid)
        was_draft = False
        if content_type.draft_and_publish:
            state = await self._publication_state(content_type, entry_id)
            if state is None:
                raise NotFoundError()
            was_draft = state == "draft"
        write = self._parse(content_type, data, creating=False, was_draft=was_draft)
        await _hash_passwords(write)
        async with self._writing() as conn:
            if not await self._lock_entry(conn, content_type, entry_id):
                raise NotFoundError()
            await self.writer.update_row(conn, content_type, entry_id, write)
            return await self._read_back_existing(conn, content_type, entry_id)

    async def delete(self, uid: str, entry_id: int) -> Entry:
        content_type = self.content_type(uid)
        async with self._writing() as conn:
            if not await self._lock_entry(conn, content_type, entry_id):
                raise NotFoundError()
            entry = await self._read_back_existing(conn, content_type, entry_id)
            await self.writer.delete_rows(conn, content_type, [entry_id])
        return entry

    async def upsert_single(self, uid: str, data: Any, locale: str | None = None) -> Entry:
        """``PUT /api/<single>``: update the single entry, creating it the first time."""
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        async with self._writing() as conn:
            # Two first PUTs at once must not create two entries of a single type.
            await self.writer.lock(conn, plan.table.name)
            where = self._visible(
                content_type, ReadQuery(publication_state="preview", locale=locale)
            )
            columns = [plan.table.c.id]
            if content_type.draft_and_publish:
                columns.append(plan.table.c.published_at)
            existing = (
                await conn.execute(select(*columns).where(where).order_by(plan.table.c.id))
            ).first()
            payload = dict(data) if isinstance(data, Mapping) else data
            if existing is None and content_type.localized and isinstance(payload, dict):
                payload.setdefault("locale", locale)
            was_draft = (
                existing is not None
                and content_type.draft_and_publish
                and existing.published_at is None
            )
            write = self._parse(
                content_type, payload, creating=existing is None, was_draft=was_draft
            )
            await _hash_passwords(write)
            if existing is None:
                entry_id = await self.writer.insert_row(conn, content_type, write)
            else:
                entry_id = int(existing.id)
                await self.writer.update_row(conn, content_type, entry_id, write)
            return await self._read_back_existing(conn, content_type, entry_id)

    async def delete_single(self, uid: str, locale: str | None = None) -> Entry:
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        where = self._visible(content_type, ReadQuery(publication_state="preview", locale=locale))
        async with self._writing() as conn:
            existing = (
                await conn.execute(select(plan.table.c.id).where(where).order_by(plan.table.c.id))
            ).scalar()
            if existing is None:
                raise NotFoundError()
            entry = await self._read_back_existing(conn, content_type, int(existing))
            await self.writer.delete_rows(conn, content_type, [int(existing)])
        return entry

    # --------------------------------------------------------------- helpers

    def _parse(
        self, content_type: ContentType, data: Any, *, creating: bool, was_draft: bool = False
    ) -> EntryWrite:
        return parse_entry_input(
            content_type,
            data,
            registry=self.registry,
            creating=creating,
            locales=self.locales,
            was_draft=was_draft,
        )

    def _writing(self) -> AbstractAsyncContextManager[AsyncConnection]:
        return _write_transaction(self.database)

    async def _lock_entry(
        self, conn: AsyncConnection, content_type: ContentType, entry_id: int
    ) -> bool:
        """Lock an entry's row for this transaction (concurrent writers of one entry queue up
        and each sees the other's relations); ``False`` when it does not exist."""
        table = self.tables.entity(content_type.uid)
        found = await conn.execute(
            select(table.c.id).where(table.c.id == entry_id).with_for_update()
        )
        return found.first() is not None

    async def _publication_state(self, content_type: ContentType, entry_id: int) -> str | None:
        """``"draft"`` or ``"published"``; ``None`` when the entry does not exist."""
        table = self.tables.entity(content_type.uid)
        async with self.database.read() as conn:
            row = (
                await conn.execute(select(table.c.published_at).where(table.c.id == entry_id))
            ).first()
        if row is None:
            return None
        return "draft" if row.published_at is None else "published"

    async def _read_back_existing(
        self, conn: AsyncConnection, content_type: ContentType, entry_id: int
    ) -> Entry:
        plan = self._plans[content_type.uid]
        row = (
            (await conn.execute(plan.select().where(plan.table.c.id == entry_id))).mappings().one()
        )
        return plan.to_entry(row)


async def _hash_passwords(write: ModelWrite) -> None:
    """Hash password values in a worker thread: a slow hash must not stall the event loop."""
    for model_write in write.walk():
        for column, plain in model_write.passwords.items():
            model_write.columns[column] = await asyncio.to_thread(hash_password, plain)


@asynccontextmanager
async def _write_transaction(database: Database) -> AsyncIterator[AsyncConnection]:
    """A write transaction whose database-level rejections of values become 400s.

    Input validation catches bad values before SQL runs; this is the net for races (a unique
    index hit by a concurrent writer) so that no client ever sees a 500 for its data.
    """
    try:
        async with database.write() as conn:
            yield conn
    except IntegrityError as exc:
        raise ValidationError("This attribute must be unique") from exc
    except DataError as exc:
        raise ValidationError("A value cannot be stored: it is out of range or malformed") from exc
