"""A read's connection goes back to the pool whatever happens (``Database.read``): after a
read that went well it is closed in place, with no task created to shield it; after a read
that failed or was cancelled it is closed as SQLAlchemy's ``async with`` closes it."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError


async def test_a_read_gives_its_connection_back_whatever_happens(app, backend):
    if backend != "postgres":
        pytest.skip("reads run in autocommit on PostgreSQL only")
    database = app.runtime.database
    pool = database.engine.pool
    loop = asyncio.get_running_loop()
    created: list[object] = []
    factory = loop.get_task_factory()

    reader = asyncio.current_task()

    def counting(loop: asyncio.AbstractEventLoop, coro, **kwargs):  # type: ignore[no-untyped-def]
        if asyncio.current_task() is reader:  # not the app's own background work
            created.append(coro)
        return asyncio.Task(coro, loop=loop, **kwargs)

    async def answer() -> int:
        async with database.read() as conn:
            return int((await conn.execute(text("SELECT 1"))).scalar_one())

    assert await answer() == 1  # the pool's first connection is made
    loop.set_task_factory(counting)
    try:
        for _ in range(5):
            assert await answer() == 1
    finally:
        loop.set_task_factory(factory)
    assert created == [], "a read that went well creates no task"
    assert pool.checkedout() == 0

    with pytest.raises(ProgrammingError):
        async with database.read() as conn:
            await conn.execute(text("SELECT * FROM no_such_table"))
    assert pool.checkedout() == 0

    started = asyncio.Event()

    async def slow() -> None:
        async with database.read() as conn:
            started.set()
            await conn.execute(text("SELECT pg_sleep(5)"))

    reading = asyncio.create_task(slow())
    await started.wait()
    await asyncio.sleep(0.05)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert pool.checkedout() == 0
    assert await answer() == 1  # and the pool still serves
