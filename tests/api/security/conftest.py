"""Helpers of the security suite: a database-and-uploads snapshot for every refused write."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.api.graphql.conftest import seed_blog
from tests.api.security.fuzz import STATS
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


@pytest.fixture
async def blog(app: AppHandle) -> AppHandle:
    """The example-models app holding the GraphQL suite's small blog (drafts, relations,
    components, a dynamic zone)."""
    await seed_blog(app)
    return app


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The fuzz suites' figures (requests sent and 5xx answers seen, per backend); those of
    the fault and resource tests are printed by ``tests/conftest.py``."""
    if STATS:
        figures = ", ".join(f"{key}: {value}" for key, value in sorted(STATS.items()))
        terminalreporter.write_line(f"fuzz: {figures}")


@pytest.fixture
async def alice(app: AppHandle) -> dict[str, str]:
    """Headers of a registered user (``alice``, role ``authenticated``)."""
    response = await app.client.post(
        "/api/auth/local/register",
        json={"username": "alice", "email": "alice@example.com", "password": "Secret123"},
    )
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['jwt']}"}
