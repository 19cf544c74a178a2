"""A read's connection is never lost (``Database.read``): after a read that went well it is
kept for the next read (``db/kept_readers.py``), with no task created to shield it; after a
read that failed or was cancelled it is closed as SQLAlchemy's ``async with`` closes it, back
to the pool, and not kept."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from tests.conftest import ADMIN_TOKEN
from tests.support.pgproxy import url_through

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


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

    used: list[object] = []

    async def answer() -> int:
        async with database.read() as conn:
            used.append(conn)
            return int((await conn.execute(text("SELECT 1"))).scalar_one())

    assert await answer() == 1  # the pool's first connection is made
    loop.set_task_factory(counting)
    try:
        for _ in range(5):
            assert await answer() == 1
    finally:
        loop.set_task_factory(factory)
    assert created == [], "a read that went well creates no task"
    # one connection served the six reads in turn, and waits for the next; none is lost
    assert len({id(conn) for conn in used[-5:]}) == 1
    assert not used[-1].closed  # type: ignore[attr-defined]
    assert pool.checkedout() == database.readers.idle >= 1

    with pytest.raises(ProgrammingError):
        async with database.read() as conn:
            failed = conn
            await conn.execute(text("SELECT * FROM no_such_table"))
    assert failed.closed  # closed, not kept again
    assert pool.checkedout() == database.readers.idle

    started = asyncio.Event()

    async def slow() -> None:
        async with database.read() as conn:
            used.append(conn)
            started.set()
            await conn.execute(text("SELECT pg_sleep(5)"))

    reading = asyncio.create_task(slow())
    await started.wait()
    await asyncio.sleep(0.05)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert used[-1].closed  # type: ignore[attr-defined]
    assert pool.checkedout() == database.readers.idle
    assert await answer() == 1  # and the pool still serves
    await database.readers.close()
    assert pool.checkedout() == 0


async def test_kept_connections_opened_before_an_outage_are_not_used_after_it(
    postgres_relay, databases, start_app
):
    handle = await start_app(database_url=url_through(postgres_relay, await databases.new_url()))
    database = handle.runtime.database
    gate, database.read_gate = database.read_gate, None  # two reads at once, whatever the gate
    try:
        both = asyncio.Barrier(2)

        async def answer() -> int:
            async with database.read() as conn:
                await both.wait()
                return int((await conn.execute(text("SELECT 1"))).scalar_one())

        assert await asyncio.gather(answer(), answer()) == [1, 1]
    finally:
        database.read_gate = gate
    assert database.readers.idle >= 2  # (and any the app's start kept)
    await postgres_relay.drop()  # the database restarts: every kept connection is dead
    first = await handle.client.get("/api/articles", headers=ADMIN)
    # it read on a dead one (503, as the pool would) and the others, dead too, were closed
    # with it; or the app's own background read (the event feed's poll) met a dead one first,
    # closed the rest, and the request read on a new connection, which it left kept
    assert first.status_code in (200, 503), first.text
    assert database.readers.idle == (1 if first.status_code == 200 else 0)
    again = await handle.client.get("/api/articles", headers=ADMIN)
    assert again.status_code == 200, again.text
