"""Round trips to PostgreSQL per request kind, counted on the wire (tests/support/pgproxy.py).

Before this (2026-11-24) the same requests cost 14, 12, 13 and 20 round trips; a request
now costs its statements and nothing else: no BEGIN/COMMIT around reads, no pool
pre-ping, and the caller resolved from the per-worker cache once warm (auth/cache.py). Round
trips are a network notion, so these run on PostgreSQL only; the statement counts of the same
requests are asserted on both databases in tests/api/query/test_statements.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ADMIN_TOKEN
from tests.support.pgproxy import RoundTripProxy, url_through

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
async def proxied(postgres_relay: RoundTripProxy, databases: Any, start_app: Any) -> Any:
    handle = await start_app(database_url=url_through(postgres_relay, await databases.new_url()))
    handle.proxy = postgres_relay
    return handle


async def _count(handle: Any, method: str, path: str, **kwargs: Any) -> int:
    await handle.client.request(method, path, headers=ADMIN, **kwargs)  # warm: prepares, caches
    # the token's last_used_at stamp (at most once a minute, after the request: not its cost)
    await handle.runtime.token_usage.settle()
    async with handle.proxy.counting() as counted:
        response = await handle.client.request(method, path, headers=ADMIN, **kwargs)
    assert response.status_code < 300, response.text
    return counted[0]


async def test_round_trips_per_request_kind(proxied):
    entries = proxied.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "a@x.io"})
    for n in range(3):
        await entries.create("api::article.article", {"title": f"Title {n}", "author": 1})
    # page + the populated author (the total, counted by the warm-up request, is kept)
    assert await _count(proxied, "GET", "/api/articles?populate=author") == 2
    proxied.runtime.entries.totals.clear()  # as after a write: page + count + author
    async with proxied.proxy.counting() as counted:
        await proxied.client.get("/api/articles?populate=author", headers=ADMIN)
    assert counted[0] == 3
    # the entry (+ its populated author)
    assert await _count(proxied, "GET", "/api/articles/1") == 1
    assert await _count(proxied, "GET", "/api/articles/1?populate=author") == 2
    # the entry's publication state (it decides how the body is read), then BEGIN, the update
    # that also locks the entry and returns the answer's columns (UPDATE … RETURNING), the
    # write's event (entries/events.py), COMMIT
    assert await _count(proxied, "PUT", "/api/articles/1", json={"data": {"summary": "s"}}) == 5
    # a relation write: + the entry's link rows, read once (the targets' existence is read by
    # the UPDATE itself)
    assert (
        await _count(proxied, "PUT", "/api/articles/2", json={"data": {"author": {"connect": [1]}}})
        == 6
    )
    # links that change: the entry's link rows read by the statement that locks the connected
    # target's list (the lock was a statement of its own), then one statement deletes the
    # entry's link rows and inserts the new ones, numbering the added target at the end of its
    # list (entries/relation_store.py; a DELETE, a read of the highest order and an INSERT
    # before)
    for name in ("one", "two", "three"):
        await entries.create("api::category.category", {"name": name, "slug": name})
    await entries.create("api::article.article", {"title": "linked", "categories": [1]})

    async def swap(connect: int, disconnect: int) -> Any:
        body = {"data": {"categories": {"connect": [connect], "disconnect": [disconnect]}}}
        return await proxied.client.put("/api/articles/4", json=body, headers=ADMIN)

    assert (await swap(2, 1)).status_code == 200  # warm: its statements prepared
    await proxied.runtime.token_usage.settle()
    async with proxied.proxy.counting() as counted:
        response = await swap(3, 2)
    assert response.status_code == 200, response.text
    assert counted[0] == 7
    read = await proxied.client.get("/api/articles/4?populate=categories", headers=ADMIN)
    assert [c["id"] for c in read.json()["data"]["attributes"]["categories"]["data"]] == [3]
