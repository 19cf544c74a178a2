"""SQLite's change notifications: a version number per table, raised by triggers, read on demand.

SQLite has no ``NOTIFY``, and several processes (workers, instances, a ``sqlite3`` shell,
Strapi) may write the same file. For the response cache (``http/response_cache.py``) each
content table (and the locales' tables) gets ``AFTER INSERT/UPDATE/DELETE`` row triggers that
raise the table's row in ``contentapi_table_versions`` — inside the writing transaction, so
the version moves exactly when the change commits, whoever wrote it. ``VersionWatcher`` plays
``ChangeListener``'s part: ``caught_up`` reads every version in one small statement and hands
each table whose version moved to the subscribers; a read that calls it first has seen every
change committed before it started. The triggers are installed when a server starts with the
response cache on (``install_version_triggers``) and stay: a server started without the cache
must not remove them from under another process that keeps answers (an operator who turned the
cache off everywhere drops the ``contentapi_version_*`` triggers). Each row written costs one
more small ``UPDATE``; a tool that rebuilds a table (SQLite's way to alter one) drops its
triggers until the next start.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable

from sqlalchemy import text

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.engine import Database

__all__ = [
    "VERSIONS_TABLE",
    "VersionWatcher",
    "install_version_triggers",
]

log = logging.getLogger("contentapi")

VERSIONS_TABLE = "contentapi_table_versions"
_PREFIX = "contentapi_version_"
_EVENTS = (("i", "INSERT"), ("u", "UPDATE"), ("d", "DELETE"))


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


async def install_version_triggers(conn: AsyncConnection, tables: Iterable[str]) -> None:
    """The versions table, one row and three triggers per table (only those missing)."""
    await conn.execute(
        text(
            f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} "
            "(name TEXT PRIMARY KEY, version INTEGER NOT NULL DEFAULT 0)"
        )
    )
    present = await conn.execute(
        text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE :prefix"),
        {"prefix": f"{_PREFIX}%"},
    )
    existing = set(present.scalars())
    for table in tables:
        await conn.execute(
            text(f"INSERT OR IGNORE INTO {VERSIONS_TABLE} (name, version) VALUES (:name, 0)"),
            {"name": table},
        )
        for suffix, event in _EVENTS:
            trigger = f"{_PREFIX}{table}_{suffix}"
            if trigger in existing:
                continue
            await conn.execute(
                text(
                    f"CREATE TRIGGER {_quoted(trigger)} AFTER {event} ON {_quoted(table)} "
                    f"BEGIN UPDATE {VERSIONS_TABLE} SET version = version + 1 "
                    f"WHERE name = {_literal(table)}; END"
                )
            )


class VersionWatcher:
    """Reads the versions and tells subscribers which tables changed (see the module).

    ``subscribe(tables, callback)``: ``callback(table)`` for each of ``tables`` whose version
    moved. ``caught_up()`` answers whether it could read them (``False``: nothing trusted).
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self._seen: dict[str, int] = {}
        self._subscribers: list[tuple[frozenset[str], Callable[[str], None]]] = []
        self._statement = text(f"SELECT name, version FROM {VERSIONS_TABLE}")
        #: whether a first reading has set the versions everything is compared with
        self.started = False

    def subscribe(self, tables: Iterable[str], callback: Callable[[str], None]) -> None:
        self._subscribers.append((frozenset(tables), callback))

    async def start(self) -> None:
        """The versions as they are now: what later readings are compared with."""
        await self.caught_up()
        self.started = True

    async def caught_up(self) -> bool:
        try:
            async with self.database.read() as conn:
                rows = (await conn.execute(self._statement)).all()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the file is busy or away: read without the cache
            log.warning("table versions not read: %s", error)
            return False
        seen = self._seen
        for name, version in rows:
            before = seen.get(name)
            if before is not None and version <= before:
                continue
            seen[name] = version
            if before is None:
                continue  # the first reading: nothing to compare with
            for tables, callback in self._subscribers:
                if name in tables:
                    callback(name)
        return True
