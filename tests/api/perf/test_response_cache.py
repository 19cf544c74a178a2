"""The response cache in-process (``http/response_cache.py``), on both backends.

Hits, misses and exact eviction — a write to a type evicts the answers that read
it (also through a populated relation or a plain SQL statement on the database) and keeps the
others; answers shared by permission set, never by user; ``Cache-Control: no-cache``; GraphQL
GET queries; kept answers equal fresh ones byte for byte. PostgreSQL hears changes through the
change listener, SQLite through the tables' versions (``db/versions.py``).
"""

from __future__ import annotations

import os

import httpx
import pytest

from contentapi.http.answer_store import CacheCounters
from tests.conftest import ADMIN_TOKEN, AppHandle, StartApp
from tests.support.plain_sql import run_plain_sql

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PLUGIN = "plugin::users-permissions"
FRESH = {"Cache-Control": "no-cache"}


@pytest.fixture
async def cached(reused_app: StartApp) -> AppHandle:
    handle = await reused_app(response_cache="memory")
    cache = handle.runtime.response_cache
    assert cache is not None
    cache.store.counters = CacheCounters()
    return handle


def _counters(handle: AppHandle) -> dict[str, int]:
    cache = handle.runtime.response_cache
    assert cache is not None
    return cache.store.counters.as_dict()


def _same_answer(first: httpx.Response, second: httpx.Response) -> None:
    """Byte for byte, status and headers too (``Date`` apart)."""
    assert first.status_code == second.status_code
    assert first.content == second.content
    headers = [(k, v) for k, v in first.headers.multi_items() if k != "date"]
    assert headers == [(k, v) for k, v in second.headers.multi_items() if k != "date"]


async def _seed(client: httpx.AsyncClient) -> dict[str, int]:
    author = await client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "ann@x.io"}}, headers=ADMIN
    )
    category = await client.post(
        "/api/categories", json={"data": {"name": "News", "slug": "news"}}, headers=ADMIN
    )
    article = await client.post(
        "/api/articles",
        json={"data": {"title": "One", "author": author.json()["data"]["id"]}},
        headers=ADMIN,
    )
    return {
        "author": author.json()["data"]["id"],
        "category": category.json()["data"]["id"],
        "article": article.json()["data"]["id"],
    }


async def _public_may(client: httpx.AsyncClient, *grants: tuple[str, str]) -> None:
    roles = (await client.get("/api/users-permissions/roles", headers=ADMIN)).json()["roles"]
    for role_type in ("public", "authenticated"):
        role_id = next(r["id"] for r in roles if r["type"] == role_type)
        role = (await client.get(f"/api/users-permissions/roles/{role_id}", headers=ADMIN)).json()
        permissions = role["role"]["permissions"]
        for api, action in grants:
            name = api.split("::")[1]
            permissions[api]["controllers"][name][action]["enabled"] = True
        answer = await client.put(
            f"/api/users-permissions/roles/{role_id}",
            json={"permissions": permissions},
            headers=ADMIN,
        )
        assert answer.json() == {"ok": True}


async def test_a_repeated_read_is_a_hit_equal_to_the_fresh_answer(cached, backend):
    client = cached.client
    await _seed(client)
    first = await client.get("/api/articles?populate=author", headers=ADMIN)
    second = await client.get("/api/articles?populate=author", headers=ADMIN)
    fresh = await client.get("/api/articles?populate=author", headers={**ADMIN, **FRESH})
    assert first.status_code == 200
    _same_answer(first, second)
    _same_answer(first, fresh)
    counters = _counters(cached)
    assert (counters["misses"], counters["hits"], counters["noCache"]) == (1, 1, 1)


async def test_answers_name_the_tables_they_read(cached):
    client = cached.client
    await _seed(client)
    answer = await client.get("/api/articles?populate=author", headers=ADMIN)
    keys = set(answer.headers["surrogate-key"].split(" "))
    assert {"articles", "authors", "articles_author_links"} <= keys
    assert set(answer.headers["cache-tag"].split(",")) == keys
    assert "categories" not in keys


async def test_a_write_evicts_exactly_the_answers_that_read_its_tables(cached, backend):
    client = cached.client
    ids = await _seed(client)
    paths = ["/api/articles?populate=author", "/api/categories", "/api/authors"]
    for path in paths:
        await client.get(path, headers=ADMIN)
    store = cached.runtime.response_cache.store  # type: ignore[union-attr]
    assert len(store) == 3
    renamed = await client.put(
        f"/api/authors/{ids['author']}", json={"data": {"name": "Bea"}}, headers=ADMIN
    )
    assert renamed.status_code == 200
    # the very next reads: the articles populating the author and the authors are fresh
    populated = await client.get(paths[0], headers=ADMIN)
    assert populated.json()["data"][0]["attributes"]["author"]["data"]["attributes"]["name"] == (
        "Bea"
    )
    authors = await client.get(paths[2], headers=ADMIN)
    assert authors.json()["data"][0]["attributes"]["name"] == "Bea"
    before = _counters(cached)["hits"]
    await client.get(paths[1], headers=ADMIN)  # the categories did not read authors: kept
    assert _counters(cached)["hits"] == before + 1
    assert _counters(cached)["evictions"] >= 2


