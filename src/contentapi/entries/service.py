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
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, func, select
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.auth.passwords import PasswordHasher
from contentapi.caching import ENTRY_STATEMENTS, PAGE_STATEMENTS, BoundedCache
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries.input import EntryWrite, ModelWrite, parse_entry_input
from contentapi.entries.localization import (
    copy_non_localized,
    group_ids,
    link_group,
    non_localized,
    shared_columns,
)
from contentapi.entries.messages import RequestError
from contentapi.entries.nested import full_populate, ids_only
from contentapi.entries.totals import TotalsCache
from contentapi.entries.turns import EntryTurns
from contentapi.entries.writer import Writer
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.query.compile import Compiler
from contentapi.query.parse import LOCALIZATIONS
from contentapi.query.populate import Populator, select_columns
from contentapi.schema.builtin import PERMISSION_UID, ROLE_UID, USER_UID
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry

#: models whose writes change who may do what (the caller cache is emptied at their commit)
_CALLER_MODELS = frozenset({USER_UID, ROLE_UID, PERMISSION_UID})

__all__ = ["Entry", "EntryService", "Page"]

Columns = list[tuple[str, str]]

Entry = dict[str, Any]

#: Strapi's ``NotFoundError()`` default message, which the i18n plugin's handler answers.
ENTITY_NOT_FOUND = "Entity not found"


@dataclass(frozen=True, slots=True)
class Page:
    """One page of entries and, unless counting was switched off, the total."""

    entries: list[Entry]
    total: int | None


