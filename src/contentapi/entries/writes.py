"""Writes of entries: create, update, delete — one transaction per write.

Also what every write flow shares (single types' and localizations' too): parsing a body into
a write plan, hashing its passwords off the event loop, the write transaction that turns the
database's rejections of values into 400s, and the entry's row lock. The answer of a write is
read back through ``EntryReads``'s one-entry statements, inside the write's transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.exc import DataError, IntegrityError

from contentapi.auth.passwords import PasswordHasher
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.engine import Database
from contentapi.entries.collaborators import ReadsParts
from contentapi.entries.events import EntryEvents, EventName, publication_event
from contentapi.entries.input import parse_entry_input
from contentapi.entries.localization import sync_populated_localizations
from contentapi.entries.publication_payload import PublicationPayloads
from contentapi.entries.reads import Entry, EntryReads
from contentapi.entries.turns import EntryTurns
from contentapi.entries.write_plan import EntryWrite, ModelWrite
from contentapi.entries.writer import Writer
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.query.populate import select_columns
from contentapi.schema.builtin import PERMISSION_UID, ROLE_UID, USER_UID
from contentapi.schema.model import ContentType

__all__ = ["EntryWrites", "hash_passwords"]

#: models whose writes change who may do what (the caller cache is emptied at their commit)
_CALLER_MODELS = frozenset({USER_UID, ROLE_UID, PERMISSION_UID})
#: models whose deletes record no event: Strapi's users-permissions deletes a user below its
#: entity service (``strapi.query(...).delete``), so neither its REST nor its GraphQL delete
#: sends ``entry.delete`` (measured on Strapi 4.25: ``docs/events.md``)
_SILENT_DELETES = frozenset({USER_UID})
#: how a user's event carries it: its attributes and its role
_USER_EVENT_QUERY = ReadQuery(publication_state="preview", populate={"role": RelationPopulate()})


class EntryWrites(ReadsParts):
    """Creates, updates and deletes entries of every content type in the registry."""

    def __init__(
        self, reads: EntryReads, writer: Writer, passwords: PasswordHasher, events: EntryEvents
    ) -> None:
        super().__init__(reads)
        self.writer = writer
        #: the change feed: each write records its events in its own transaction
        self.events = events
        #: hashes password attributes (bcrypt by default, as Strapi: see ``auth.passwords``)
        self.passwords = passwords
        #: updates of one entry queue here, one transaction at a time per worker (turns.py)
        self.turns = EntryTurns()
        #: how ``entry.publish``/``entry.unpublish`` read their entry
        self.publication_payloads = PublicationPayloads(self.registry)
        #: an entry's ``published_at`` by id, per type (kept: ``db/driver.py``)
        self._publication_states: dict[str, Any] = {}

    async def create(
        self, uid: str, data: Any, query: ReadQuery | None = None, *, publish: bool = True
    ) -> Entry:
        """Create an entry; answered with ``query``'s fields and populate. ``publish`` false
        leaves an entry without ``publishedAt`` a draft (GraphQL's ``createX``)."""
        content_type = self.content_type(uid)
        locales = await self.locales_for(content_type, creating=True)
        hooks = self.lifecycles.of(uid, "create")
        # parsed (and its passwords hashed) before the transaction, unless a hook may change it
        write = None
        if hooks is None:
            write = await self.planned(content_type, data, locales, creating=True, publish=publish)
        async with self.writing(uid) as conn:
            if hooks is not None:
                run = await hooks.before(conn, data=data, query=query)
                write = await self.planned(
                    content_type, run.params["data"], locales, creating=True, publish=publish
                )
            assert write is not None
            entry_id = await self.writer.insert_row(conn, content_type, write)
            entry = await self.reads.read_back_existing(conn, content_type, entry_id, query)
            if hooks is not None:
                entry = await run.after(entry)
            await self.record(conn, "entry.create", content_type, entry, query)
            return entry

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
        hooks = self.lifecycles.of(uid, "update")
        write = None
        if hooks is None:
            write = await self.planned(content_type, data, (), creating=False, was_draft=was_draft)
        query = query or ReadQuery()
        table = self.tables.entity(uid)
        columns = select_columns(content_type, query.fields)
        async with self.turns.turn((uid, entry_id)), self.writing(uid) as conn:
            if hooks is not None:
                run = await hooks.before(conn, id=entry_id, data=data, query=query)
                write = await self.planned(
                    content_type, run.params["data"], (), creating=False, was_draft=was_draft
                )
            assert write is not None
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
            if hooks is not None:
                entry = await run.after(entry)
            # the event carries the localizations as they were before the copy, as Strapi's
            # (its entity service answers, then i18n copies)
            await self.record(conn, "entry.update", content_type, entry, query)
            if sync_populated:
                copied_to = await sync_populated_localizations(
                    conn, self.tables, self.populator, content_type, entry, query
                )
                await self.record_updates(conn, content_type, copied_to)
            await self.record_publication(
                conn, content_type, entry_id, was_draft=was_draft, columns=write.columns
            )
            return entry

    async def delete(self, uid: str, entry_id: int, query: ReadQuery | None = None) -> Entry:
        content_type = self.content_type(uid)
        hooks = self.lifecycles.of(uid, "delete")
        async with self.writing(uid) as conn:
            if hooks is not None:
                run = await hooks.before(conn, id=entry_id, query=query)
            if not await self.lock_entry(conn, content_type, entry_id):
                raise NotFoundError()
            entry = await self.reads.read_back_existing(conn, content_type, entry_id, query)
            if uid not in _SILENT_DELETES:
                await self.record(conn, "entry.delete", content_type, entry, query)
            await self.writer.delete_rows(conn, content_type, [entry_id])
            if hooks is not None:
                entry = await run.after(entry)
        return entry

    # --------------------------------------------------------------- helpers

    async def record(
        self,
        conn: AsyncConnection,
        event: EventName,
        content_type: ContentType,
        entry: Entry,
        query: ReadQuery | None,
    ) -> Entry:
        """Record ``event`` of ``entry`` in the write's transaction (before a delete removes
        it); the entry recorded. An answer that selects some fields only (GraphQL's selection,
        REST's ``fields``) is read again with every field for the event: Strapi's GraphQL
        resolvers write through its entity service with no field list, so their events carry
        the whole entry. So is one that populates in ``live``: the entity service populates
        drafts too (a draft localization is in the event, not in the answer)."""
        if content_type.uid == USER_UID:
            # Strapi's users-permissions writes a user through its entity service with
            # ``populate: ['role']``, whatever the request asked
            entry = await self.reads.read_back_existing(
                conn, content_type, int(entry["id"]), _USER_EVENT_QUERY
            )
        elif query is not None and (
            query.fields is not None or (query.populate and query.publication_state != "preview")
        ):
            entry = await self.reads.read_back_existing(
                conn,
                content_type,
                int(entry["id"]),
                replace(query, fields=None, publication_state="preview"),
            )
        await self.events.entry(conn, event, content_type, entry)
        return entry

    async def record_updates(
        self, conn: AsyncConnection, content_type: ContentType, entry_ids: list[int]
    ) -> None:
        """Record ``entry.update`` of the localizations an update copied its non-localized
        values to, each as Strapi's entity service writes it (no populate)."""
        for entry_id in entry_ids:
            entry = await self.reads.read_back_existing(conn, content_type, entry_id, None)
            await self.record(conn, "entry.update", content_type, entry, None)

    async def record_publication(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_id: int,
        *,
        was_draft: bool,
        columns: dict[str, Any],
    ) -> None:
        """After an update's ``entry.update``: ``entry.publish`` or ``entry.unpublish`` when it
        changed the entry's publication state, the entry read as Strapi's content manager
        reads it for them (``publication_payload.py``)."""
        event = publication_event(content_type, was_draft=was_draft, columns=columns)
        if event is not None:
            whole = await self.reads.read_back_existing(
                conn, content_type, entry_id, self.publication_payloads.query(content_type)
            )
            await self.events.publication(conn, event, content_type, whole)

    async def record_update(self, conn: AsyncConnection, uid: str, entry_id: int) -> None:
        """Record ``entry.update`` of an entry a flow changed with its own statement (the
        account mails' one-time codes and confirmations), as the reference's entity service
        ``edit`` does."""
        content_type = self.content_type(uid)
        entry = await self.reads.read_back_existing(conn, content_type, entry_id, None)
        await self.record(conn, "entry.update", content_type, entry, None)

    async def locales_for(
        self, content_type: ContentType, *, creating: bool, conn: AsyncConnection | None = None
    ) -> tuple[str, ...]:
        """The locales an entry may be created in, the default first: the database's, read
        (on ``conn`` if given) only for a create of a localized type — nothing else uses them."""
        if not (content_type.localized and creating):
            return ()
        return (await self.locales.current(conn)).codes

    async def planned(
        self,
        content_type: ContentType,
        data: Any,
        locales: tuple[str, ...],
        *,
        creating: bool,
        was_draft: bool = False,
        publish: bool = True,
    ) -> EntryWrite:
        """A body as the write plan of an entry of ``content_type`` (400 when it is not one),
        its passwords hashed (off the event loop); ``locales`` from ``locales_for``."""
        write = parse_entry_input(
            content_type,
            data,
            registry=self.registry,
            creating=creating,
            locales=locales,
            was_draft=was_draft,
            publish=publish,
        )
        await hash_passwords(write, self.passwords)
        return write

    def writing(self, uid: str) -> AbstractAsyncContextManager[AsyncConnection]:
        """The transaction of a write to ``uid``'s entries (tests wrap it to watch them)."""
        return _write_transaction(self.database, changes_callers=uid in _CALLER_MODELS)

    async def lock_entry(
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
        statement = self._publication_states.get(content_type.uid)
        if statement is None:
            table = self.tables.entity(content_type.uid)
            chosen = select(table.c.published_at).where(table.c.id == bindparam("entry_id"))
            statement = self._publication_states[content_type.uid] = chosen
        async with self.database.read() as conn:
            rows = await self.database.kept.rows(conn, statement, {"entry_id": entry_id})
        if not rows:
            return None
        return "draft" if rows[0][0] is None else "published"


async def hash_passwords(write: ModelWrite, hasher: PasswordHasher) -> None:
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
