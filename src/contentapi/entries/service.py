"""EntryService: find_many, find_one, count, create, update, delete — one transaction per write.

Protocol-agnostic: REST and GraphQL both call only this. Entries come back as dicts keyed by
attribute name (plus ``id`` and the system attributes) holding Python values; each protocol
renders them its own way. Private and password attributes are never selected, so they cannot
leak through any protocol.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, and_, func, select, text, true
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.auth.passwords import hash_password
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries.input import EntryInput, parse_entry_input
from contentapi.entries.messages import MESSAGES
from contentapi.errors import FieldError, NotFoundError, ValidationError
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

    # ---------------------------------------------------------------- writes

    async def create(self, uid: str, data: Any) -> Entry:
        content_type = self.content_type(uid)
        entry_input = parse_entry_input(content_type, data, creating=True, locales=self.locales)
        await _hash_passwords(entry_input)
        async with self._writing() as conn:
            return await self._insert(conn, content_type, entry_input)

    async def update(self, uid: str, entry_id: int, data: Any) -> Entry:
        content_type = self.content_type(uid)
        was_draft = False
        if content_type.draft_and_publish:
            state = await self._publication_state(content_type, entry_id)
            if state is None:
                raise NotFoundError()
            was_draft = state == "draft"
        entry_input = parse_entry_input(
            content_type, data, creating=False, locales=self.locales, was_draft=was_draft
        )
        await _hash_passwords(entry_input)
        async with self._writing() as conn:
            if not await self._exists(conn, content_type, entry_id):
                raise NotFoundError()
            return await self._update(conn, content_type, entry_id, entry_input)

    async def delete(self, uid: str, entry_id: int) -> Entry:
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        async with self._writing() as conn:
            entry = await self._read_back(conn, content_type, entry_id)
            if entry is None:
                raise NotFoundError()
            await conn.execute(plan.table.delete().where(plan.table.c.id == entry_id))
        return entry

    async def upsert_single(self, uid: str, data: Any, locale: str | None = None) -> Entry:
        """``PUT /api/<single>``: update the single entry, creating it the first time."""
        content_type = self.content_type(uid)
        plan = self._plans[uid]
        async with self._writing() as conn:
            # Two first PUTs at once must not create two entries of a single type.
            await self._lock(conn, plan.table.name)
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
            entry_input = parse_entry_input(
                content_type,
                payload,
                creating=existing is None,
                locales=self.locales,
                was_draft=existing is not None
                and content_type.draft_and_publish
                and existing.published_at is None,
            )
            await _hash_passwords(entry_input)
            if existing is None:
                return await self._insert(conn, content_type, entry_input)
            return await self._update(conn, content_type, int(existing.id), entry_input)

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
            entry = await self._read_back(conn, content_type, int(existing))
            await conn.execute(plan.table.delete().where(plan.table.c.id == existing))
        assert entry is not None
        return entry

    # --------------------------------------------------------------- helpers

    async def _lock(self, conn: AsyncConnection, name: str) -> None:
        """Serialise writers of ``name`` until the transaction ends (SQLite writes already are)."""
        if not self.database.is_sqlite:
            key = zlib.crc32(name.encode())
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

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

    def _writing(self) -> AbstractAsyncContextManager[AsyncConnection]:
        return _write_transaction(self.database)

    async def _exists(
        self, conn: AsyncConnection, content_type: ContentType, entry_id: int
    ) -> bool:
        table = self.tables.entity(content_type.uid)
        found = await conn.execute(select(table.c.id).where(table.c.id == entry_id))
        return found.first() is not None

    async def _read_back(
        self, conn: AsyncConnection, content_type: ContentType, entry_id: int
    ) -> Entry | None:
        plan = self._plans[content_type.uid]
        row = (
            (await conn.execute(plan.select().where(plan.table.c.id == entry_id)))
            .mappings()
            .first()
        )
        return plan.to_entry(row) if row is not None else None

    async def _insert(
        self, conn: AsyncConnection, content_type: ContentType, entry_input: EntryInput
    ) -> Entry:
        table = self.tables.entity(content_type.uid)
        await self._check_unique(conn, content_type, entry_input, None)
        result = await conn.execute(
            table.insert().values(entry_input.columns).returning(table.c.id)
        )
        entry_id = int(result.scalar_one())
        entry = await self._read_back(conn, content_type, entry_id)
        assert entry is not None
        return entry

    async def _update(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_id: int,
        entry_input: EntryInput,
    ) -> Entry:
        table = self.tables.entity(content_type.uid)
        await self._check_unique(conn, content_type, entry_input, entry_id)
        await conn.execute(table.update().where(table.c.id == entry_id).values(entry_input.columns))
        entry = await self._read_back(conn, content_type, entry_id)
        assert entry is not None
        return entry

    async def _check_unique(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_input: EntryInput,
        entry_id: int | None,
    ) -> None:
        """Unique and uid attributes: no other entry may hold the same value.

        On PostgreSQL concurrent writers of the same attribute are serialised with a
        transaction-scoped advisory lock, so two requests cannot both pass the check.
        """
        table = self.tables.entity(content_type.uid)
        errors: list[FieldError] = []
        for attribute, value in entry_input.unique:
            if value is None or value == "":
                continue
            await self._lock(conn, f"{table.name}.{attribute.column}")
            condition = table.c[attribute.column] == value
            if entry_id is not None:
                condition = and_(condition, table.c.id != entry_id)
            # A uid is unique across all locales (Strapi backs it with a global constraint);
            # other unique attributes of a localized type are unique within their locale.
            if content_type.localized and attribute.localized and attribute.type != "uid":
                locale = entry_input.locale
                if locale is None and entry_id is not None:
                    locale = (
                        await conn.execute(select(table.c.locale).where(table.c.id == entry_id))
                    ).scalar()
                condition = and_(condition, table.c.locale == locale)
            clash = await conn.execute(select(table.c.id).where(condition).limit(1))
            if clash.first() is not None:
                errors.append(FieldError((attribute.name,), MESSAGES["unique"]))
        if errors:
            raise ValidationError.from_errors(errors)


async def _hash_passwords(entry_input: EntryInput) -> None:
    """Hash password values in a worker thread: a slow hash must not stall the event loop."""
    for column, plain in entry_input.passwords.items():
        entry_input.columns[column] = await asyncio.to_thread(hash_password, plain)


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
