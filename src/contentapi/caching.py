"""The cache kit: every bounded cache of a worker, their sizes, and the invalidated kind.

Everything a worker keeps to skip repeated work is a ``BoundedCache`` (or, for a pure function
of one hashable value, ``functools.lru_cache`` sized here), so one eviction rule holds and every
bound is read in one table (``SIZES`` below). Three caches hold values read from the database and
must forget them when the database changes: an ``InvalidatedCache`` adds the generation number
and the live flag that keep them exact (``auth/cache.py``'s callers, ``entries/totals.py``'s list
totals, ``db/locales.py``'s locales; ``db/notify.py``'s listener tells them about changes,
``runtime.py`` subscribes them).

Why one small class rather than ``cachetools``: these caches sit on every request, and a hit
here is the ``OrderedDict``'s own C ``get`` (no Python call, no lock, no await: one event loop per
worker), while ``cachetools``' caches run Python code per lookup. Eviction is first in, first
out: a least-recently-used order would cost a ``move_to_end`` per hit, and what it saves — a
hot entry made again once per ``size`` misses — is small beside what each hit would pay.
Nothing here imports from the rest of ``contentapi``: every layer may use it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Final, Generic, TypeVar

__all__ = [
    "CALLERS",
    "COLUMN_PAIRS",
    "COMPILED_STATEMENTS",
    "ENTRY_STATEMENTS",
    "GRAPHQL_DOCUMENTS",
    "GRAPHQL_PLANS",
    "JSON_TEXTS",
    "LIST_TOTALS",
    "PAGE_STATEMENTS",
    "PARSED_QUERIES",
    "RELATION_STATEMENTS",
    "SIZES",
    "TIMESTAMP_TEXTS",
    "UPDATE_STATEMENTS",
    "BoundedCache",
    "InvalidatedCache",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# ---------------------------------------------------------------- sizes, per worker, and why

#: resolved callers per credential (``auth/cache.py``): one per active user or token; an
#: ``Actor`` is small, so ten thousand active callers cost a few MB and no statement each
CALLERS: Final = 10_000
#: list totals per query shape (``entries/totals.py``): an ``int`` each, and a site's lists are
#: few shapes times their filter values
LIST_TOTALS: Final = 4096
#: parsed and validated GraphQL documents by text (``graphql/execute.py``): a client sends a
#: handful of documents, variables apart; parsing and validating one costs milliseconds
GRAPHQL_DOCUMENTS: Final = 512
#: compiled plans per field, variables and caller's readable types (``graphql/context.py``)
GRAPHQL_PLANS: Final = 1024
#: ``(column, name)`` pairs per model and field set, asked once per row
#: (``query/populate/columns.py``)
COLUMN_PAIRS: Final = 4096
#: built relation, component and media statements of the populator (``query/populate/base.py``)
RELATION_STATEMENTS: Final = 512
#: built page and count statements of list queries, by shape and values (``entries/reads.py``)
PAGE_STATEMENTS: Final = 512
#: built one-entry statements by type, fields and state: a handful per type
#: (``entries/reads.py``)
ENTRY_STATEMENTS: Final = 1024
#: built ``UPDATE … RETURNING`` statements of entries by type, columns written, answer and
#: relations checked (``entries/writer.py``): a front end's forms write a few shapes each
UPDATE_STATEMENTS: Final = 512
#: statements compiled for asyncpg, by the built statement (``db/driver.py``): the callers above
#: keep their statements, so this holds as many as they do together, with room
COMPILED_STATEMENTS: Final = 4096
#: parsed read queries by content type, route kind, raw query string and the caller's reading
#: rights (``rest/parsed_queries.py``): a front end asks the same few query strings again and again
PARSED_QUERIES: Final = 256
#: JSON texts parsed for ``jsonb`` ordering on SQLite (``db/jsonb.py``, an ``lru_cache``)
JSON_TEXTS: Final = 4096
#: datetimes formatted as ``toISOString`` (``values.py``, an ``lru_cache``): two or three per
#: entry, the same entries read again and again
TIMESTAMP_TEXTS: Final = 16_384

#: every size above by name (tests, and a reader who wants the list)
SIZES: Final[dict[str, int]] = {
    "CALLERS": CALLERS,
    "LIST_TOTALS": LIST_TOTALS,
    "GRAPHQL_DOCUMENTS": GRAPHQL_DOCUMENTS,
    "GRAPHQL_PLANS": GRAPHQL_PLANS,
    "COLUMN_PAIRS": COLUMN_PAIRS,
    "RELATION_STATEMENTS": RELATION_STATEMENTS,
    "PAGE_STATEMENTS": PAGE_STATEMENTS,
    "ENTRY_STATEMENTS": ENTRY_STATEMENTS,
    "UPDATE_STATEMENTS": UPDATE_STATEMENTS,
    "COMPILED_STATEMENTS": COMPILED_STATEMENTS,
    "PARSED_QUERIES": PARSED_QUERIES,
    "JSON_TEXTS": JSON_TEXTS,
    "TIMESTAMP_TEXTS": TIMESTAMP_TEXTS,
}


class BoundedCache(Generic[K, V]):
    """At most ``size`` entries; storing one more drops the one stored first (first in, first
    out; replacing a value keeps its place).

    ``get(key)`` is the dictionary's own method (``None`` when absent), so a hit runs no Python
    code; ``None`` is therefore not a value to store (wrap it, as ``db/driver.py`` does).
    """

    __slots__ = ("_entries", "get", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        #: ``key`` → its value, or ``None``
        self.get: Callable[[K], V | None] = self._entries.get

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` (replacing what was there) and return it."""
        entries = self._entries
        entries[key] = value
        if len(entries) > self.size:
            entries.popitem(last=False)
        return value

    def discard(self, key: K) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def keys(self) -> list[K]:
        """The keys, oldest first (a copy: for tests and diagnostics, not the hot path)."""
        return list(self._entries)


