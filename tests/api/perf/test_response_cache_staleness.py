"""No stale read through the response cache: two ``contentapi serve`` instances on one
PostgreSQL database, the cache on in both, writers and readers at once.

Three writers change one author each, as fast as they can: one through REST (``PUT``), one
through GraphQL mutations, one with plain SQL ``UPDATE`` statements on the database (no
contentapi involved: only the triggers' notifications tell the caches). Each writer notes the
value a write set once that write has committed (its answer arrived). Readers ask both
instances for the authors (REST list), the articles populating their author (the link table
and the authors' table) and the authors over GraphQL GET, and compare every value read with
the values committed **before the read started**: a lower one is a stale read. At the end,
every kept answer equals the uncached one (``Cache-Control: no-cache``) byte for byte.

Both backends, each cache mode (``memory``; ``redis``: shared by the two instances too, when a
Redis answers on 127.0.0.1:6379). PostgreSQL's caches hear the changes through the change
listener, SQLite's read the tables' versions its triggers raise (``db/versions.py``); the two
instances share the SQLite file as they share the PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from tests.conftest import MODELS
from tests.support.redis_local import redis_answers
from tests.support.server import ADMIN_TOKEN, FIGURES, ServerProcess

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
#: reads to make in all (the acceptance bound is 5,000)
READS = 5000
READERS = 8
AUTHORS_QUERY = '{ authors(sort: "id") { data { id attributes { age } } } }'
PATHS = (
    "/api/authors?sort=id&fields[0]=age",
    "/api/articles?sort=id&fields[0]=title&populate[author][fields][0]=age",
    "/graphql?" + str(httpx.QueryParams({"query": AUTHORS_QUERY})),
)


@pytest.fixture(params=["memory", "redis"])
async def two_instances(
    request: pytest.FixtureRequest, databases: Any
) -> AsyncIterator[tuple[list[str], str, str]]:
    """(both instances' addresses, the database's URL, the cache mode): each worker's own
    answers, or shared through Redis too"""
    mode: str = request.param
    settings = {"CONTENTAPI_RESPONSE_CACHE": mode}
    if mode == "redis":
        pytest.importorskip("redis")
        if not redis_answers():
            pytest.skip("no Redis on 127.0.0.1:6379")
        settings["CONTENTAPI_RESPONSE_CACHE_REDIS_PREFIX"] = f"contentapi:t:{uuid.uuid4().hex}:"
    url = await databases.new_url()
    servers = [ServerProcess(url, MODELS, workers=1, **settings) for _ in range(2)]
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        yield [s.base_url for s in servers], url, mode
    finally:
        for server in servers:
            server.stop()


class _PlainSql:
    """Another tool on the database: asyncpg, or Python's ``sqlite3`` (in a thread)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pg: asyncpg.Connection | None = None
        self.lite: sqlite3.Connection | None = None

    async def set_age(self, author: int, age: int) -> None:
        statement = "UPDATE authors SET age = {} WHERE id = {}"
        if self.pg is not None:
            await self.pg.execute(statement.format("$1", "$2"), age, author)
        else:
            assert self.lite is not None
            lite = self.lite

            def run() -> None:
                with lite:  # committed when the block ends
                    lite.execute(statement.format("?", "?"), (age, author))

            await asyncio.to_thread(run)

    async def close(self) -> None:
        if self.pg is not None:
            await self.pg.close()
        if self.lite is not None:
            self.lite.close()


async def _plain_sql(url: str) -> _PlainSql:
    tool = _PlainSql(url)
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1]
        tool.lite = sqlite3.connect(path, timeout=30, check_same_thread=False)
    else:
        tool.pg = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    return tool


def _ages(path: str, body: Any) -> dict[int, int]:
    """author id → age, from one of ``PATHS``' answers."""
    if path.startswith("/graphql"):
        rows = body["data"]["authors"]["data"]
        return {int(r["id"]): r["attributes"]["age"] for r in rows}
    if path.startswith("/api/authors"):
        return {r["id"]: r["attributes"]["age"] for r in body["data"]}
    found = {}
    for article in body["data"]:
        author = article["attributes"]["author"]["data"]
        found[author["id"]] = author["attributes"]["age"]
    return found


