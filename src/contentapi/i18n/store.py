"""The locales of a database: Strapi's ``i18n_locale`` rows and its default-locale setting.

Strapi keeps each locale as a row (id, name, code, timestamps) and the default locale's code
in ``strapi_core_store_settings`` under ``plugin_i18n_default_locale`` (a JSON string). At
start-up ``CONTENTAPI_LOCALES`` adds the codes the table lacks (``ensure_locales``); it never
removes one nor moves the default once set: ``contentapi locales`` (``i18n/manage.py``) does.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.locales import DEFAULT_LOCALE_KEY, decode_default
from contentapi.db.system import core_store, i18n_locales
from contentapi.i18n.iso_locales import ISO_LOCALE_NAMES
from contentapi.values import format_datetime

__all__ = ["ensure_locales", "locale_name", "read_default_code", "read_locales"]


def locale_name(code: str) -> str:
    """The name Strapi's admin proposes for a code (its ISO list's: ``French (fr)``)."""
    return ISO_LOCALE_NAMES.get(code, code)


async def ensure_locales(
    conn: AsyncConnection, codes: tuple[str, ...], *, fill_only: bool = False
) -> None:
    """Add the configured codes the table lacks, named as Strapi names them; the first code
    becomes the default only where no default is stored (an empty database).

    ``fill_only`` (``CONTENTAPI_LOCALES`` not set, so ``en`` only by default): add them to an
    empty table only — a database Strapi made serves its own locales.
    """
    stored = set((await conn.execute(select(i18n_locales.c.code))).scalars())
    missing = [code for code in dict.fromkeys(codes) if code not in stored]
    if missing and not (fill_only and stored):
        now = datetime.now(UTC).replace(tzinfo=None)
        await conn.execute(
            i18n_locales.insert(),
            [
                {"name": locale_name(c), "code": c, "created_at": now, "updated_at": now}
                for c in missing
            ],
        )
    found = await conn.execute(
        select(core_store.c.id).where(core_store.c.key == DEFAULT_LOCALE_KEY)
    )
    if found.first() is None:
        await conn.execute(
            core_store.insert().values(
                key=DEFAULT_LOCALE_KEY, value=json.dumps(codes[0]), type="string"
            )
        )


async def read_default_code(conn: AsyncConnection) -> str | None:
    """The stored default locale's code (``None`` when unset or unreadable)."""
    value = (
        await conn.execute(select(core_store.c.value).where(core_store.c.key == DEFAULT_LOCALE_KEY))
    ).scalar()
    return decode_default(value)


async def read_locales(conn: AsyncConnection) -> list[dict[str, Any]]:
    """``GET /api/i18n/locales``: every row in id order, ``isDefault`` from Strapi's setting."""
    default = await read_default_code(conn)
    rows = (await conn.execute(select(i18n_locales).order_by(i18n_locales.c.id))).all()
    return [
        {
            "id": row.id,
            "name": row.name,
            "code": row.code,
            "createdAt": format_datetime(row.created_at) if row.created_at else None,
            "updatedAt": format_datetime(row.updated_at) if row.updated_at else None,
            "isDefault": row.code == default,
        }
        for row in rows
    ]
