"""Locales managed as Strapi's admin panel manages them: add, remove, set the default.

Consumes a connection inside the caller's transaction (``contentapi locales``, one per command)
and writes the same rows Strapi's i18n plugin writes: ``i18n_locale`` and the core store's
``plugin_i18n_default_locale``. Strapi's rules, as its admin controllers and ``locales``
service apply them:

- a code is one of the plugin's ISO locale codes (``iso-locales.json``), a name at most 50
  characters (its yup schema); a code is added once (``This locale already exists``);
- the default locale cannot be removed (``Cannot delete the default locale``);
- removing a locale deletes the entries written in it, of every localized content type
  (``deleteAllLocalizedEntriesFor``) — here with what each entry owns (components, media
  attachments, link rows), as any entry delete does (``Writer.delete_rows``).

Running servers learn of the change through ``db/locales.py``'s cache (``contentapi_locales``).
"""

from __future__ import annotations

import difflib
import json
from datetime import UTC, datetime

from sqlalchemy import func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.locales import DEFAULT_LOCALE_KEY
from contentapi.db.system import core_store, i18n_locales
from contentapi.entries.writer import Writer
from contentapi.i18n.iso_locales import ISO_LOCALE_CODES
from contentapi.i18n.store import locale_name, read_default_code

__all__ = [
    "NAME_MAX_LENGTH",
    "LocaleRefused",
    "UnconfirmedRemoval",
    "add_locale",
    "entries_in_locale",
    "remove_locale",
    "set_default_locale",
]

#: Strapi's ``createLocaleSchema``: ``name: yup.string().max(50)``
NAME_MAX_LENGTH = 50


class LocaleRefused(Exception):
    """A change Strapi's rules refuse; the message says why (and what to do)."""


class UnconfirmedRemoval(LocaleRefused):
    """Removing the locale would delete entries, and the caller did not confirm it."""

    def __init__(self, code: str, entries: int) -> None:
        self.code = code
        self.entries = entries
        plural = "entry" if entries == 1 else "entries"
        super().__init__(
            f"{entries} {plural} written in {code!r} would be deleted with it; "
            f"add --yes to remove the locale and them"
        )


def _check_code(code: str) -> None:
    if code in ISO_LOCALE_CODES:
        return
    close = difflib.get_close_matches(code.replace("_", "-"), sorted(ISO_LOCALE_CODES), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise LocaleRefused(f"{code!r} is not one of Strapi's ISO locale codes{hint}")


async def _exists(conn: AsyncConnection, code: str) -> bool:
    found = await conn.execute(select(i18n_locales.c.id).where(i18n_locales.c.code == code))
    return found.first() is not None


async def _must_exist(conn: AsyncConnection, code: str) -> None:
    if not await _exists(conn, code):
        raise LocaleRefused(f"there is no locale {code!r} (contentapi locales list shows them)")


async def add_locale(conn: AsyncConnection, code: str, name: str | None = None) -> str:
    """Add ``code`` named ``name`` (else the ISO list's name, as the admin proposes it);
    the name it was given."""
    _check_code(code)
    given = locale_name(code) if name is None else name.strip()
    if not given:
        raise LocaleRefused("--name must not be empty")
    if len(given) > NAME_MAX_LENGTH:
        raise LocaleRefused(f"--name must be at most {NAME_MAX_LENGTH} characters")
    if await _exists(conn, code):
        raise LocaleRefused(f"this locale already exists: {code!r}")
    now = datetime.now(UTC).replace(tzinfo=None)
    await conn.execute(
        i18n_locales.insert().values(name=given, code=code, created_at=now, updated_at=now)
    )
    return given


async def entries_in_locale(conn: AsyncConnection, writer: Writer, code: str) -> int:
    """How many entries, of every localized content type, are written in ``code``."""
    total = 0
    for content_type in writer.registry.content_types.values():
        if content_type.localized:
            table = writer.tables.entity(content_type.uid)
            counted = select(func.count()).select_from(table).where(table.c.locale == code)
            total += int((await conn.execute(counted)).scalar_one())
    return total


async def remove_locale(
    conn: AsyncConnection, writer: Writer, code: str, *, confirmed: bool
) -> int:
    """Remove ``code`` and the entries written in it; how many entries went with it.

    Unless ``confirmed``, a locale entries are written in is not removed
    (``UnconfirmedRemoval`` says how many would go).
    """
    await _must_exist(conn, code)
    if code == await read_default_code(conn):
        raise LocaleRefused(
            f"cannot delete the default locale {code!r}: make another locale the default first "
            "(contentapi locales default CODE)"
        )
    entries = await entries_in_locale(conn, writer, code)
    if entries and not confirmed:
        raise UnconfirmedRemoval(code, entries)
    for content_type in writer.registry.content_types.values():
        if content_type.localized:
            table = writer.tables.entity(content_type.uid)
            found = await conn.execute(select(table.c.id).where(table.c.locale == code))
            await writer.delete_rows(conn, content_type, [int(row) for row in found.scalars()])
    await conn.execute(i18n_locales.delete().where(i18n_locales.c.code == code))
    return entries


async def set_default_locale(conn: AsyncConnection, code: str) -> None:
    """Make ``code`` (an existing locale) the default one."""
    await _must_exist(conn, code)
    value = json.dumps(code)
    updated = await conn.execute(
        core_store.update().where(core_store.c.key == DEFAULT_LOCALE_KEY).values(value=value)
    )
    if not updated.rowcount:
        await conn.execute(
            core_store.insert().values(key=DEFAULT_LOCALE_KEY, value=value, type="string")
        )
