"""The database's locales as entry reads and writes need them: codes, the default first.

Strapi keeps each locale as an ``i18n_locale`` row and the default locale's code in
``strapi_core_store_settings`` under ``plugin_i18n_default_locale`` (a JSON string). Both can
change while a server runs (``contentapi locales``, another instance, Strapi's admin), so the
entry flows do not take the locales from the settings: they ask ``LocaleCache``, which reads
them in one statement and keeps them only while the change listener hears changes to those two
tables (``db/notify.py``'s ``contentapi_locales`` channel, subscribed in ``runtime.py``). On
SQLite, or while the listener is away, every ask reads the database, as the caller cache does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select

from contentapi.caching import InvalidatedCache
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.engine import Database
from contentapi.db.replicas import on_replica
from contentapi.db.system import core_store, i18n_locales

__all__ = [
    "DEFAULT_LOCALE_KEY",
    "LOCALE_TABLES",
    "LocaleCache",
    "Locales",
    "decode_default",
    "read_locale_codes",
]

DEFAULT_LOCALE_KEY = "plugin_i18n_default_locale"
#: the tables whose changes change ``Locales`` (the triggers of ``contentapi_locales``)
LOCALE_TABLES = (i18n_locales.name, core_store.name)


@dataclass(frozen=True, slots=True)
class Locales:
    """The locales' codes, the default first, then the others in id order."""

    codes: tuple[str, ...]

    @property
    def default(self) -> str | None:
        """The default locale: entries are created in it and read in it unless asked."""
        return self.codes[0] if self.codes else None


def decode_default(value: str | None) -> str | None:
    """The stored ``plugin_i18n_default_locale`` value (a JSON string) as a code."""
    try:
        code = json.loads(value) if value is not None else None
    except ValueError:
        return None
    return code if isinstance(code, str) else None


async def read_locale_codes(conn: AsyncConnection) -> Locales:
    """The locales in one statement (each row's code beside the default's stored value).

    A default the table does not hold (a hand-edited database) is not one: the first locale
    by id stands in, so reads and writes still have a locale to use.
    """
    default_value = (
        select(core_store.c.value).where(core_store.c.key == DEFAULT_LOCALE_KEY).scalar_subquery()
    )
    rows = (
        await conn.execute(
            select(i18n_locales.c.code, default_value.label("default")).order_by(i18n_locales.c.id)
        )
    ).all()
    codes = [str(row.code) for row in rows if row.code]
    default = decode_default(rows[0].default) if rows else None
    return Locales(tuple(sorted(codes, key=lambda code: code != default)))


class LocaleCache(InvalidatedCache[str, Locales]):
    """This worker's ``Locales``: kept while changes are heard, else read on every ask.

    An ``InvalidatedCache`` of one value: ``changed`` and ``set_live`` are the change
    listener's subscribers, and its generation number keeps a read that raced a change from
    being kept after it.
    """

    __slots__ = ("database",)

    def __init__(self, database: Database) -> None:
        super().__init__(1)
        self.database = database

    async def current(self, conn: AsyncConnection | None = None) -> Locales:
        """The locales now: kept ones, else read on ``conn`` (or a read connection of its own
        when none is given)."""
        kept = self.get("locales")
        if kept is not None:
            return kept
        generation = self.generation
        if conn is None:
            async with self.database.read() as own:
                found = await read_locale_codes(own)
        else:
            found = await read_locale_codes(conn)
            if on_replica(conn):  # may predate a change already heard: not kept
                return found
        self.put("locales", found, generation)
        return found
