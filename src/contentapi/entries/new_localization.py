"""``POST /api/P/:id/localizations`` (and a single type's ``POST /api/S/localizations``): a new
entry in another locale, linked to its source's localization group.

Its own flow because Strapi's i18n handler checks in its own order, before and again under the
source's row lock, and fills the body from the source; the group links and copies themselves
are ``localization.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.entries.collaborators import WritesParts
from contentapi.entries.input import parse_entry_input
from contentapi.entries.localization import (
    copy_non_localized,
    group_ids,
    link_group,
    non_localized,
)
from contentapi.entries.messages import RequestError
from contentapi.entries.reads import Entry
from contentapi.entries.write_plan import EntryWrite
from contentapi.entries.writes import hash_passwords
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery
from contentapi.schema.model import ContentType

__all__ = ["NewLocalizations"]

#: Strapi's ``NotFoundError()`` default message, which the i18n plugin's handler answers.
ENTITY_NOT_FOUND = "Entity not found"


class NewLocalizations(WritesParts):
    """Creates localizations of entries of every localized content type in the registry."""

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
            locales = (await self.locales.current(conn)).codes
            await self._check_new_locale(conn, content_type, source_id, locale, locales)
        shared = non_localized(content_type)

        async def planned(data: Mapping[str, Any]) -> EntryWrite:
            write = parse_entry_input(
                content_type,
                data,
                registry=self.registry,
                creating=True,
                locales=locales,
                copied=frozenset(attribute.name for attribute in shared),
                publish=False,
            )
            await hash_passwords(write, self.passwords)
            return write

        hooks = self.lifecycles.of(uid, "create")
        # parsed before the transaction, unless a hook may change the data
        write = await planned(data) if hooks is None else None
        table = self.tables.entity(uid)
        async with self.writes.writing(uid) as conn:
            if not await self.writes.lock_entry(conn, content_type, source_id):
                raise NotFoundError(ENTITY_NOT_FOUND)
            # Again under the lock: a concurrent request may have taken the locale meanwhile.
            locales = (await self.locales.current(conn)).codes
            members = await self._check_new_locale(conn, content_type, source_id, locale, locales)
            if hooks is not None:
                run = await hooks.before(conn, data=data, query=query)
                data = run.params["data"]
                write = await planned(data)
            assert write is not None
            missing = [a for a in shared if a.name not in data]
            if missing:
                statement = select(*(table.c[a.column] for a in missing))
                source = (
                    (await conn.execute(statement.where(table.c.id == source_id))).mappings().one()
                )
                write.columns.update({a.column: source[a.column] for a in missing})
            entry_id = await self.writer.insert_row(conn, content_type, write)
            await link_group(conn, self.tables, content_type, entry_id, members)
            entry = await self.reads.read_back_existing(conn, content_type, entry_id, query)
            columns = [a.column for a in shared]
            await copy_non_localized(conn, self.tables, content_type, entry_id, members, columns)
            if hooks is not None:
                entry = await run.after(entry)
            await self.writes.record(conn, "entry.create", content_type, entry, query)
            # Strapi's i18n updates the source entry to link it: an ``entry.update`` of it
            linked = await self.reads.read_back_existing(conn, content_type, source_id, None)
            await self.writes.record(conn, "entry.update", content_type, linked, None)
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
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        source_id: int,
        locale: Any,
        locales: tuple[str, ...],
    ) -> list[int]:
        """The entry and its group's members, when ``locale`` (one of the database's
        ``locales``) may be added to the group."""
        table = self.tables.entity(content_type.uid)
        found = await conn.execute(select(table.c.locale).where(table.c.id == source_id))
        source = found.first()
        if source is None:
            raise NotFoundError(ENTITY_NOT_FOUND)
        if locale is None:
            raise RequestError("locale is missing")
        if locale not in locales:
            raise RequestError("locale is invalid")
        others = await group_ids(conn, self.tables, content_type, source_id)
        used = {source.locale}
        if others:
            rows = await conn.execute(select(table.c.locale).where(table.c.id.in_(others)))
            used |= {row.locale for row in rows}
        if locale in used:
            raise RequestError("locale is already used")
        return [source_id, *others]
