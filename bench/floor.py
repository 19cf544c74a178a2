"""The raw-SQL floor: the statements contentapi issues for a request, replayed through asyncpg
alone at the same concurrency — how many "requests" PostgreSQL itself could serve.

A write is replayed as the transaction it is (``BEGIN``, its statements, ``COMMIT``): the
benchmark's PUT sends every request to one entry, so the replay queues on that entry's row lock
as the server's requests do, and the floor says what the lock allows."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from bench.scenarios import Scenario
from contentapi.app import create_app
from contentapi.config import Settings
from contentapi.db.engine import StatementCounter

__all__ = ["capture_statements", "replay"]

_SKIP = ("BEGIN", "COMMIT", "ROLLBACK")


async def capture_statements(
    database_url: str, models: Path, token: str, scenario: Scenario
) -> list[tuple[str, tuple[Any, ...]]]:
    settings = Settings(database_url=database_url, content_types_dir=models, admin_token=token)
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench"
        ) as client,
    ):
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        # once unrecorded: the caller is then cached, as it is for every request under load
        await client.request(scenario.method, scenario.path, content=scenario.body, headers=headers)
        async with StatementCounter.recording_with_parameters() as recorded:
            response = await client.request(
                scenario.method,
                scenario.path,
                content=scenario.body,
                headers=headers,
            )
        response.raise_for_status()
    return [
        (sql, tuple(params or ()))
        for sql, params in recorded
        if not sql.strip().upper().startswith(_SKIP)
    ]


async def replay(
    dsn: str,
    statements: list[tuple[str, tuple[Any, ...]]],
    seconds: int,
    connections: int,
    *,
    transaction: bool = False,
) -> float:
    """Sequences of ``statements`` completed per second over ``connections`` connections, each
    sequence in a transaction of its own when ``transaction``."""
    pool = await asyncpg.create_pool(dsn, min_size=connections, max_size=connections)
    done = 0
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        nonlocal done
        async with pool.acquire() as conn:
            while time.monotonic() < deadline:
                if transaction:
                    async with conn.transaction():
                        for sql, params in statements:
                            await conn.fetch(sql, *params)
                else:
                    for sql, params in statements:
                        await conn.fetch(sql, *params)
                done += 1

    try:
        await asyncio.gather(*(worker() for _ in range(connections)))
    finally:
        await pool.close()
    return done / seconds
