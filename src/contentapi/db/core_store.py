"""Server secrets and settings kept in ``strapi_core_store_settings`` (Strapi's key-value table)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.db.system import core_store

__all__ = ["ensure_setting"]


async def ensure_setting(conn: AsyncConnection, key: str, make: Callable[[], str]) -> str:
    """The stored value of ``key``; on first use, ``make()`` is stored and returned."""
    found = await conn.execute(select(core_store.c.value).where(core_store.c.key == key))
    value = found.scalar()
    if value is not None:
        return str(value)
    value = make()
    await conn.execute(
        core_store.insert().values(key=key, value=value, type="string", environment=None, tag=None)
    )
    return value
