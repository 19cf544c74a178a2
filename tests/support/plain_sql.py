"""A statement run on an app's database by another client than contentapi — a tool, Strapi's
admin, an operator's ``psql`` — so tests can show that a write nobody announced is seen."""

from __future__ import annotations

import sqlite3

import asyncpg

__all__ = ["run_plain_sql"]


async def run_plain_sql(database_url: str, statement: str) -> None:
    """``statement`` committed on ``database_url`` (an app's SQLAlchemy URL) over a connection
    of its own: ``sqlite3`` on a SQLite file, asyncpg on PostgreSQL."""
    if database_url.startswith("sqlite"):
        with sqlite3.connect(database_url.split(":///", 1)[1]) as tool:
            tool.execute(statement)
        return
    tool = await asyncpg.connect(database_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await tool.execute(statement)
    finally:
        await tool.close()
