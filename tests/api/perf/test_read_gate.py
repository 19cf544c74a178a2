"""``CONTENTAPI_DATABASE_READ_CONCURRENCY`` (``db/gate.py``): with one read at a time per
worker, requests that run together — lists with populate, one entry, GraphQL's nested
resolvers, writes whose services read — answer as they do one by one, no permit is left held
and none waits for ever; a read that cannot get a permit in time answers 503."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from contentapi.db.gate import LOCAL_READ_CONCURRENCY
from tests.api.perf.test_kept_statements import ARTICLE

READS = [
    "/api/articles?populate=*",
    "/api/articles/1?populate=*",
    "/api/categories?populate[articles][populate][author]=true&populate[parent]=true",
    "/api/authors?populate[articles]=true&filters[articles][title][$containsi]=type",
]

GRAPHQL = """{ categories(sort: "id") { data { id attributes {
  articles(sort: "id") { data { id attributes { title author { data { id } } } } }
  parent { data { id attributes { name } } }
} } } }"""


async def _seed(app: Any) -> None:
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "ann@example.com"})
    await entries.create("api::category.category", {"name": "Top", "slug": "top"})
    await entries.create("api::category.category", {"name": "Sub", "slug": "sub", "parent": 1})
    await entries.create("api::article.article", {**ARTICLE, "author": 1, "categories": [1, 2]})
    await entries.create(
        "api::article.article", {"title": "Second type", "slug": "second", "categories": [2]}
    )


async def _answer(client: Any, admin: dict[str, str], read: str) -> Any:
    if read == "graphql":
        response = await client.post("/graphql", json={"query": GRAPHQL}, headers=admin)
        assert "errors" not in response.json(), response.text
    else:
        response = await client.get(read, headers=admin)
    assert response.status_code == 200, (read, response.text)
    return response.json()


async def test_requests_read_one_at_a_time_answer_as_alone(reused_app, admin, backend):
    app = await reused_app(database_read_concurrency=1)
    gate = app.runtime.database.read_gate
    if backend != "postgres":
        assert gate is None  # SQLite's reads do not compete for the cores as backends
        return
    assert gate is not None and gate.permits == 1
    gate.wait = 10  # a read waiting for itself would fail the test, not hang it
    await _seed(app)
    client = app.client
    reads = [*READS, "graphql"]
    alone = [await _answer(client, admin, read) for read in reads]

    async def update(n: int) -> int:
        response = await client.put(
            "/api/articles/2", json={"data": {"readingTime": n}}, headers=admin
        )
        assert response.status_code == 200, response.text
        return int(response.json()["data"]["attributes"]["readingTime"])

    queued = 0
    acquire = gate._acquire

    async def counted() -> None:
        nonlocal queued
        queued += gate.held == gate.permits
        await acquire()

    gate._acquire = counted  # type: ignore[method-assign]
    together = await asyncio.gather(
        *(_answer(client, admin, read) for read in reads * 3), *(update(n) for n in (5, 6))
    )
    assert list(together[: len(reads) * 3]) == alone * 3
    assert sorted(together[len(reads) * 3 :]) == [5, 6]
    assert queued > 0  # reads did wait for each other
    assert gate.held == 0


async def test_a_read_without_a_permit_in_time_answers_503(reused_app, admin, backend):
    if backend != "postgres":
        pytest.skip("the read gate is PostgreSQL's")
    app = await reused_app(database_read_concurrency=1)
    gate = app.runtime.database.read_gate
    gate.wait = 0.2
    # another request holds the only permit
    other = contextvars.Context()
    holder = await asyncio.create_task(gate.enter(), context=other)
    assert holder is not None
    response = await app.client.get("/api/articles", headers=admin)
    assert response.status_code == 503, response.text
    assert response.json()["error"]["name"] == "ServiceUnavailableError"
    assert "permit" not in response.text  # the cause stays in the server's log
    other.run(gate.leave, holder)
    assert (await app.client.get("/api/articles", headers=admin)).status_code == 200
    assert gate.held == 0


async def test_unset_the_gate_is_on_for_the_database_on_this_machine(app, admin, backend):
    """The suite's PostgreSQL is on 127.0.0.1: unset, the setting gives each worker the
    gate of a database that shares its cores (``LOCAL_READ_CONCURRENCY``), and the whole suite
    runs through it."""
    gate = app.runtime.database.read_gate
    if backend != "postgres":
        assert gate is None
        return
    assert app.runtime.settings.database_read_concurrency is None
    assert gate is not None and gate.permits == LOCAL_READ_CONCURRENCY
    await _seed(app)
    assert (await app.client.get("/api/articles?populate=*", headers=admin)).status_code == 200
    assert gate.held == 0