async def test_no_read_after_a_commit_misses_it(two_instances, backend):
    bases, dsn, mode = two_instances
    # Idle connections are dropped after 1 s: httpx keeps one for 5 s by default, uvicorn closes
    # it after 5 s idle, and a request sent on it in between meets a closed connection
    # (``ReadError``, "Server disconnected without sending a response") — seen under the
    # suite's load, where some of the two clients' connections sit idle that long.
    keepalive = httpx.Limits(keepalive_expiry=1.0)
    clients = [
        httpx.AsyncClient(base_url=b, headers=ADMIN, timeout=30, limits=keepalive) for b in bases
    ]
    rest, graphql, plain = [], [], []
    try:
        for n in range(3):
            made = await clients[0].post(
                "/api/authors",
                json={"data": {"name": f"Author {n}", "email": f"a{n}@x.io", "age": 0}},
            )
            assert made.status_code == 200, made.text
            (rest, graphql, plain)[n].append(made.json()["data"]["id"])
        rest_id, graphql_id, plain_id = rest[0], graphql[0], plain[0]
        for author in (rest_id, plain_id):
            linked = await clients[0].post(
                "/api/articles", json={"data": {"title": f"By {author}", "author": author}}
            )
            assert linked.status_code == 200, linked.text
        committed = {rest_id: 0, graphql_id: 0, plain_id: 0}
        done = asyncio.Event()
        writes = {"rest": 0, "graphql": 0, "sql": 0}

        async def rest_writer() -> None:
            value = 0
            while not done.is_set():
                value += 1
                answer = await random.choice(clients).put(
                    f"/api/authors/{rest_id}", json={"data": {"age": value}}
                )
                assert answer.status_code == 200, answer.text
                committed[rest_id] = value
                writes["rest"] += 1
                await asyncio.sleep(0.03)

        async def graphql_writer() -> None:
            value = 0
            while not done.is_set():
                value += 1
                mutation = (
                    f"mutation {{ updateAuthor(id: {graphql_id}, data: {{age: {value}}}) "
                    "{ data { id } } }"
                )
                answer = await random.choice(clients).post("/graphql", json={"query": mutation})
                assert "errors" not in answer.json(), answer.text
                committed[graphql_id] = value
                writes["graphql"] += 1
                await asyncio.sleep(0.03)

        async def sql_writer() -> None:
            update = await _plain_sql(dsn)
            try:
                value = 0
                while not done.is_set():
                    value += 1
                    await update.set_age(plain_id, value)
                    committed[plain_id] = value
                    writes["sql"] += 1
                    await asyncio.sleep(0.03)
            finally:
                await update.close()

        reads = 0
        stale: list[str] = []

        async def reader() -> None:
            nonlocal reads
            while reads < READS:
                reads += 1
                path = random.choice(PATHS)
                client = random.choice(clients)
                floor = dict(committed)  # what had committed before this read started
                answer = await client.get(path)
                assert answer.status_code == 200, answer.text
                for author, age in _ages(path, answer.json()).items():
                    if age < floor[author]:
                        stale.append(f"{client.base_url}{path}: {author} {age} < {floor[author]}")

        started = time.monotonic()
        writers = [asyncio.create_task(w()) for w in (rest_writer, graphql_writer, sql_writer)]
        await asyncio.gather(*(reader() for _ in range(READERS)))
        done.set()
        await asyncio.gather(*writers)
        seconds = time.monotonic() - started

        stats = [(await c.get("/_cache")).json() for c in clients]
        hits = sum(s["hits"] for s in stats)
        name = f"response cache staleness ({backend}, {mode})"
        FIGURES[name] = (
            f"{reads} reads in {seconds:.1f} s, {len(stale)} stale; writes {writes}; "
            f"hits {hits} (from Redis {sum(s['sharedHits'] for s in stats)}), "
            f"misses {sum(s['misses'] for s in stats)}, "
            f"evictions {sum(s['evictions'] for s in stats)}, "
            f"refused {sum(s['refused'] for s in stats)}"
        )
        print(name, FIGURES[name])
        assert stale == [], stale[:10]
        assert reads >= 5000 and min(writes.values()) > 10
        assert hits > 0  # the reads did go through the cache

        # quiet now: each kept answer equals the fresh one, byte for byte
        for client in clients:
            for path in PATHS:
                kept = await client.get(path)
                again = await client.get(path)
                fresh = await client.get(path, headers={"Cache-Control": "no-cache"})
                for answer in (again, fresh):
                    assert answer.content == kept.content
                    assert [(k, v) for k, v in answer.headers.multi_items() if k != "date"] == [
                        (k, v) for k, v in kept.headers.multi_items() if k != "date"
                    ]
    finally:
        for client in clients:
            await client.aclose()
