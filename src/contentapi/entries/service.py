"""EntryService: the one object REST and GraphQL call for entries — the facade over the flows.

Protocol-agnostic: entries come back as dicts keyed by attribute name (``reads.py``). Each
concept has its own module — reads and their statement caches (``reads.py``), create, update
and delete (``writes.py``), single types (``single_types.py``), new localizations
(``new_localization.py``) — and this one builds them once over one writer, compiler and
populator. Its operations are the flows' own bound methods, not wrappers: a request pays no
extra call or await for the facade.
"""

from __future__ import annotations

from contentapi.auth.passwords import PasswordHasher
from contentapi.db.engine import Database
from contentapi.db.locales import LocaleCache
from contentapi.db.tables import ContentTables
from contentapi.entries.events import EntryEvents
from contentapi.entries.new_localization import NewLocalizations
from contentapi.entries.reads import Entry, EntryReads, Page
from contentapi.entries.single_types import SingleTypes
from contentapi.entries.writer import Writer
from contentapi.entries.writes import EntryWrites
from contentapi.query.compile import Compiler
from contentapi.query.populate import Populator
from contentapi.schema.registry import Registry

__all__ = ["Entry", "EntryService", "Page"]


class EntryService:
    """Reads and writes entries of every content type in the registry."""

    def __init__(
        self,
        registry: Registry,
        tables: ContentTables,
        database: Database,
        *,
        locales: LocaleCache,
        events: EntryEvents,
        passwords: PasswordHasher | None = None,
    ) -> None:
        self.registry = registry
        #: hashes password attributes (bcrypt by default, as Strapi: see ``auth.passwords``)
        self.passwords = passwords or PasswordHasher()
        self.tables = tables
        self.database = database
        #: the database's locales (``runtime.py`` subscribes them to the change listener)
        self.locales = locales
        self.writer = Writer(registry, tables, dialect=database.dialect, kept=database.kept)
        self.compiler = Compiler(registry, tables, database.dialect)
        self.populator = Populator(registry, tables, self.compiler, database.kept)
        self.reads = EntryReads(
            registry, tables, database, self.compiler, self.populator, locales=locales
        )
        #: the change feed's writing side: every write records its events in its transaction
        self.events = events
        self.writes = EntryWrites(self.reads, self.writer, self.passwords, events)
        self.single_types = SingleTypes(self.reads, self.writes)
        self.localizations = NewLocalizations(self.reads, self.writes)
        #: extensions' hooks around every flow (``app.lifecycles`` of an extension)
        self.lifecycles = self.reads.lifecycles
        #: list totals per query (the change listener empties them: ``runtime.py``)
        self.totals = self.reads.totals
        #: updates of one entry queue here, one transaction at a time per worker (turns.py)
        self.turns = self.writes.turns

        self.content_type = self.reads.content_type
        self.find_many = self.reads.find_many
        self.count = self.reads.count
        self.find_one = self.reads.find_one
        self.nested_state = self.reads.nested_state
        self.create = self.writes.create
        self.update = self.writes.update
        self.delete = self.writes.delete
        self.find_single = self.single_types.find_single
        self.upsert_single = self.single_types.upsert_single
        self.delete_single = self.single_types.delete_single
        self.create_localization = self.localizations.create_localization
