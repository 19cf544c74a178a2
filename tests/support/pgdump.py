"""Restore a plain-SQL ``pg_dump`` through asyncpg, so the suite needs no ``psql`` binary.

A plain dump is SQL statements plus ``COPY … FROM stdin;`` blocks of tab-separated rows ending
in ``\\.``; the statements run as one simple-protocol script, each block goes through
``copy_to_table`` in the same text format. psql meta-commands (``\\restrict``, which newer
pg_dump versions write) and whole-line comments are skipped.
"""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg

__all__ = ["restore_plain_dump", "restored_database"]

_COPY = re.compile(r"^COPY (?P<table>[^ ]+) \((?P<columns>[^)]*)\) FROM stdin;$")


def _name(text: str) -> str:
    return text.strip().strip('"')


async def restore_plain_dump(dsn: str, dump: Path) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        statements: list[str] = []
        lines = iter(dump.read_text(encoding="utf-8").split("\n"))
        for line in lines:
            match = _COPY.match(line)
            if match is None:
                # psql meta-commands and whole-line comments (an all-comment script is an
                # empty query, which asyncpg cannot take)
                if not line.startswith(("\\", "--")) and line.strip():
                    statements.append(line)
                continue
            if statements:
                await conn.execute("\n".join(statements))
                statements = []
            rows: list[str] = []
            for row in lines:
                if row == "\\.":
                    break
                rows.append(row)
            schema, _, table = match["table"].rpartition(".")
            columns = [_name(column) for column in match["columns"].split(",")]
            if rows:
                await conn.copy_to_table(
                    _name(table),
                    source=io.BytesIO(("\n".join(rows) + "\n").encode("utf-8")),
                    columns=columns,
                    schema_name=_name(schema) or "public",
                    format="text",
                )
        if statements:
            await conn.execute("\n".join(statements))
    finally:
        await conn.close()


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


@asynccontextmanager
async def restored_database(admin_url: str, dump: Path, prefix: str) -> AsyncIterator[str]:
    """A new database ``<prefix>_<random>`` beside ``admin_url``'s with ``dump`` restored in
    it; its SQLAlchemy URL, the database dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(_dsn(admin_url), timeout=10)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = f"{admin_url.rpartition('/')[0]}/{name}"
    try:
        await restore_plain_dump(_dsn(url), dump)
        yield url
    finally:
        admin = await asyncpg.connect(_dsn(admin_url), timeout=10)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
