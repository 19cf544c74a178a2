"""The read gate (``db/gate.py``): at most N holders, waiters let in by their request's arrival,
a read inside a read let through, and no permit lost to a waiter that gave up."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from contentapi.db.gate import (
    _REQUEST_START,
    LOCAL_READ_CONCURRENCY,
    OldestFirstGate,
    RequestStartMiddleware,
    read_permits,
)


async def _hold(gate: OldestFirstGate, seconds: float, log: list[str], name: str) -> None:
    permit = await gate.enter()
    log.append(name)
    try:
        await asyncio.sleep(seconds)
    finally:
        assert permit is not None
        gate.leave(permit)


def _as_request(arrived: float) -> contextvars.Context:
    """A context as ``RequestStartMiddleware`` leaves it for a request that arrived then."""
    context = contextvars.copy_context()
    context.run(_REQUEST_START.set, arrived)
    return context


async def test_no_more_than_its_permits_hold_at_once() -> None:
    gate = OldestFirstGate(2)
    most = 0

    async def read() -> None:
        nonlocal most
        permit = await gate.enter()
        most = max(most, gate.held)
        await asyncio.sleep(0.01)
        assert permit is not None
        gate.leave(permit)

    await asyncio.gather(*(read() for _ in range(7)))
    assert most == 2
    assert gate.held == 0


async def test_waiting_reads_are_let_in_by_when_their_request_arrived() -> None:
    gate = OldestFirstGate(1)
    granted: list[str] = []
    first = asyncio.create_task(_hold(gate, 0.05, granted, "holder"))
    await asyncio.sleep(0)  # the holder has the only permit
    # they come to the gate newest request first
    waiters = [
        asyncio.create_task(_hold(gate, 0, granted, name), context=_as_request(arrived))
        for name, arrived in (("newest", 30.0), ("middle", 20.0), ("oldest", 10.0))
    ]
    await asyncio.gather(first, *waiters)
    assert granted == ["holder", "oldest", "middle", "newest"]
    assert gate.held == 0


async def test_a_read_inside_a_read_of_the_same_request_goes_through() -> None:
    gate = OldestFirstGate(1)
    outer = await gate.enter()
    assert outer is not None
    inner = await asyncio.wait_for(gate.enter(), 1)  # would wait for ever if it queued
    assert inner is None
    # a task the request starts while reading inherits its permit too
    assert await asyncio.create_task(gate.enter()) is None
    gate.leave(outer)
    assert gate.held == 0


def _another_request(coro):  # type: ignore[no-untyped-def]
    """``coro`` as a task of another request: none of this test's permits."""
    return asyncio.create_task(coro, context=contextvars.Context())


async def test_a_waiter_that_gives_up_loses_no_permit() -> None:
    gate = OldestFirstGate(1, wait=0.05)
    granted: list[str] = []
    holder = await gate.enter()
    assert holder is not None
    with pytest.raises(sa_exc.TimeoutError):  # db/outage.py: answered 503
        await _another_request(gate.enter())
    cancelled = _another_request(_hold(gate, 0, granted, "cancelled"))
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    gate.leave(holder)
    assert gate.held == 0
    await _another_request(_hold(gate, 0, granted, "later"))  # handed back, not lost
    assert granted == ["later"]
    assert gate.held == 0


async def test_a_waiter_cancelled_as_its_turn_came_hands_the_permit_on() -> None:
    gate = OldestFirstGate(1)
    granted: list[str] = []
    holder = await gate.enter()
    assert holder is not None
    waiter = _another_request(_hold(gate, 0, granted, "waiter"))
    await asyncio.sleep(0)
    gate.leave(holder)  # the permit passes to the waiter, which is cancelled before it runs
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert granted == []
    assert gate.held == 0
    await _another_request(_hold(gate, 0, granted, "later"))
    assert granted == ["later"]


async def test_the_middleware_notes_when_each_http_request_arrived() -> None:
    seen: list[float | None] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        seen.append(_REQUEST_START.get())

    middleware = RequestStartMiddleware(app)
    await asyncio.create_task(middleware({"type": "lifespan"}, None, None))  # type: ignore[arg-type]
    await asyncio.create_task(middleware({"type": "http"}, None, None))  # type: ignore[arg-type]
    assert seen[0] is None
    assert isinstance(seen[1], float)


def test_a_gate_has_at_least_one_permit() -> None:
    with pytest.raises(ValueError):
        OldestFirstGate(0)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://postgres@127.0.0.1:5432/cms",
        "postgresql+asyncpg://postgres@localhost/cms",
        "postgresql+asyncpg://postgres@[::1]:5432/cms",
        "postgresql+asyncpg://postgres@127.0.1.1/cms",
        "postgresql+asyncpg:///cms",  # the driver's default: a local socket
        "postgresql+asyncpg:///cms?host=/var/run/postgresql",
    ],
)
def test_unset_the_gate_is_on_for_a_database_on_this_machine(url: str) -> None:
    assert read_permits(None, make_url(url), replicated=False) == LOCAL_READ_CONCURRENCY


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://postgres@db.internal:5432/cms",
        "postgresql+asyncpg://postgres@10.0.0.7/cms",
        "postgresql+asyncpg://postgres@db/cms",  # docker-compose's service: set it there
        "postgresql+asyncpg:///cms?host=10.0.0.7&host=10.0.0.8",
    ],
)
def test_unset_the_gate_is_off_for_a_database_elsewhere(url: str) -> None:
    assert read_permits(None, make_url(url), replicated=False) == 0


def test_unset_the_gate_is_off_where_replicas_serve_reads() -> None:
    local = make_url("postgresql+asyncpg://postgres@127.0.0.1/cms")
    assert read_permits(None, local, replicated=True) == 0


def test_a_number_given_is_taken_as_it_is() -> None:
    local = make_url("postgresql+asyncpg://postgres@127.0.0.1/cms")
    remote = make_url("postgresql+asyncpg://postgres@db.internal/cms")
    assert read_permits(0, local, replicated=False) == 0
    assert read_permits(5, remote, replicated=True) == 5
