"""``connection_shares.py``: when a worker holds more than its share of the connections, and
what its app then adds to an answer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from contentapi.connection_shares import ConnectionShares, EvenShares


@pytest.fixture
def shares() -> Iterator[ConnectionShares]:
    made = ConnectionShares.create(4)
    yield made
    made.close()


def test_a_worker_is_over_its_share_past_an_even_split_rounded_up(shares):
    shares.take(0)
    shares.take(1)
    shares.over_share(1, 7)
    assert not shares.over_share(0, 8)  # 15: 8 and 7 is as even as it gets
    assert shares.over_share(0, 9)  # 16: 9 is one too many
    shares.over_share(1, 8)
    assert not shares.over_share(0, 8)
    assert shares.over_share(0, 12)  # 20: 10 each


def test_free_slots_do_not_count_and_a_worker_holding_none_does(shares):
    shares.take(2)
    assert not shares.over_share(2, 5)  # alone: everything is its share
    shares.take(3)  # a new worker, nothing accepted yet
    assert shares.holds(3) == 0
    assert shares.over_share(2, 5)  # 5 of 5 with two workers: over 3
    shares.free(3)
    assert shares.holds(3) is None
    assert not shares.over_share(2, 5)


def test_a_map_inherited_by_descriptor_is_the_same_map(shares):
    seen = ConnectionShares(shares.fd)  # what a worker opens (the supervisor's descriptor)
    seen.take(1)
    seen.over_share(1, 4)
    assert shares.holds(1) == 4
    seen._slots.release()
    seen._map.close()  # not ``close()``: the descriptor is the fixture's


async def _answer(app: Any, scope_type: str = "http") -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app({"type": scope_type}, receive, send)
    return sent


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"x", b"1")]})
    await send({"type": "http.response.body", "body": b"{}"})


def test_the_worker_over_its_share_answers_connection_close(shares):
    shares.take(1)
    shares.over_share(1, 2)
    connections = {object() for _ in range(4)}
    app = EvenShares(_ok, shares, 0, connections)
    start, body = asyncio.run(_answer(app))
    assert start["headers"] == [(b"x", b"1"), (b"connection", b"close")]  # 4 of 6: over 3
    assert body == {"type": "http.response.body", "body": b"{}"}
    assert shares.holds(0) == 4
    connections.pop()
    start, _ = asyncio.run(_answer(app))
    assert start["headers"] == [(b"x", b"1")]  # 3 of 5: its share
    assert shares.holds(0) == 3


def test_a_worker_that_stopped_accepting_frees_its_slot_and_asks_no_one_to_leave(shares):
    shares.take(1)
    app = EvenShares(_ok, shares, 0, {object() for _ in range(5)})
    app.leave()
    assert shares.holds(0) is None
    start, _ = asyncio.run(_answer(app))
    assert start["headers"] == [(b"x", b"1")]
    assert shares.holds(0) is None


def test_other_scopes_pass_untouched(shares):
    shares.take(1)
    seen: list[str] = []

    async def lifespan(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    app = EvenShares(lifespan, shares, 0, {object() for _ in range(5)})
    asyncio.run(_answer(app, "lifespan"))
    assert seen == ["lifespan"]
    assert shares.holds(0) == 0  # not counted: no HTTP request
