"""The response cache shared through Redis (``http/shared_answers.py``): two apps on one
database (two instances) and one Redis, both backends. An answer one instance kept is found by
the other; a write through either, or plain SQL on the database, is seen by the very next read
of both; Redis answers equal fresh ones byte for byte. Skipped when no Redis answers on
127.0.0.1:6379."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.conftest import ADMIN_TOKEN, AppHandle
from tests.support.plain_sql import run_plain_sql
from tests.support.redis_local import REDIS_URL, redis_answers

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
async def two_instances(start_app, databases) -> tuple[AppHandle, AppHandle]:
    pytest.importorskip("redis")
    if not redis_answers():
        pytest.skip("no Redis on 127.0.0.1:6379")
    prefix = f"contentapi:test:{uuid.uuid4().hex[:12]}:"
    settings = {
        "response_cache": "redis",
        "response_cache_redis_url": REDIS_URL,
        "response_cache_redis_prefix": prefix,
    }
    first = await start_app(**settings)
    url = first.runtime.settings.database_url
    second = await start_app(database_url=url, **settings)
    # a worker that starts hearing raises the epoch (changes may have been missed while no one
    # heard), which forgets what Redis held: both have started before the test's reads
    for handle in (first, second):
        await handle.client.get("/api/categories", headers=ADMIN)
    return first, second


def _shared_hits(handle: AppHandle) -> int:
    cache = handle.runtime.response_cache
    assert cache is not None and cache.shared is not None
    return cache.shared.hits


def _name(answer: httpx.Response) -> str:
    author = answer.json()["data"][0]["attributes"]["author"]["data"]
    return str(author["attributes"]["name"])


async def test_instances_share_answers_and_see_every_commit(two_instances):
    first, second = two_instances
    author = await first.client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=ADMIN
    )
    author_id = author.json()["data"]["id"]
    created = await first.client.post(
        "/api/articles", json={"data": {"title": "One", "author": author_id}}, headers=ADMIN
    )
    assert created.status_code == 200
    # every worker raises the versions of the changes it hears (SQLite: at its next read):
    # once both have, an answer one keeps is the other's too
    for handle in (first, second):
        await handle.client.get("/api/categories", headers=ADMIN)
    path = "/api/articles?populate=author"
    kept = await first.client.get(path, headers=ADMIN)
    assert _name(kept) == "Ann"
    found = await second.client.get(path, headers=ADMIN)  # not in its memory: from Redis
    assert _shared_hits(second) == 1
    assert found.content == kept.content
    assert [(k, v) for k, v in found.headers.multi_items() if k != "date"] == [
        (k, v) for k, v in kept.headers.multi_items() if k != "date"
    ]
    # a write through one instance: the very next read of the other sees it
    renamed = await first.client.put(
        f"/api/authors/{author_id}", json={"data": {"name": "Bea"}}, headers=ADMIN
    )
    assert renamed.status_code == 200
    assert _name(await second.client.get(path, headers=ADMIN)) == "Bea"
    assert _name(await first.client.get(path, headers=ADMIN)) == "Bea"
    # plain SQL on the database: both instances' next reads
    await run_plain_sql(first.runtime.settings.database_url, "UPDATE authors SET name = 'Cy'")
    assert _name(await second.client.get(path, headers=ADMIN)) == "Cy"
    assert _name(await first.client.get(path, headers=ADMIN)) == "Cy"
    fresh = await first.client.get(path, headers={**ADMIN, "Cache-Control": "no-cache"})
    again = await second.client.get(path, headers=ADMIN)
    assert fresh.content == again.content


async def test_an_answer_stored_with_old_versions_is_not_served(two_instances):
    """A worker that had not heard a change yet stores an old answer after another worker
    raised the table's version: the answer carries the versions from before its read, so no
    one is served it."""
    first, second = two_instances
    await first.client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=ADMIN
    )
    shared = first.runtime.response_cache.shared  # type: ignore[union-attr]
    assert shared is not None and await shared.flushed()
    old = await first.client.get("/api/authors", headers=ADMIN)
    shared.changed("authors")  # another worker heard a change of authors
    assert await shared.flushed()
    hits = _shared_hits(second)
    answer = await second.client.get("/api/authors", headers=ADMIN)
    assert _shared_hits(second) == hits  # the old versions: not served from Redis
    assert answer.content == old.content  # (the database did not change in fact)
