"""Single types: the one entry of a content type (per locale when localized), read, written
with ``PUT`` (created the first time) and deleted, as Strapi's core single-type service.

Apart from the collection flows because a single type finds its entry by locale, not by id,
and two first ``PUT``s at once must not make two entries (writers of its table take
turns: ``Writer.lock``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.entries.collaborators import WritesParts
from contentapi.entries.localization import sync_populated_localizations
from contentapi.entries.reads import Entry
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery

__all__ = ["SingleTypes"]


class SingleTypes(WritesParts):
    """Reads and writes the entry of every single type in the registry."""

    async def find_single(self, uid: str, query: ReadQuery) -> Entry | None:
        """The entry of a single type (per locale when localized)."""
        hooks = self.lifecycles.of(uid, "find_one")
        if hooks is None:
            return await self._single(uid, query)
        run = await hooks.before(None, id=None, query=query)
        return await run.after(await self._single(uid, run.params["query"]))

    async def _single(self, uid: str, query: ReadQuery) -> Entry | None:
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        statement, columns = self.reads.selection(content_type, query)

        async def read(conn: AsyncConnection) -> list[Entry]:
            default = await self.reads.default_locale(conn, content_type, query.locale)
            where = self.reads.where(content_type, query, default)
            found = statement.where(where).order_by(table.c.id).limit(1)
            return await self.reads.entries(conn, content_type, found, columns, query)

        entries = await self.database.read_replicated(read)
        return entries[0] if entries else None

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
        async with self.writes.writing(uid) as conn:
            # Two first PUTs at once must not create two entries of a single type.
            await self.writer.lock(conn, table.name)
            default = await self.reads.default_locale(conn, content_type, locale)
            where = self.reads.where(
                content_type, ReadQuery(publication_state="preview", locale=locale), default
            )
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
            creating = existing is None
            locales = await self.writes.locales_for(content_type, creating=creating, conn=conn)
            hooks = self.lifecycles.of(uid, "create" if creating else "update")
            if hooks is not None:
                known = {} if existing is None else {"id": int(existing.id)}
                run = await hooks.before(conn, **known, data=payload, query=query)
                payload = run.params["data"]
            write = await self.writes.planned(
                content_type, payload, locales, creating=creating, was_draft=was_draft
            )
            if existing is None:
                entry_id = await self.writer.insert_row(conn, content_type, write)
                entry = await self.reads.read_back_existing(conn, content_type, entry_id, query)
            else:
                entry_id = int(existing.id)
                await self.writer.update_row(conn, content_type, entry_id, write)
                entry = await self.reads.read_back_existing(conn, content_type, entry_id, query)
            if hooks is not None:
                entry = await run.after(entry)
            # the event before the copy to the localizations, as in ``EntryWrites.update``
            await self.writes.record(
                conn, "entry.create" if creating else "entry.update", content_type, entry, query
            )
            if not creating:
                if rest:
                    copied_to = await sync_populated_localizations(
                        conn, self.tables, self.populator, content_type, entry, query or ReadQuery()
                    )
                    await self.writes.record_updates(conn, content_type, copied_to)
                await self.writes.record_publication(
                    conn, content_type, entry_id, was_draft=was_draft, columns=write.columns
                )
            return entry

    async def delete_single(
        self, uid: str, locale: str | None = None, query: ReadQuery | None = None
    ) -> Entry:
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)
        hooks = self.lifecycles.of(uid, "delete")
        async with self.writes.writing(uid) as conn:
            default = await self.reads.default_locale(conn, content_type, locale)
            where = self.reads.where(
                content_type, ReadQuery(publication_state="preview", locale=locale), default
            )
            existing = (
                await conn.execute(select(table.c.id).where(where).order_by(table.c.id))
            ).scalar()
            if existing is None:
                raise NotFoundError()
            if hooks is not None:
                run = await hooks.before(conn, id=int(existing), query=query)
            entry = await self.reads.read_back_existing(conn, content_type, int(existing), query)
            await self.writes.record(conn, "entry.delete", content_type, entry, query)
            await self.writer.delete_rows(conn, content_type, [int(existing)])
            if hooks is not None:
                entry = await run.after(entry)
        return entry
