"""The per-worker caller cache: exact permissions, changes heard in every worker.

Unit tests of ``CallerCache``, then a real server with 2 worker processes on PostgreSQL: a
permission granted through the API, one revoked by another tool writing to the database, an
API token deleted — each answered correctly by every worker within 100 ms of its commit.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from contentapi.auth.actor import Actor
from contentapi.auth.cache import CallerCache
from tests.conftest import ADMIN_TOKEN, MODELS

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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def two_workers(
    backend: str, databases: Any, tmp_path: Path
) -> AsyncIterator[tuple[str, str]]:
    """(the server's address, its database as asyncpg takes it)"""
    if backend != "postgres":
        pytest.skip("the caller cache (LISTEN/NOTIFY) exists on PostgreSQL only")
    url = await databases.new_url()
    port = _free_port()
    env = {
        **os.environ,
        "CONTENTAPI_DATABASE_URL": url,
        "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
        "CONTENTAPI_ADMIN_TOKEN": ADMIN_TOKEN,
        "CONTENTAPI_UPLOADS_DIR": str(tmp_path / "uploads"),
        "CONTENTAPI_JWT_SECRET": "two-workers-secret-long-enough-for-hs512-0123456789abcdef",
    }
    command = [str(Path(sys.executable).parent / "contentapi"), "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                try:
                    if (await client.get(f"{base}/api/articles", headers=ADMIN)).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # both workers up
        yield base, url.replace("postgresql+asyncpg://", "postgresql://")
    finally:
        process.terminate()
        process.wait(timeout=15)


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


async def test_list_totals_follow_writes_in_every_worker_within_100_ms(
    two_workers: tuple[str, str],
):
    base, dsn = two_workers
    assert await _totals(base) == {0}  # kept by both workers now
    async with httpx.AsyncClient() as client:
        created = await client.post(
            f"{base}/api/articles", json={"data": {"title": "Counted"}}, headers=ADMIN
        )
    assert created.status_code == 200, created.text
    await asyncio.sleep(0.1)
    assert await _totals(base) == {1}
    conn = await asyncpg.connect(dsn)  # another tool deletes it
    try:
        await conn.execute("DELETE FROM articles")
    finally:
        await conn.close()
    await asyncio.sleep(0.1)
    assert await _totals(base) == {0}


async def test_changes_apply_in_every_worker_within_100_ms(two_workers: tuple[str, str]):
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
    await asyncio.sleep(0.1)
    assert await _statuses(base, {}) == {200}

    # another tool revokes it straight in the database
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DELETE FROM up_permissions WHERE action = 'api::article.article.find'")
        committed = time.monotonic()
    finally:
        await conn.close()
    await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - committed)))
    assert await _statuses(base, {}) == {403}

    # an API token deleted by another tool stops working too
    assert await _statuses(base, ADMIN, 10) == {200}
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("DELETE FROM strapi_api_tokens")
    finally:
        await conn.close()
    await asyncio.sleep(0.1)
    assert await _statuses(base, ADMIN) == {401}
