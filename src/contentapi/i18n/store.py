"""The locales of a database: Strapi's ``i18n_locale`` rows and its default-locale setting.

Strapi keeps each locale as a row (id, name, code, timestamps) and the default locale's code
in ``strapi_core_store_settings`` under ``plugin_i18n_default_locale`` (a JSON string). A
database Strapi made is served as it is; ``CONTENTAPI_LOCALES`` only fills an empty table.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.db.system import core_store, i18n_locales
from contentapi.values import format_datetime

__all__ = ["DEFAULT_LOCALE_KEY", "LOCALE_NAMES", "read_locales", "seed_locales"]

DEFAULT_LOCALE_KEY = "plugin_i18n_default_locale"

#: Display names Strapi gives common locales; other codes are shown as themselves.
LOCALE_NAMES = {
    "en": "English (en)",
    "fr": "French (fr)",
    "de": "German (de)",
    "es": "Spanish (es)",
    "it": "Italian (it)",
    "nl": "Dutch (nl)",
    "pt": "Portuguese (pt)",
    "ja": "Japanese (ja)",
    "zh": "Chinese (zh)",
    "ru": "Russian (ru)",
    "pl": "Polish (pl)",
    "sv": "Swedish (sv)",
}


async def seed_locales(conn: AsyncConnection, codes: tuple[str, ...]) -> tuple[str, ...]:
    """Fill an empty ``i18n_locale`` table from the configuration; the first code is the
    default. A table that holds rows (Strapi's, or an earlier start's) is left as it is.

    Returns the database's codes, default first, so start-up can say when the configuration
    (which entry writes and ``locale`` reads follow) disagrees with them.
    """
    count = (await conn.execute(select(func.count()).select_from(i18n_locales))).scalar()
    if not count:
        now = datetime.now(UTC).replace(tzinfo=None)
        await conn.execute(
            i18n_locales.insert(),
            [
                {"name": LOCALE_NAMES.get(c, c), "code": c, "created_at": now, "updated_at": now}
                for c in codes
            ],
        )
    stored = await conn.execute(
        select(core_store.c.id).where(core_store.c.key == DEFAULT_LOCALE_KEY)
    )
    if stored.first() is None:
        await conn.execute(
            core_store.insert().values(
                key=DEFAULT_LOCALE_KEY, value=json.dumps(codes[0]), type="string"
            )
        )
    default = await _default_code(conn)
    stored_codes = (
        await conn.execute(select(i18n_locales.c.code).order_by(i18n_locales.c.id))
    ).scalars()
    ordered = [str(code) for code in stored_codes if code]
    return tuple(sorted(ordered, key=lambda code: code != default))


async def _default_code(conn: AsyncConnection) -> str | None:
    value = (
        await conn.execute(select(core_store.c.value).where(core_store.c.key == DEFAULT_LOCALE_KEY))
    ).scalar()
    try:
        code = json.loads(value) if value is not None else None
    except ValueError:
        return None
    return code if isinstance(code, str) else None


async def read_locales(conn: AsyncConnection) -> list[dict[str, Any]]:
    """``GET /api/i18n/locales``: every row in id order, ``isDefault`` from Strapi's setting."""
    default = await _default_code(conn)
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