class InvalidatedCache(Generic[K, V]):
    """A ``BoundedCache`` of values read from the database, exact while changes are heard.

    A worker cannot tell by itself that another worker, instance or tool changed the database;
    ``db/notify.py``'s listener can, and calls ``changed`` (subscribed by ``runtime.py``) on each
    committed change and ``set_live`` when its connection comes or goes. So:

    - **live flag**: while nobody hears changes (before the listener connects, after it loses its
      connection, on SQLite) ``get`` misses and ``put`` keeps nothing: every request reads the
      database, as without a cache;
    - **generation**: a reader notes ``generation`` *before* it reads the database and hands it
      to ``put``; a change (``clear``) in between raises it, so a value read before the change is
      not kept after it.

    Both checks are attribute reads: no await and no lock (one event loop per worker).
    """

    __slots__ = ("_entries", "generation", "live")

    def __init__(self, size: int) -> None:
        self.generation = 0
        #: whether changes are being heard (the listener is connected)
        self.live = False
        self._entries: BoundedCache[K, V] = BoundedCache(size)

    @property
    def size(self) -> int:
        return self._entries.size

    def get(self, key: K) -> V | None:
        return self._entries.get(key) if self.live else None

    def put(self, key: K, value: V, generation: int) -> None:
        """Keep ``value`` unless something changed since ``generation`` was read."""
        if self.live and generation == self.generation:
            self._entries.put(key, value)

    def clear(self) -> None:
        """Forget everything (the data changed, or changes can no longer be heard)."""
        self.generation += 1
        self._entries.clear()

    def changed(self, table: str) -> None:
        """A change listener's subscriber: ``table`` committed a change, whatever it was."""
        self.clear()

    def set_live(self, live: bool) -> None:
        """Whether changes are heard from now on; what was kept is forgotten either way."""
        self.clear()
        self.live = live

    def __len__(self) -> int:
        return len(self._entries)