async def test_a_plain_sql_write_is_seen_by_the_next_read(cached, backend, databases):
    client = cached.client
    await _seed(client)
    path = "/api/articles?populate=author"
    assert (await client.get(path, headers=ADMIN)).status_code == 200
    assert (await client.get(path, headers=ADMIN)).status_code == 200  # kept
    await run_plain_sql(cached.runtime.settings.database_url, "UPDATE authors SET name = 'Plain'")
    # no waiting: the read catches the listener up before it looks at the cache
    answer = await client.get(path, headers=ADMIN)
    assert answer.json()["data"][0]["attributes"]["author"]["data"]["attributes"]["name"] == (
        "Plain"
    )


async def _user(client: httpx.AsyncClient, name: str) -> dict[str, str]:
    registered = await client.post(
        "/api/auth/local/register",
        json={"username": name, "email": f"{name}@x.io", "password": "secret12"},
    )
    return {"Authorization": f"Bearer {registered.json()['jwt']}"}


async def test_answers_are_shared_by_permission_set_not_by_user(cached, backend):
    client = cached.client
    await _seed(client)
    await _public_may(client, ("api::article", "find"))
    alice, bob = await _user(client, "alice"), await _user(client, "bob")
    store = cached.runtime.response_cache.store  # type: ignore[union-attr]

    def hits() -> int:
        return store.counters.hits

    await client.get("/api/articles", headers=alice)
    start = hits()
    await client.get("/api/articles", headers=bob)  # the same role: alice's answer
    assert hits() == start + 1
    await client.get("/api/articles")  # the public role: its own answer
    assert hits() == start + 1
    await client.get("/api/articles", headers=ADMIN)  # a full-access token: its own
    assert hits() == start + 1
    await client.get("/api/articles")
    assert hits() == start + 2
    # the user's own answers are never kept
    me = await client.get("/api/users/me", headers=alice)
    assert me.status_code == 200 and "surrogate-key" not in me.headers


async def test_graphql_get_queries_are_kept_and_follow_writes(cached, backend):
    client = cached.client
    ids = await _seed(client)
    query = {"query": "{ authors { data { id attributes { name } } } }"}
    first = await client.get("/graphql", params=query, headers=ADMIN)
    second = await client.get("/graphql", params=query, headers=ADMIN)
    _same_answer(first, second)
    assert first.json()["data"]["authors"]["data"][0]["attributes"]["name"] == "Ann"
    assert _counters(cached)["hits"] == 1
    mutation = (
        f'mutation {{ updateAuthor(id: {ids["author"]}, data: {{name: "Cy"}}) '
        "{ data { id } } }"
    )
    updated = await client.post("/graphql", json={"query": mutation}, headers=ADMIN)
    assert "errors" not in updated.json()
    third = await client.get("/graphql", params=query, headers=ADMIN)
    assert third.json()["data"]["authors"]["data"][0]["attributes"]["name"] == "Cy"
    # a query of the caller itself is never kept
    me = await client.get("/graphql", params={"query": "{ me { id } }"}, headers=ADMIN)
    assert "surrogate-key" not in me.headers


async def test_nothing_is_served_while_the_listener_does_not_hear(cached, backend):
    client = cached.client
    await _seed(client)
    await client.get("/api/authors", headers=ADMIN)
    store = cached.runtime.response_cache.store  # type: ignore[union-attr]
    assert len(store) == 1
    store.set_live(False)  # as the listener does when its connection drops
    try:
        await client.get("/api/authors", headers=ADMIN)
        assert len(store) == 0 and _counters(cached)["bypasses"] == 1
    finally:
        store.set_live(True)


async def test_the_counters_are_for_full_access_tokens_only(cached):
    client = cached.client
    assert (await client.get("/_cache")).status_code == 403
    stats = (await client.get("/_cache", headers=ADMIN)).json()
    assert {"hits", "misses", "evictions", "entries", "size", "live"} <= set(stats)
    assert stats["worker"] == os.getpid()  # in-process: this process is the worker


async def test_kept_answers_revalidate_and_answer_head_requests(cached):
    """The kept body goes through the same validators as a fresh one (``http/conditional.py``):
    a 304 for its ``ETag``, ``HEAD`` as ``GET`` without the body — from the cache."""
    client = cached.client
    await _seed(client)
    first = await client.get("/api/authors", headers=ADMIN)
    tag = first.headers["etag"]
    revalidated = await client.get("/api/authors", headers={**ADMIN, "If-None-Match": tag})
    assert revalidated.status_code == 304 and revalidated.content == b""
    assert revalidated.headers["etag"] == tag and "surrogate-key" in revalidated.headers
    head = await client.head("/api/authors", headers=ADMIN)
    assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == tag
    assert head.headers["content-length"] == first.headers["content-length"]
    assert _counters(cached)["hits"] == 2


async def test_graphql_answers_with_errors_are_not_kept(cached):
    client = cached.client
    store = cached.runtime.response_cache.store  # type: ignore[union-attr]
    bad = {"query": "{ authors { data { id attributes { nope } } } }"}
    for _ in range(2):
        answer = await client.get("/graphql", params=bad, headers=ADMIN)
        assert answer.status_code == 400 and "errors" in answer.json()
    assert len(store) == 0 and _counters(cached)["hits"] == 0
