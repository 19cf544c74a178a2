"""The change listener on a real PostgreSQL (``db/notify.py``): a notification reaches the
subscribers of its channel with its payload; a lost connection tells the ``on_live``
subscribers, and the listener comes back by itself and tells them again."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

import asyncpg
import pytest

from contentapi.db.notify import ChangeListener
from tests.conftest import POSTGRES_ADMIN_URL

#: how long a notification or a reconnection may take
BOUND_SECONDS = 5.0


async def _eventually(check: Callable[[], bool], what: str) -> None:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > BOUND_SECONDS:
            pytest.fail(f"{what}: not within {BOUND_SECONDS} s")
        await asyncio.sleep(0.02)


async def test_subscribers_hear_their_channel_and_the_connection_state(backend):
    if backend != "postgres":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's")
    channel = f"contentapi_test_{uuid.uuid4().hex[:12]}"
    heard: list[str] = []
    states: list[bool] = []
    listener = ChangeListener(POSTGRES_ADMIN_URL, retry_seconds=0.05)
    listener.subscribe(channel, heard.append)
    listener.on_live(states.append)
    await listener.start()
    tool = await asyncpg.connect(POSTGRES_ADMIN_URL.replace("postgresql+asyncpg", "postgresql"))
    try:
        assert listener.live and states == [True]
        await tool.execute("SELECT pg_notify($1, 'articles')", channel)
        await tool.execute("SELECT pg_notify('contentapi_test_nobody', 'x')")
        await _eventually(lambda: heard == ["articles"], "the notification")

        # the listening connection is killed: subscribers learn it, then that it is back
        await tool.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1",
            f"%LISTEN%{channel}%",
        )
        await _eventually(lambda: False in states, "the lost connection")
        await _eventually(lambda: states[-1] is True and listener.live, "the reconnection")
        await tool.execute("SELECT pg_notify($1, 'authors')", channel)
        await _eventually(lambda: heard == ["articles", "authors"], "a notification after it")
    finally:
        await tool.close()
        await listener.stop()
    assert states[-1] is False and not listener.live


async def test_caught_up_means_every_earlier_commit_was_dispatched(backend):
    """``caught_up``: once it answers ``True``, every notification committed before the call
    has reached the subscribers — no waiting, no polling (the response cache relies on it)."""
    if backend != "postgres":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's")
    channel = f"contentapi_test_{uuid.uuid4().hex[:12]}"
    heard: list[str] = []
    listener = ChangeListener(POSTGRES_ADMIN_URL, retry_seconds=0.05)
    listener.subscribe(channel, heard.append)
    assert not await listener.caught_up()  # not listening yet
    await listener.start()
    tool = await asyncpg.connect(POSTGRES_ADMIN_URL.replace("postgresql+asyncpg", "postgresql"))
    try:
        for n in range(50):
            await tool.execute("SELECT pg_notify($1, $2)", channel, str(n))
            assert await listener.caught_up()
            assert heard[-1] == str(n)
        # many callers at once share marks, each still answered
        results = await asyncio.gather(*(listener.caught_up() for _ in range(100)))
        assert all(results)
    finally:
        await tool.close()
        await listener.stop()
    assert not await listener.caught_up()


async def test_reads_ready_in_the_same_turn_share_one_mark(backend):
    """A read that becomes ready one loop turn after the read that opened a round (requests of
    the same burst) joins that round: one mark for both, not a round trip each."""
    if backend != "postgres":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's")
    listener = ChangeListener(POSTGRES_ADMIN_URL, retry_seconds=0.05)
    await listener.start()
    try:
        assert await listener.caught_up()
        first_mark = next(listener._mark_numbers)

        async def a_turn_later() -> bool:
            await asyncio.sleep(0)
            return await listener.caught_up()

        opening = asyncio.create_task(listener.caught_up())
        later = [asyncio.create_task(a_turn_later()) for _ in range(5)]
        assert all(await asyncio.gather(opening, *later))
        assert next(listener._mark_numbers) - first_mark - 1 == 1
    finally:
        await listener.stop()
