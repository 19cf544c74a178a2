"""The per-worker caller cache: exact permissions, changes heard in every worker.

Unit tests of ``CallerCache``, then a real server with 2 worker processes on PostgreSQL: a
permission granted through the API, one revoked by another tool writing to the database, an
API token deleted — each answered correctly by every worker soon after its commit (polled; the
bound is a hang guard, not a speed claim: the listener's latency is the benchmark's business).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from contentapi.auth.actor import Actor
from contentapi.auth.cache import CallerCache
from tests.conftest import MODELS
from tests.support.server import ADMIN_TOKEN, ServerProcess
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PLUGIN = "plugin::users-permissions"


def test_the_cache_is_trusted_only_while_changes_are_heard():
    cache = CallerCache()
    actor = Actor.public(frozenset({"a.find"}))
    cache.put(("public",), actor, cache.generation)
    assert cache.get(("public",)) is None  # not live: nothing kept
    cache.set_live(True)
    cache.put(("public",), actor, cache.generation)
    assert cache.get(("public",)) is actor
    cache.set_live(False)  # listener lost
    assert cache.get(("public",)) is None
    cache.set_live(True)
    assert cache.get(("public",)) is None  # emptied when it stopped being trusted


def test_a_resolution_that_raced_with_a_change_is_not_kept():
    cache = CallerCache()
    cache.set_live(True)
    generation = cache.generation  # read starts
    cache.clear()  # a change commits meanwhile
    cache.put(("public",), Actor.public(), generation)
    assert cache.get(("public",)) is None


def test_expired_tokens_and_size_bound():
    cache = CallerCache(size=2)
    cache.set_live(True)
    past = datetime.now(UTC) - timedelta(seconds=1)
    cache.put(("token", "old"), Actor("api-token", expires_at=past), cache.generation)
    assert cache.get(("token", "old")) is None
    for n in range(3):
        cache.put(("token", n), Actor("api-token"), cache.generation)
    assert len(cache) == 2 and cache.get(("token", 0)) is None


# ---------------------------------------------------------------- two workers


@pytest.fixture
async def two_workers(backend: str, databases: Any) -> AsyncIterator[tuple[str, str]]:
    """(the server's address, its database as asyncpg takes it), once both workers serve"""
    if backend != "postgres":
        pytest.skip("the caller cache (LISTEN/NOTIFY) exists on PostgreSQL only")
    url = await databases.new_url()
    server = ServerProcess(url, MODELS, workers=2)
    await asyncio.to_thread(server.start)
    try:
        yield server.base_url, url.replace("postgresql+asyncpg://", "postgresql://")
    finally:
        server.stop()


async def _settles(read: Callable[[], Awaitable[set[int]]], expected: set[int], what: str) -> None:
    """Until every answer over fresh connections (both workers) is ``expected``."""

    async def settled() -> bool:
        return await read() == expected

    await eventually(settled, what)


async def _statuses(base: str, headers: dict[str, str], count: int = 40) -> set[int]:
    """``count`` requests, each on a new connection, so that both workers answer."""
    statuses = set()
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits) as client:
        for _ in range(count):
            response = await client.get(f"{base}/api/articles", headers=headers)
            statuses.add(response.status_code)
    return statuses


async def _public_role(base: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as client:
        roles = (await client.get(f"{base}/api/users-permissions/roles", headers=ADMIN)).json()
        role_id = next(r["id"] for r in roles["roles"] if r["type"] == "public")
        found = await client.get(f"{base}/api/users-permissions/roles/{role_id}", headers=ADMIN)
        return dict(found.json()["role"])


async def _totals(base: str, count: int = 40) -> set[int]:
    """List totals answered over ``count`` new connections (both workers)."""
    totals = set()
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits) as client:
        for _ in range(count):
            response = await client.get(f"{base}/api/articles", headers=ADMIN)
            totals.add(response.json()["meta"]["pagination"]["total"])
    return totals


async def test_list_totals_follow_writes_in_every_worker(
    two_workers: tuple[str, str],
):
    base, dsn = two_workers
    assert await _totals(base) == {0}  # kept by both workers now
    async with httpx.AsyncClient() as client:
        created = await client.post(
            f"{base}/api/articles", json={"data": {"title": "Counted"}}, headers=ADMIN
        )
    assert created.status_code == 200, created.text
    await _settles(lambda: _totals(base), {1}, "the new total in both workers")
    conn = await asyncpg.connect(dsn)  # another tool deletes it
    try:
        await conn.execute("DELETE FROM articles")
    finally:
        await conn.close()
    await _settles(lambda: _totals(base), {0}, "the total after another tool's delete")


async def test_changes_apply_in_every_worker(two_workers: tuple[str, str]):
    base, dsn = two_workers
    assert await _statuses(base, {}) == {403}  # public may not find yet: cached in both
    role = await _public_role(base)
    role["permissions"]["api::article"]["controllers"]["article"]["find"]["enabled"] = True
    async with httpx.AsyncClient() as client:
        response = await client.put(
            f"{base}/api/users-permissions/roles/{role['id']}",
            json={"permissions": role["permissions"]},
            headers=ADMIN,
        )
    assert response.json() == {"ok": True}
    await _settles(lambda: _statuses(base, {}), {200}, "the granted permission in both workers")

    # another tool revokes it straight in the database
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DELETE FROM up_permissions WHERE action = 'api::article.article.find'")
    finally:
        await conn.close()
    await _settles(lambda: _statuses(base, {}), {403}, "the revoked permission in both workers")

    # an API token deleted by another tool stops working too
    assert await _statuses(base, ADMIN, 10) == {200}
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DELETE FROM strapi_api_tokens")
    finally:
        await conn.close()
    await _settles(lambda: _statuses(base, ADMIN), {401}, "the deleted token in both workers")
