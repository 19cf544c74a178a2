"""Rendered answers kept per worker, each with the tables it read, evicted exactly.

The response cache (``http/response_cache.py``) keeps a GET's rendered answer under its key
(who may read what, and the normalized request) together with the tables its statements read.
A committed change to a table — heard through ``db/notify.py``'s listener whoever wrote it —
evicts exactly the answers that read that table, and nothing else.

Two rules keep it exact, as ``caching.InvalidatedCache`` does for the smaller caches:

- **live flag**: while the change listener does not hear (before it connects, after it loses
  its connection, on SQLite), nothing is served and nothing is kept;
- **sequence**: every change raises ``sequence`` and notes, per table, the sequence of its
  last change. A reader notes ``sequence`` before it reads the database and hands it to
  ``put``; if any table the answer read changed since (or everything was forgotten since), the
  answer may predate that change and is not kept.

The per-table check (rather than one generation for everything) keeps a busy table's writes
from refusing the answers of every other table.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

__all__ = ["AnswerStore", "CacheCounters", "KeptAnswer"]


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """A read's body bytes (its response is rendered from them, ``http/conditional.py``)."""

    body: bytes
    #: the tables its statements read
    tables: frozenset[str]


@dataclass(slots=True)
class CacheCounters:
    """What the cache did since the worker started (``GET /_cache``)."""

    hits: int = 0
    misses: int = 0
    #: answers kept
    stores: int = 0
    #: answers not kept: a table they read changed while they were read
    refused: int = 0
    #: answers evicted by a committed change to a table they read
    evictions: int = 0
    #: answers dropped to stay within the size bound
    dropped: int = 0
    #: requests answered without the cache (listener not hearing, not caught up in time)
    bypasses: int = 0
    #: requests that asked ``Cache-Control: no-cache``
    no_cache: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "stores": self.stores,
            "refused": self.refused,
            "evictions": self.evictions,
            "dropped": self.dropped,
            "bypasses": self.bypasses,
            "noCache": self.no_cache,
        }


class AnswerStore:
    """Key → ``KeptAnswer``, at most ``size`` of them and ``max_bytes`` of bodies together
    (first in, first out), indexed by table."""

    def __init__(self, size: int, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.size = size
        self.max_bytes = max_bytes
        #: the kept bodies' bytes together
        self.bytes = 0
        #: whether changes are heard (the change listener is connected)
        self.live = False
        #: raised by every change; readers note it before reading
        self.sequence = 0
        self.counters = CacheCounters()
        self._answers: OrderedDict[Hashable, KeptAnswer] = OrderedDict()
        #: table → keys of the kept answers that read it
        self._readers: dict[str, set[Hashable]] = {}
        #: table → ``sequence`` of its last change
        self._changed_at: dict[str, int] = {}
        #: ``sequence`` when everything was last forgotten
        self._reset_at = 0

    def get(self, key: Hashable) -> KeptAnswer | None:
        return self._answers.get(key) if self.live else None

    def put(self, key: Hashable, answer: KeptAnswer, started: int) -> bool:
        """Keep ``answer``, read from the database after ``sequence`` was ``started``, unless
        something it read changed since (then it may be older than that change)."""
        if not self.live or self._reset_at > started:
            self.counters.refused += 1
            return False
        changed_at = self._changed_at
        for table in answer.tables:
            if changed_at.get(table, 0) > started:
                self.counters.refused += 1
                return False
        if len(answer.body) > self.max_bytes:
            return False
        self._remove(key)
        self._answers[key] = answer
        self.bytes += len(answer.body)
        for table in answer.tables:
            self._readers.setdefault(table, set()).add(key)
        self.counters.stores += 1
        while len(self._answers) > self.size or self.bytes > self.max_bytes:
            oldest = next(iter(self._answers))
            self._remove(oldest)
            self.counters.dropped += 1
        return True

    def _remove(self, key: Hashable) -> bool:
        answer = self._answers.pop(key, None)
        if answer is None:
            return False
        self.bytes -= len(answer.body)
        for table in answer.tables:
            readers = self._readers.get(table)
            if readers is not None:
                readers.discard(key)
                if not readers:
                    del self._readers[table]
        return True

    def changed(self, table: str) -> None:
        """A change listener's subscriber: ``table`` committed a change; the answers that read
        it go, and answers being read that read it will not be kept."""
        self.sequence += 1
        self._changed_at[table] = self.sequence
        for key in tuple(self._readers.get(table, ())):
            if self._remove(key):
                self.counters.evictions += 1

    def clear(self, _table: str | None = None) -> None:
        """Forget everything (the locales changed, or changes can no longer be heard)."""
        self.sequence += 1
        self._reset_at = self.sequence
        self._answers.clear()
        self._readers.clear()
        self.bytes = 0

    def set_live(self, live: bool) -> None:
        """Whether changes are heard from now on; what was kept is forgotten either way."""
        self.clear()
        self.live = live

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: object) -> bool:
        return key in self._answers
