"""What a PostgreSQL database holds, read from ``information_schema`` and ``pg_catalog``, so two
moments can be compared: the objects (tables, columns, indexes, constraints, sequences,
triggers, functions) with their definitions, and a digest of every table's rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["Snapshot", "take_snapshot"]

_QUERIES = {
    "tables": """
        SELECT table_name, table_type FROM information_schema.tables
        WHERE table_schema = 'public'""",
    "columns": """
        SELECT table_name, column_name, data_type, is_nullable, column_default,
               character_maximum_length, numeric_precision, numeric_scale, datetime_precision
        FROM information_schema.columns WHERE table_schema = 'public'""",
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'""",
    "constraints": """
        SELECT rel.relname, con.conname, con.contype::text, pg_get_constraintdef(con.oid)
        FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
        JOIN pg_namespace ns ON ns.oid = rel.relnamespace WHERE ns.nspname = 'public'""",
    "triggers": """
        SELECT rel.relname, tg.tgname, pg_get_triggerdef(tg.oid)
        FROM pg_trigger tg JOIN pg_class rel ON rel.oid = tg.tgrelid
        JOIN pg_namespace ns ON ns.oid = rel.relnamespace
        WHERE ns.nspname = 'public' AND NOT tg.tgisinternal""",
    "functions": """
        SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p
        JOIN pg_namespace ns ON ns.oid = p.pronamespace WHERE ns.nspname = 'public'""",
    "sequences": """
        SELECT sequence_name, data_type, start_value, increment, maximum_value
        FROM information_schema.sequences WHERE sequence_schema = 'public'""",
}


@dataclass(frozen=True)
class Snapshot:
    tables: dict[Any, Any]
    columns: dict[Any, Any]
    indexes: dict[Any, Any]
    constraints: dict[Any, Any]
    sequences: dict[Any, Any]
    triggers: dict[Any, Any]
    functions: dict[Any, Any]
    #: table → md5 of its rows in a fixed order (base tables only)
    rows: dict[str, str]
    users: list[dict[str, Any]]


def _keyed(rows: list[Any], key_size: int) -> dict[Any, Any]:
    keyed = {}
    for row in rows:
        key = tuple(row[:key_size]) if key_size > 1 else row[0]
        keyed[key] = tuple(row[key_size:])
    return keyed


async def read_users(engine: AsyncEngine) -> list[dict[str, Any]]:
    async with engine.connect() as conn:
        rows = await conn.execute(text("SELECT id, username, password FROM up_users ORDER BY id"))
        return [dict(row._mapping) for row in rows]


async def take_snapshot(engine: AsyncEngine) -> Snapshot:
    found: dict[str, dict[Any, Any]] = {}
    async with engine.connect() as conn:
        for kind, query in _QUERIES.items():
            rows = (await conn.execute(text(query))).all()
            found[kind] = _keyed(rows, 1 if kind in ("tables", "sequences", "functions") else 2)
        rows_digest: dict[str, str] = {}
        for table, (table_type,) in found["tables"].items():
            if table_type != "BASE TABLE":
                continue
            digest = await conn.execute(
                text(
                    f"SELECT md5(coalesce(string_agg(t::text, chr(10) ORDER BY t::text), '')) "
                    f'FROM "{table}" t'
                )
            )
            rows_digest[table] = str(digest.scalar())
    return Snapshot(**found, rows=rows_digest, users=await read_users(engine))
