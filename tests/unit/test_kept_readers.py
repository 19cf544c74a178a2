"""Which read connections are kept open for the next read (``db/kept_readers.py``), on a
stand-in engine: at most ``keep``, the last returned first, none older than the pool's recycle
age, none invalidated or closed, none left in a transaction; all closed by ``close()``. The real
pool is exercised in tests/api/perf/test_read_connections.py and, across a database restart,
in tests/api/security/test_faults.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from contentapi.db import kept_readers
from contentapi.db.kept_readers import KeptReaders


class _Conn:
    def __init__(self, number: int) -> None:
        self.number = number
        self.closed = False
        self.invalidated = False
        self.transaction = False

    def in_transaction(self) -> bool:
        return self.transaction

    async def rollback(self) -> None:
        self.transaction = False

    async def close(self) -> None:
        self.closed = True


class _Pool:
    def __init__(self, recycle: float) -> None:
        self._recycle = recycle
        self.out = 0

    def checkedout(self) -> int:
        return self.out

    def size(self) -> int:
        return 3


class _Engine:
    def __init__(self, recycle: float = -1) -> None:
        self.pool = _Pool(recycle)
        self.sync_engine = SimpleNamespace(pool=self.pool)
        self.opened: list[_Conn] = []

    async def connect(self) -> _Conn:
        conn = _Conn(len(self.opened))
        self.opened.append(conn)
        return conn


def _readers(engine: _Engine, keep: int = 2) -> KeptReaders:
    return KeptReaders(engine, keep=keep)  # type: ignore[arg-type]


async def _two_kept(readers: KeptReaders) -> tuple[Any, Any]:
    """Two connections taken at once and given back, the second last."""
    first, second = await readers.take(), await readers.take()
    await readers.give_back(first)
    await readers.give_back(second)
    return first, second


async def test_the_connection_returned_last_serves_the_next_read():
    engine = _Engine()
    readers = _readers(engine)
    first, second = await _two_kept(readers)
    assert readers.idle == 2 and not first.closed and not second.closed
    assert await readers.take() is second
    assert await readers.take() is first
    assert len(engine.opened) == 2  # nothing new opened for them


async def test_no_more_than_keep_wait_the_rest_go_back_to_the_pool():
    engine = _Engine()
    readers = _readers(engine, keep=2)
    taken = [await readers.take() for _ in range(3)]
    for conn in taken:
        await readers.give_back(conn)
    assert readers.idle == 2
    assert [conn.closed for conn in taken] == [False, False, True]


@pytest.mark.parametrize("state", ["closed", "invalidated"])
async def test_a_connection_not_fit_for_the_next_read_is_closed(state: str):
    readers = _readers(_Engine())
    conn: Any = await readers.take()
    setattr(conn, state, True)
    await readers.give_back(conn)
    assert readers.idle == 0
    assert conn.closed


async def test_the_transaction_sqlalchemy_began_is_ended_before_the_next_read():
    readers = _readers(_Engine())
    conn: Any = await readers.take()
    conn.transaction = True
    await readers.give_back(conn)
    assert readers.idle == 1 and not conn.transaction and not conn.closed


async def test_a_failed_read_s_connection_is_forgotten_not_kept():
    readers = _readers(_Engine())
    conn: Any = await readers.take()
    readers.forget(conn)  # Database.read closes it as ``async with`` would
    await readers.give_back(conn)  # even if handed back by mistake: not known, not kept
    assert readers.idle == 0 and conn.closed


async def test_none_is_kept_past_the_pool_s_recycle_age(monkeypatch: pytest.MonkeyPatch):
    now = [1000.0]
    monkeypatch.setattr(kept_readers.time, "monotonic", lambda: now[0])
    readers = _readers(_Engine(recycle=1800))
    conn: Any = await readers.take()
    now[0] += 1799
    await readers.give_back(conn)
    assert readers.idle == 1  # younger than the recycle age: kept
    assert await readers.take() is conn
    now[0] += 2
    await readers.give_back(conn)
    assert readers.idle == 0 and conn.closed  # opened 1801 s ago


async def test_close_closes_every_waiting_connection_even_a_dead_one():
    readers = _readers(_Engine())
    first, second = await _two_kept(readers)

    async def dead() -> None:
        raise ConnectionResetError

    second.close = dead
    await readers.close()
    assert readers.idle == 0 and first.closed
    third = await readers.take()
    assert third is not first and third is not second  # a new one from the pool


async def test_a_write_finding_the_pool_empty_gets_the_waiting_connections_back():
    engine = _Engine()
    readers = _readers(engine)
    first, second = await _two_kept(readers)
    engine.pool.out = 2  # the two kept: the pool (3) has one left
    await readers.make_room()
    assert readers.idle == 2 and not first.closed  # room enough: kept
    engine.pool.out = 3  # a write holds the last one: the next write would wait
    await readers.make_room()
    assert readers.idle == 0 and first.closed and second.closed


async def test_a_connection_that_cannot_end_its_transaction_is_closed_the_read_stands():
    readers = _readers(_Engine())
    conn: Any = await readers.take()
    conn.transaction = True

    async def broken() -> None:
        raise ConnectionResetError

    conn.rollback = broken
    await readers.give_back(conn)  # raises nothing: the read's answer is already made
    assert readers.idle == 0 and conn.closed
