"""Server secrets and settings kept in ``strapi_core_store_settings`` (Strapi's key-value table).

Strapi's plugin store writes ``{type}_{name}_{key}`` rows (``plugin_users-permissions_advanced``)
whose ``value`` is JSON and whose ``type`` is JavaScript's ``typeof`` of it (``object``), with
``environment`` and ``tag`` null; ``read_json`` and ``write_json`` read and write rows of that
form, so a database Strapi made keeps its settings and Strapi can read ours.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.system import core_store

__all__ = ["ensure_setting", "read_json", "write_json"]


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


def _row_of(key: str) -> Any:
    return (
        select(core_store.c.id, core_store.c.value)
        .where(core_store.c.key == key)
        .where(core_store.c.environment.is_(None), core_store.c.tag.is_(None))
        .order_by(core_store.c.id)
        .limit(1)
    )


async def read_json(conn: AsyncConnection, key: str) -> Any:
    """The JSON value stored under ``key``; ``None`` when absent or not JSON."""
    row = (await conn.execute(_row_of(key))).first()
    if row is None or row.value is None:
        return None
    try:
        return json.loads(row.value)
    except ValueError:
        return None


def _js_typeof(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"  # objects, arrays and null alike, as in JavaScript


async def write_json(conn: AsyncConnection, key: str, value: Any) -> None:
    """Store ``value`` as JSON under ``key`` (Strapi's ``store.set``: update, else insert)."""
    text = json.dumps(value, ensure_ascii=False)
    row = (await conn.execute(_row_of(key))).first()
    if row is not None:
        await conn.execute(
            core_store.update()
            .where(core_store.c.id == row.id)
            .values(value=text, type=_js_typeof(value))
        )
        return
    await conn.execute(
        core_store.insert().values(
            key=key, value=text, type=_js_typeof(value), environment=None, tag=None
        )
    )
