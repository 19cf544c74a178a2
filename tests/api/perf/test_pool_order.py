"""The connection pool hands out the connection returned last (``db/dialect.py``): requests
one after another run on one connection, so a new query is prepared once, not on every
pooled connection in turn."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text


async def _backend_of(app) -> int:
    async with app.runtime.database.read() as conn:
        return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def test_reads_in_sequence_reuse_the_last_returned_connection(app, backend, monkeypatch):
    if backend != "postgres":
        pytest.skip("SQLite's pool holds one connection per thread")
    database = app.runtime.database
    # four reads at once: more than the read gate a database on this machine gets lets in
    monkeypatch.setattr(database, "read_gate", None)
    held = asyncio.Event()

    async def hold() -> None:
        async with database.read() as conn:
            await conn.execute(text("SELECT 1"))
            await held.wait()

    # four connections open and back in the pool, returned in turn
    holders = [asyncio.create_task(hold()) for _ in range(4)]
    async with asyncio.timeout(10):
        while database.engine.pool.checkedout() < 4:
            await asyncio.sleep(0.01)
    held.set()
    await asyncio.gather(*holders)
    backends = [await _backend_of(app) for _ in range(8)]
    assert len(set(backends)) == 1, backends
