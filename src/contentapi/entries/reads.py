"""Reads of entries: lists, counts, one entry by id, an entry's nested state.

Entries come back as dicts keyed by attribute name (plus ``id`` and the system attributes)
holding Python values; each protocol renders them its own way. Private and password
attributes are never selected, so they cannot leak through any protocol.

Two statement caches live here because reads are the hot path: the page and count statements
of list queries (by shape and values) and the one-entry statements (by type, fields and state,
the id bound), so a repeated request skips building them and SQLAlchemy's cache-key walk. The
writes read their answers back through the same one-entry statements.

A page sorted on a column of the entry that no index serves (``sort=createdAt``,
``sort=summary:desc``) is found on the ids first: ``WHERE id IN (SELECT id … ORDER BY … LIMIT
… OFFSET …)``, then the page's rows are read by their ids and put in the same order. PostgreSQL
reads every row either way, but projecting and sorting only the ids and the sort keys costs
less than carrying every selected column through the sort: at 5,000 books, sorted on
``createdAt`` for 3 rows, 1.15 → 0.75 ms (``Compiler.sorts_unindexed``).

A page filtered through relations alone and sorted on the id (the default order) is found
on its ids first as well, on PostgreSQL: ``WHERE id = ANY(array(SELECT id … ORDER BY id LIMIT
… OFFSET …))``. The inner walk needs nothing of a row but its id, so PostgreSQL walks the
primary key's index alone (an index-only scan) and probes the relations from it, where the
plain statement fetched every walked row from the table: ``filters[author][name][$startsWith]
=…&filters[tags][name][$in]=…`` walks half the books for its 25, 2.9 → 2.2 ms. The array
(evaluated once, then 25 probes of the primary key) keeps the planner from hashing the whole
table to join the ids, as an ``IN`` did. A condition on the row's own columns (a
publication state or locale included) needs the row during the walk: nothing is gained
there, and the plain statement is kept (``_walks_ids_alone``).

A list's total is known before its page (kept per worker, else counted first): a page that
starts past it is empty without being read. PostgreSQL plans a page statement under ``LIMIT``
for an early first match, so when nothing matches a filter through relations it probes every
candidate: 10 ms a request for a page of publishers whose books' publisher's name matched
nothing (``bench/results/random-queries.md``), now paid once per worker, by the count it keeps.

A localized type read without ``locale`` is held to the database's default locale, which may
change while the server runs (``contentapi locales default``): it comes from the locale cache
(``db/locales.py``) and is part of the page statements' key.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    FromClause,
    Select,
    Table,
    and_,
    any_,
    bindparam,
    func,
    select,
)

from contentapi.caching import ENTRY_STATEMENTS, PAGE_STATEMENTS, BoundedCache
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.engine import Database
from contentapi.db.locales import LocaleCache
from contentapi.db.replicas import on_replica
from contentapi.db.tables import ContentTables
from contentapi.entries.lifecycles import Lifecycles
from contentapi.entries.nested import full_populate, ids_only
from contentapi.entries.totals import TotalsCache
from contentapi.query.ast import ReadQuery
from contentapi.query.compile import Compiler, through_relations_alone
from contentapi.query.populate import Populator, select_columns
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry

__all__ = ["Columns", "Entry", "EntryReads", "Page"]

Columns = list[tuple[str, str]]

Entry = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Page:
    """One page of entries and, unless counting was switched off, the total."""

    entries: list[Entry]
    total: int | None


@dataclass(slots=True, eq=False)
class EntryReads:
    """Reads entries of every content type in the registry, keeping the statements it built
    (a dataclass: it holds what it is handed, and its caches)."""

    registry: Registry
    tables: ContentTables
    database: Database
    compiler: Compiler
    populator: Populator
    _: KW_ONLY
    #: the database's locales, the default first (kept while the change listener hears)
    locales: LocaleCache
    #: extensions' hooks around every flow (``lifecycles.py``)
    lifecycles: Lifecycles = field(default_factory=Lifecycles)
    #: built page and count statements by query (``_page_statements``)
    _pages: BoundedCache[Any, tuple[Select[Any], Columns, Select[Any], Any]] = field(
        init=False, default_factory=lambda: BoundedCache(PAGE_STATEMENTS)
    )
    #: list totals per query (PostgreSQL: trusted while the change listener listens)
    totals: TotalsCache = field(init=False, default_factory=TotalsCache)
    #: built one-entry statements by type, fields and state (a handful per type)
    _by_id: BoundedCache[Any, tuple[Select[Any], Columns]] = field(
        init=False, default_factory=lambda: BoundedCache(ENTRY_STATEMENTS)
    )

    def __post_init__(self) -> None:
        self.database.after_write.append(self.totals.clear)

    def content_type(self, uid: str) -> ContentType:
        """The registered content type ``uid`` names."""
        return self.registry.content_types[uid]

    async def default_locale(
        self, conn: AsyncConnection, content_type: ContentType, locale: str | None
    ) -> str | None:
        """The locale a read asking for ``locale`` is held to when it asks for none: the
        database's default — read only for a localized type read without ``locale``."""
        if not content_type.localized or locale is not None:
            return None
        return (await self.locales.current(conn)).default

    def where(
        self,
        content_type: ContentType,
        query: ReadQuery,
        default_locale: str | None,
        table: FromClause | None = None,
    ) -> ColumnElement[bool]:
        """What a query may see: its publication state and locale (``default_locale`` when it
        names none), then its filters (single types find their entry with it too); on the
        type's table, or on ``table`` (an alias of it)."""
        if table is None:
            table = self.tables.entity(content_type.uid)
        return and_(
            self.compiler.visible(
                content_type, table, query.publication_state, query.locale, default_locale
            ),
            self.compiler.where(content_type, table, query.filters),
        )

    def selection(self, content_type: ContentType, query: ReadQuery) -> tuple[Select[Any], Columns]:
        """The entry columns a query's ``fields`` select, and their ``(column, name)`` pairs."""
        table = self.tables.entity(content_type.uid)
        columns = select_columns(content_type, query.fields)
        return select(*(table.c[column] for column, _ in columns)), columns

    async def entries(
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
        self, content_type: ContentType, query: ReadQuery, default_locale: str | None
    ) -> tuple[Select[Any], Columns, Select[Any], Any]:
        """The page and count statements of a list query, built once per query shape and
        values (``_pages``): a repeated request skips building them and SQLAlchemy's cache-key
        walk."""
        key: tuple[Any, ...] | None = (
            content_type.uid,
            query.publication_state,
            query.locale,
            default_locale,
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
        where = self.where(content_type, query, default_locale)
        statement, columns = self.selection(content_type, query)
        page_ids = self._page_ids_condition(content_type, query, default_locale, table)
        if page_ids is not None:
            statement = self.compiler.sorted_page(
                statement.where(page_ids), content_type, table, query.sort
            )
        else:
            statement = (
                self.compiler.sorted_page(statement.where(where), content_type, table, query.sort)
                .limit(query.pagination.limit)
                .offset(query.pagination.offset)
            )
        count = select(func.count()).select_from(table).where(where)
        # the count does not depend on the page: its key leaves limit and offset out
        built = (statement, columns, count, None if key is None else key[:-2])
        if key is not None:
            self._pages.put(key, built)
        return built

    def _page_ids_condition(
        self,
        content_type: ContentType,
        query: ReadQuery,
        default_locale: str | None,
        table: Table,
    ) -> ColumnElement[bool] | None:
        """Where a page is found by its ids first (module doc), the condition that selects
        those ids: ``IN`` for a sort no index serves, ``= ANY(array(…))`` for a page told apart
        by its relations alone; ``None`` where the page statement filters and pages itself."""
        if query.pagination.limit is None:
            return None
        if self.compiler.sorts_unindexed(content_type, query.sort):
            return table.c.id.in_(self._page_ids(content_type, query, default_locale))
        if self._walks_ids_alone(content_type, query, default_locale):
            ids = self._page_ids(content_type, query, default_locale).scalar_subquery()
            return table.c.id == any_(func.array(ids))
        return None

    def _walks_ids_alone(
        self, content_type: ContentType, query: ReadQuery, default_locale: str | None
    ) -> bool:
        """Whether a page is told from the other rows by their id and relations alone
        (module doc): PostgreSQL, sorted on the id, a filter through relations only, and
        neither a publication state nor a locale to hold the rows to."""
        return (
            self.database.dialect.has_arrays
            and self.compiler.sorts_on_id(query.sort)
            and through_relations_alone(query.filters)
            and self.compiler.sees_every_row(
                content_type, query.publication_state, query.locale, default_locale
            )
        )

    def _page_ids(
        self, content_type: ContentType, query: ReadQuery, default_locale: str | None
    ) -> Select[Any]:
        """The ids of a query's page, sorted on the ids and sort keys alone (module doc), on
        an alias of the type's table so that the page statement can select by them."""
        inner = self.tables.entity(content_type.uid).alias()
        where = self.where(content_type, query, default_locale, inner)
        return (
            self.compiler.sorted_page(
                select(inner.c.id).where(where), content_type, inner, query.sort
            )
            .limit(query.pagination.limit)
            .offset(query.pagination.offset)
        )

    async def find_many(self, uid: str, query: ReadQuery) -> Page:
        """A page of entries: filtered, sorted, paginated, with fields and populate."""
        hooks = self.lifecycles.of(uid, "find_many")
        if hooks is not None:
            run = await hooks.before(None, query=query)
            page = await self._page(uid, run.params["query"])
            return Page(await run.after(page.entries), page.total)
        return await self._page(uid, query)

    async def _page(self, uid: str, query: ReadQuery) -> Page:
        content_type = self.content_type(uid)
        generation = self.totals.generation

        async def read(conn: AsyncConnection) -> Page:
            total = None
            default = await self.default_locale(conn, content_type, query.locale)
            statement, columns, count, count_key = self._page_statements(
                content_type, query, default
            )
            if query.pagination.with_count and count_key is not None:
                total = self.totals.get(count_key)
            if query.pagination.with_count and total is None:
                total = int((await conn.execute(count)).scalar_one())
                # a replica's total is not kept: it may predate a change already heard
                if count_key is not None and not on_replica(conn):
                    self.totals.put(count_key, total, generation)
            if total is not None and total <= query.pagination.offset:
                # the page starts past the last entry (a filter that matches nothing, a page
                # beyond the end): nothing to read (module doc)
                return Page([], total)
            entries = await self.entries(
                conn, content_type, statement, columns, query, kept=count_key is not None
            )
            return Page(entries, total)

        return await self.database.read_replicated(read)

    async def count(self, uid: str, query: ReadQuery) -> int:
        content_type = self.content_type(uid)
        table = self.tables.entity(uid)

        async def read(conn: AsyncConnection) -> int:
            default = await self.default_locale(conn, content_type, query.locale)
            where = self.where(content_type, query, default)
            statement = select(func.count()).select_from(table).where(where)
            return int((await conn.execute(statement)).scalar_one())

        return await self.database.read_replicated(read)

    async def find_one(self, uid: str, entry_id: int, query: ReadQuery) -> Entry | None:
        """One entry by id, honouring the publication state (a draft is absent in ``live``)."""
        content_type = self.content_type(uid)
        hooks = self.lifecycles.of(uid, "find_one")
        if hooks is not None:
            run = await hooks.before(None, id=entry_id, query=query)
            entry_id, query = run.params["id"], run.params["query"]

            async def read_hooked(conn: AsyncConnection) -> Entry | None:
                return await self.find_by_id(conn, content_type, entry_id, query)

            return await run.after(await self.database.read_replicated(read_hooked))

        async def read(conn: AsyncConnection) -> Entry | None:
            return await self.find_by_id(conn, content_type, entry_id, query)

        return await self.database.read_replicated(read)

    async def find_by_id(
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
            statement, columns = self.selection(content_type, query)
            found = self._by_id.put(key, (statement.where(where), columns))
        statement, columns = found
        entries = await self.entries(
            conn, content_type, statement, columns, query, {"entry_id": entry_id}, kept=True
        )
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
            entry = await self.find_by_id(conn, content_type, entry_id, query, any_state=True)
        if entry is None:
            return {}
        state = ids_only(self.registry, content_type, entry)
        state.pop("id", None)
        return state

    async def read_back_existing(
        self,
        conn: AsyncConnection,
        content_type: ContentType,
        entry_id: int,
        query: ReadQuery | None,
    ) -> Entry:
        """The written entry as the response shows it (whatever its publication state)."""
        found = await self.find_by_id(
            conn, content_type, entry_id, query or ReadQuery(), any_state=True
        )
        assert found is not None
        return found