class EntryService:
    """Reads and writes entries of every content type in the registry."""

    def __init__(
        self,
        registry: Registry,
        tables: ContentTables,
        database: Database,
        *,
        locales: tuple[str, ...],
        passwords: PasswordHasher | None = None,
    ) -> None:
        self.registry = registry
        #: hashes password attributes (bcrypt by default, as Strapi: see ``auth.passwords``)
        self.passwords = passwords or PasswordHasher()
        self.tables = tables
        self.database = database
        self.locales = locales
        self.writer = Writer(registry, tables, dialect=database.dialect, kept=database.kept)
        self.compiler = Compiler(registry, tables, database.dialect)
        self.populator = Populator(registry, tables, self.compiler, locales[0], database.kept)
        #: built page and count statements by query (``_page_statements``)
        self._pages: BoundedCache[Any, tuple[Select[Any], Columns, Select[Any], Any]] = (
            BoundedCache(PAGE_STATEMENTS)
        )
        #: list totals per query (PostgreSQL: trusted while the change listener listens)
        self.totals = TotalsCache()
        #: updates of one entry queue here, one transaction at a time per worker (turns.py)
        self.turns = EntryTurns()
        database.after_write.append(self.totals.clear)
        #: built one-entry statements by type, fields and state (a handful per type)
        self._by_id: BoundedCache[Any, tuple[Select[Any], Columns]] = BoundedCache(ENTRY_STATEMENTS)

    def content_type(self, uid: str) -> ContentType:
        return self.registry.content_types[uid]

    # ----------------------------------------------------------------- reads

    def _where(self, content_type: ContentType, query: ReadQuery) -> ColumnElement[bool]:
        table = self.tables.entity(content_type.uid)
        return and_(
            self.compiler.visible(
                content_type, table, query.publication_state, query.locale, self.locales[0]
            ),
            self.compiler.where(content_type, table, query.filters),
        )

    def _select(self, content_type: ContentType, query: ReadQuery) -> tuple[Select[Any], Columns]:
        table = self.tables.entity(content_type.uid)
        columns = select_columns(content_type, query.fields)
        return select(*(table.c[column] for column, _ in columns)), columns

    async def _entries(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        statement: Select[Any],
        columns: Columns,
        query: ReadQuery,
        parameters: dict[str, Any] | None = None,
        *,
        kept: bool = False,
    ) -> list[Entry]:
        """The entries ``statement`` selects, populated. ``kept``: the statement is one of
        those kept for reuse (``_pages``, ``_by_id``), which may run through the driver."""
        # plain rows (tuples in the selected order) are cheaper than mappings
        names = [name for _, name in columns]
        if kept:
            rows = await self.database.kept.rows(conn, statement, parameters)
        else:
            rows = (await conn.execute(statement, parameters)).all()
        entries = [dict(zip(names, row, strict=True)) for row in rows]
        await self.populator.run(
            conn, content_type, entries, query.populate, query.publication_state
        )
        return entries

    def _page_statements(
        self, content_type: ContentType, query: ReadQuery
    ) -> tuple[Select[Any], Columns, Select[Any], Any]:
        """The page and count statements of a list query, built once per query shape and
        values (``_pages``): a repeated request skips building them and SQLAlchemy's cache-key
        walk."""
        key: tuple[Any, ...] | None = (
            content_type.uid,
            query.publication_state,
            query.locale,
            query.filters,
            query.sort,
            query.fields,
            query.pagination.limit,
            query.pagination.offset,
        )
        try:
            found = self._pages.get(key)
        except TypeError:  # a value that cannot be hashed (a list): built every time
            found, key = None, None
        if found is not None:
            return found
        table = self.tables.entity(content_type.uid)
        where = self._where(content_type, query)
        statement, columns = self._select(content_type, query)
        statement = (
            statement.where(where)
            .order_by(*self.compiler.order_by(content_type, table, query.sort))
            .limit(query.pagination.limit)
            .offset(query.pagination.offset)
        )
        count = select(func.count()).select_from(table).where(where)
        # the count does not depend on the page: its key leaves limit and offset out
        built = (statement, columns, count, None if key is None else key[:-2])
        if key is not None:
            self._pages.put(key, built)
        return built

    async def find_many(self, uid: str, query: ReadQuery) -> Page:
        """A page of entries: filtered, sorted, paginated, with fields and populate."""
        content_type = self.content_type(uid)
        statement, columns, count, count_key = self._page_statements(content_type, query)
        total = None
        generation = self.totals.generation
        if query.pagination.with_count and count_key is not None:
            total = self.totals.get(count_key)
        async with self.database.read() as conn:
            entries = await self._entries(
                conn, content_type, statement, columns, query, kept=count_key is not None
            )
            if query.pagination.with_count and total is None:
                total = int((await conn.execute(count)).scalar_one())
                if count_key is not None:
                    self.totals.put(count_key, total, generation)
        return Page(entries, total)

    async def count(self, uid: str, query: ReadQuery) -> int:
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        statement = select(func.count()).select_from(table).where(self._where(content_type, query))
        async with self.database.read() as conn:
            return int((await conn.execute(statement)).scalar_one())

    async def find_one(self, uid: str, entry_id: int, query: ReadQuery) -> Entry | None:
        """One entry by id, honouring the publication state (a draft is absent in ``live``)."""
        async with self.database.read() as conn:
            return await self._find_by_id(conn, self.content_type(uid), entry_id, query)

    async def _find_by_id(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_id: int,
        query: ReadQuery,
        *,
        any_state: bool = False,
    ) -> Entry | None:
        live = content_type.draft_and_publish and query.publication_state == "live"
        live = live and not any_state
        key = (content_type.uid, query.fields, live)
        found = self._by_id.get(key)
        if found is None:  # built once per type, fields and state; the id is bound
            table = self.tables.entity(content_type.uid)
            where: ColumnElement[bool] = table.c.id == bindparam("entry_id")
            if live:
                where = and_(where, table.c.published_at.is_not(None))
            statement, columns = self._select(content_type, query)
            found = self._by_id.put(key, (statement.where(where), columns))
        statement, columns = found
        entries = await self._entries(
            conn, content_type, statement, columns, query, {"entry_id": entry_id}, kept=True
        )
        return entries[0] if entries else None

    async def find_single(self, uid: str, query: ReadQuery) -> Entry | None:
        """The entry of a single type (per locale when localized)."""
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        statement, columns = self._select(content_type, query)
        statement = statement.where(self._where(content_type, query)).order_by(table.c.id).limit(1)
        async with self.database.read() as conn:
            entries = await self._entries(conn, content_type, statement, columns, query)
        return entries[0] if entries else None

    async def nested_state(self, uid: str, entry_id: int) -> dict[str, Any]:
        """Everything an entry owns beyond its scalars: related ids (in this side's order),
        file ids and its component tree (``{}`` when the entry does not exist)."""
        content_type = self.content_type(uid)
        query = ReadQuery(
            publication_state="preview",
            fields=("id",),
            populate=full_populate(self.registry, content_type),
        )
        async with self.database.read() as conn:
            entry = await self._find_by_id(conn, content_type, entry_id, query, any_state=True)
        if entry is None:
            return {}
        state = ids_only(self.registry, content_type, entry)
        state.pop("id", None)
        return state

    # ---------------------------------------------------------------- writes

    async def create(
        self, uid: str, data: Any, query: ReadQuery | None = None, *, publish: bool = True
    ) -> Entry:
        """Create an entry; answered with ``query``'s fields and populate. ``publish`` false
        leaves an entry without ``publishedAt`` a draft (GraphQL's ``createX``)."""
        content_type = self.content_type(uid)
        write = self._parse(content_type, data, creating=True, publish=publish)
        await _hash_passwords(write, self.passwords)
        async with self._writing(uid) as conn:
            entry_id = await self.writer.insert_row(conn, content_type, write)
            return await self._read_back_existing(conn, content_type, entry_id, query)

    async def update(
        self,
        uid: str,
        entry_id: int,
        data: Any,
        query: ReadQuery | None = None,
        *,
        sync_populated: bool = False,
    ) -> Entry:
        """Update an entry; answered with ``query``'s fields and populate.

        ``sync_populated`` (REST): the non-localized values the answer selects are copied to
        the localizations it populates, as Strapi's ``syncNonLocalizedAttributes`` does with the
        entry its REST update returns (``localization.py``); GraphQL's update copies nothing.
        """
        content_type = self.content_type(uid)
        was_draft = False
        if content_type.draft_and_publish:
            state = await self._publication_state(content_type, entry_id)
            if state is None:
                raise NotFoundError()
            was_draft = state == "draft"
        write = self._parse(content_type, data, creating=False, was_draft=was_draft)
        await _hash_passwords(write, self.passwords)
        query = query or ReadQuery()
        table = self.tables.entity(uid)
        columns = select_columns(content_type, query.fields)
        async with self.turns.turn((uid, entry_id)), self._writing(uid) as conn:
            row = await self.writer.lock_and_update_row(
                conn, content_type, entry_id, write, [table.c[column] for column, _ in columns]
            )
            if row is None:
                raise NotFoundError()
            # the answer: the row the UPDATE returned, populated once every write is done
            entry = dict(zip([name for _, name in columns], row, strict=True))
            await self.populator.run(
                conn, content_type, [entry], query.populate, query.publication_state
            )
            if sync_populated:
                await self._sync_populated(conn, content_type, entry, query)
            return entry

    async def _sync_populated(
        self, conn: AsyncConnection, content_type: ContentType, entry: Entry, query: ReadQuery
    ) -> None:
        """Copy the answer's non-localized values to the localizations the request populates.

        Strapi's entity service reads its update's answer with ``fields`` and ``populate``
        only, so the localizations it copies to are the populated ones drafts included,
        whatever ``publicationState`` says; this answer honours it (docs/differences-from-
        strapi.md), so in ``live`` the targets are read again in ``preview`` (ids only).
        """
        node = query.populate.get(LOCALIZATIONS) if content_type.localized else None
        if not isinstance(node, RelationPopulate) or node.count:
            return
        populated = entry.get(LOCALIZATIONS)
        if query.publication_state != "preview" or populated is None:
            probe: Entry = {"id": entry["id"]}
            ids_only_node = replace(node, fields=("id",), populate={})
            await self.populator.run(
                conn, content_type, [probe], {LOCALIZATIONS: ids_only_node}, "preview"
            )
            populated = probe.get(LOCALIZATIONS)
        if not populated:
            return
        targets = [int(member["id"]) for member in populated]
        columns = shared_columns(content_type, query.fields)
        await copy_non_localized(
            conn, self.tables, content_type, int(entry["id"]), targets, columns
        )

    async def create_localization(
        self, uid: str, source_id: int | None, data: Any, query: ReadQuery | None = None
    ) -> Entry:
        """``POST /api/P/:id/localizations`` (``source_id`` ``None``: a single type's
        ``POST /api/S/localizations``, from its first entry in any locale): a new entry in
        another locale, linked to the group.

        As Strapi's i18n ``createCreateLocalizationHandler``: checked in its order — the entry
        exists (404 ``Entity not found``), then ``locale is missing`` / ``is invalid`` / ``is
        already used`` in its group (400 ``ApplicationError``), then the data as an entity
        service create (validated as published, stored as a draft unless ``publishedAt`` is
        given). The source's non-localized scalars fill those the body lacks; once linked, the
        new entry's are copied onto every member. The answer is read before that copy.
        """
        content_type = self.content_type(uid)
        if not content_type.localized:
            raise ValidationError(f"{content_type.display_name} is not localized")
        if not isinstance(data, Mapping):
            raise ValidationError("The request body must be a JSON object")
        locale = data.get("locale")
        async with self.database.read() as conn:
            source_id = await self._localization_source(conn, content_type, source_id)
            await self._check_new_locale(conn, content_type, source_id, locale)
        shared = non_localized(content_type)
        write = parse_entry_input(
            content_type,
            data,
            registry=self.registry,
            creating=True,
            locales=self.locales,
            copied=frozenset(attribute.name for attribute in shared),
            publish=False,
        )
        await _hash_passwords(write, self.passwords)
        table = self.tables.entity(uid)
        async with self._writing(uid) as conn:
            if not await self._lock_entry(conn, content_type, source_id):
                raise NotFoundError(ENTITY_NOT_FOUND)
            # Again under the lock: a concurrent request may have taken the locale meanwhile.
            members = await self._check_new_locale(conn, content_type, source_id, locale)
            missing = [a for a in shared if a.name not in data]
            if missing:
                statement = select(*(table.c[a.column] for a in missing))
                source = (
                    (await conn.execute(statement.where(table.c.id == source_id))).mappings().one()
                )
                write.columns.update({a.column: source[a.column] for a in missing})
            entry_id = await self.writer.insert_row(conn, content_type, write)
            await link_group(conn, self.tables, content_type, entry_id, members)
            entry = await self._read_back_existing(conn, content_type, entry_id, query)
            columns = [a.column for a in shared]
            await copy_non_localized(conn, self.tables, content_type, entry_id, members, columns)
            return entry

    async def _localization_source(
        self, conn: AsyncConnection, content_type: ContentType, source_id: int | None
    ) -> int:
        """The entry a localization is made from: the given one, or a single type's first
        entry in any locale (Strapi takes the one its database returns first: the lowest id
        here); 404 ``Entity not found`` when a single type has none."""
        if source_id is not None:
            return source_id
        table = self.tables.entity(content_type.uid)
        found = (await conn.execute(select(func.min(table.c.id)))).scalar()
        if found is None:
            raise NotFoundError(ENTITY_NOT_FOUND)
        return int(found)

    async def _check_new_locale(
        self, conn: AsyncConnection, content_type: ContentType, source_id: int, locale: Any
    ) -> list[int]:
        """The entry and its group's members, when ``locale`` may be added to the group."""
        table = self.tables.entity(content_type.uid)
        found = await conn.execute(select(table.c.locale).where(table.c.id == source_id))
        source = found.first()
        if source is None:
            raise NotFoundError(ENTITY_NOT_FOUND)
        if locale is None:
            raise RequestError("locale is missing")
        if locale not in self.locales:
            raise RequestError("locale is invalid")
        others = await group_ids(conn, self.tables, content_type, source_id)
        used = {source.locale}
        if others:
            rows = await conn.execute(select(table.c.locale).where(table.c.id.in_(others)))
            used |= {row.locale for row in rows}
        if locale in used:
            raise RequestError("locale is already used")
        return [source_id, *others]

    async def delete(self, uid: str, entry_id: int, query: ReadQuery | None = None) -> Entry:
        content_type = self.content_type(uid)
        async with self._writing(uid) as conn:
            if not await self._lock_entry(conn, content_type, entry_id):
                raise NotFoundError()
            entry = await self._read_back_existing(conn, content_type, entry_id, query)
            await self.writer.delete_rows(conn, content_type, [entry_id])
        return entry

    async def upsert_single(
        self,
        uid: str,
        data: Any,
        locale: str | None = None,
        query: ReadQuery | None = None,
        *,
        rest: bool = False,
    ) -> Entry:
        """``PUT /api/<single>``: update the single entry, creating it the first time.

        ``rest``: as Strapi's core single-type service (``createOrUpdate``) — with no entry in
        the locale but one in another, 400 ``singleType.alreadyExists`` (a localization is made
        with ``POST /api/S/localizations``); the first entry takes the body's ``locale`` or the
        default one, not the query's; an update copies non-localized values as ``update``
        with ``sync_populated`` does. Otherwise (GraphQL) the entry is made in ``locale``.
        """
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        async with self._writing(uid) as conn:
            # Two first PUTs at once must not create two entries of a single type.
            await self.writer.lock(conn, table.name)
            where = self._where(content_type, ReadQuery(publication_state="preview", locale=locale))
            columns = [table.c.id]
            if content_type.draft_and_publish:
                columns.append(table.c.published_at)
            existing = (
                await conn.execute(select(*columns).where(where).order_by(table.c.id))
            ).first()
            payload = dict(data) if isinstance(data, Mapping) else data
            if existing is None and rest and content_type.localized:
                if (await conn.execute(select(func.count()).select_from(table))).scalar():
                    raise ValidationError("singleType.alreadyExists")
            elif existing is None and content_type.localized and isinstance(payload, dict):
                payload.setdefault("locale", locale)
            was_draft = (
                existing is not None
                and content_type.draft_and_publish
                and existing.published_at is None
            )
            write = self._parse(
                content_type, payload, creating=existing is None, was_draft=was_draft
            )
            await _hash_passwords(write, self.passwords)
            if existing is None:
                entry_id = await self.writer.insert_row(conn, content_type, write)
                return await self._read_back_existing(conn, content_type, entry_id, query)
            entry_id = int(existing.id)
            await self.writer.update_row(conn, content_type, entry_id, write)
            entry = await self._read_back_existing(conn, content_type, entry_id, query)
            if rest:
                await self._sync_populated(conn, content_type, entry, query or ReadQuery())
            return entry

    async def delete_single(
        self, uid: str, locale: str | None = None, query: ReadQuery | None = None
    ) -> Entry:
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        where = self._where(content_type, ReadQuery(publication_state="preview", locale=locale))
        async with self._writing(uid) as conn:
            existing = (
                await conn.execute(select(table.c.id).where(where).order_by(table.c.id))
            ).scalar()
            if existing is None:
                raise NotFoundError()
            entry = await self._read_back_existing(conn, content_type, int(existing), query)
            await self.writer.delete_rows(conn, content_type, [int(existing)])
        return entry

    # --------------------------------------------------------------- helpers

    def _parse(
        self,
        content_type: ContentType,
        data: Any,
        *,
        creating: bool,
        was_draft: bool = False,
        publish: bool = True,
    ) -> EntryWrite:
        return parse_entry_input(
            content_type,
            data,
            registry=self.registry,
            creating=creating,
            locales=self.locales,
            was_draft=was_draft,
            publish=publish,
        )

    def _writing(self, uid: str) -> AbstractAsyncContextManager[AsyncConnection]:
        return _write_transaction(self.database, changes_callers=uid in _CALLER_MODELS)

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
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_id: int,
        query: ReadQuery | None,
    ) -> Entry:
        """The written entry as the response shows it (whatever its publication state)."""
        found = await self._find_by_id(
            conn, content_type, entry_id, query or ReadQuery(), any_state=True
        )
        assert found is not None
        return found


async def _hash_passwords(write: ModelWrite, hasher: PasswordHasher) -> None:
    """Hash password values in a worker thread: a slow hash must not stall the event loop."""
    for model_write in write.walk():
        for column, plain in model_write.passwords.items():
            model_write.columns[column] = await asyncio.to_thread(hasher.hash, plain)


@asynccontextmanager
async def _write_transaction(
    database: Database, *, changes_callers: bool
) -> AsyncIterator[AsyncConnection]:
    """A write transaction whose database-level rejections of values become 400s.

    Input validation catches bad values before SQL runs; this is the net for races (a unique
    index hit by a concurrent writer) so that no client ever sees a 500 for its data.
    """
    try:
        async with database.write(changes_callers=changes_callers) as conn:
            yield conn
    except IntegrityError as exc:
        raise ValidationError("This attribute must be unique") from exc
    except DataError as exc:
        raise ValidationError("A value cannot be stored: it is out of range or malformed") from exc
