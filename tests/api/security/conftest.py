"""Helpers of the security suite: a database-and-uploads snapshot for every refused write."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.conftest import AppHandle


async def snapshot(handle: AppHandle) -> dict[str, Any]:
    """Every row of every content, link, component, file and user table, and the names of
    the stored upload files."""
    runtime = handle.runtime
    rows: dict[str, Any] = {}
    async with runtime.database.read() as conn:
        for table in runtime.tables.metadata.sorted_tables:
            result = await conn.execute(select(table))
            rows[table.name] = sorted(tuple(map(repr, row)) for row in result)
    root: Path = runtime.settings.uploads_dir
    rows["<uploads>"] = sorted(p.name for p in root.rglob("*") if p.is_file())
    return rows


Unchanged = Callable[[AppHandle], contextlib.AbstractAsyncContextManager[None]]


@pytest.fixture
def unchanged() -> Unchanged:
    """``async with unchanged(app): ...`` fails unless the block left the database (and the
    uploads folder) exactly as it found them."""

    @contextlib.asynccontextmanager
    async def check(handle: AppHandle) -> AsyncIterator[None]:
        before = await snapshot(handle)
        yield
        assert await snapshot(handle) == before, "a refused request changed stored data"

    return check
