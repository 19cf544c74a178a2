"""Read replicas on a real streaming replica the module starts (``db/replicas.py``).

A primary (``wal_level=replica``) and a hot standby made from it with ``pg_basebackup -R``, each
a cluster of the test's own on a free port; contentapi in-process with the primary's URL and
the standby's in ``database_replica_urls``. What shows which server answered: the standby's
replay is paused (``pg_wal_replay_pause()``), so an entry written afterwards exists on the
primary only — a read that misses it was served by the replica, one that finds it by the
primary. Shown: reads without a token are the replica's (REST and GraphQL); the writer,
carrying its token (cookie or header), reads its write; a replica behind more than
``replica_max_lag`` is skipped; a stopped replica is skipped with nothing but 200s, and serves
again once it is back.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
import pytest

from contentapi.app import create_app
from tests.conftest import ADMIN_TOKEN, MODELS, AppHandle, make_settings
from tests.support import pgcluster
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
LSN = re.compile(r"^[0-9A-F]+/[0-9A-F]+$")
ARTICLES = "/api/articles?publicationState=preview&pagination[pageSize]=100"


class Pair:
    """A primary and its streaming hot standby."""

    def __init__(self) -> None:
        self.primary = pgcluster.TempCluster(
            settings={"wal_level": "replica", "max_wal_senders": "4"},
            prefix="contentapi-primary-",
        )
        self.standby = pgcluster.TempCluster(
            settings={"hot_standby": "on"}, prefix="contentapi-standby-"
        )

    def standby_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.standby.port}/contentapi"

    def destroy(self) -> None:
        self.standby.destroy()
        self.primary.destroy()


@pytest.fixture(scope="module")
async def pair(backend: str) -> AsyncIterator[Pair]:
    if backend != "postgres":
        pytest.skip("read replicas are PostgreSQL streaming replicas")
    reason = pgcluster.available()
    if reason is not None:
        pytest.skip(reason)
    made = Pair()
    if not (made.primary.bin_dir / "pg_basebackup").is_file():
        made.destroy()
        pytest.skip(f"no pg_basebackup beside {made.primary.bin_dir / 'initdb'}")
    try:
        made.primary.init()
        made.primary.start()
        admin = await asyncpg.connect(made.primary.admin_dsn)
        try:
            await admin.execute("CREATE DATABASE contentapi")
        finally:
            await admin.close()
        made.standby.follow(made.primary)
        made.standby.start()
        yield made
    finally:
        made.destroy()


async def _standby(pair: Pair, statement: str) -> Any:
    conn = await asyncpg.connect(pair.standby_dsn())
    try:
        return await conn.fetchval(statement)
    finally:
        await conn.close()


@asynccontextmanager
async def _on_the_pair(pair: Pair, **settings: Any) -> AsyncIterator[AppHandle]:
    """contentapi in-process on the pair: the primary's URL, the standby as its replica."""
    handle = AppHandle(
        create_app(
            make_settings(
                pair.primary.url, MODELS, database_replica_urls=[pair.standby.url], **settings
            )
        )
    )
    await handle.__aenter__()
    try:
        yield handle
    finally:
        await handle.__aexit__()


@pytest.fixture(scope="module")
async def app(pair: Pair) -> AsyncIterator[AppHandle]:
    """contentapi on the pair, a replica allowed to lag 30 s (replay is paused for seconds)."""
    async with _on_the_pair(pair, replica_max_lag=30) as handle:
        yield handle


def _client(handle: AppHandle) -> httpx.AsyncClient:
    """A client of its own (its own cookies), as another browser or service would be."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=handle.app), base_url="http://testserver"
    )


async def _titles(client: httpx.AsyncClient, **headers: str) -> set[str]:
    response = await client.get(ARTICLES, headers={**ADMIN, **headers})
    assert response.status_code == 200, response.text
    return {entry["attributes"]["title"] for entry in response.json()["data"]}


async def _create(client: httpx.AsyncClient, title: str) -> httpx.Response:
    response = await client.post("/api/articles", json={"data": {"title": title}}, headers=ADMIN)
    assert response.status_code == 200, response.text
    return response


async def _until(condition: Callable[[], bool], what: str) -> None:
    async def check() -> bool:
        return condition()

    await eventually(check, what)


async def _caught_up(handle: AppHandle, reader: httpx.AsyncClient, title: str) -> None:
    """The app's replica is in use and has replayed ``title``'s write (until the app's first
    looks at it, reads without a token go to the primary and would find it too)."""
    replicas = handle.runtime.database.replicas
    assert replicas is not None

    async def seen() -> bool:
        return replicas.replicas[0].usable and title in await _titles(reader)

    await eventually(seen, f"{title!r} on the replica")


async def test_reads_without_token_are_the_replicas_and_the_writer_reads_its_write(
    app: AppHandle, pair: Pair
) -> None:
    async with _client(app) as writer, _client(app) as reader, _client(app) as other:
        await _create(writer, "Before the pause")
        await _caught_up(app, reader, "Before the pause")
        await _standby(pair, "SELECT pg_wal_replay_pause()")
        try:
            created = await _create(writer, "Only on the primary")
            token = created.headers["contentapi-lsn"]
            assert LSN.match(token)
            cookie = created.headers["set-cookie"]
            assert f"contentapi_lsn={token}" in cookie and "HttpOnly" in cookie

            # no token: the paused replica serves the read (REST and GraphQL)
            assert await _titles(reader) == {"Before the pause"}
            graphql = await reader.post(
                "/graphql",
                json={"query": "{ articles(publicationState: PREVIEW) { data { id } } }"},
                headers=ADMIN,
            )
            assert graphql.status_code == 200
            assert len(graphql.json()["data"]["articles"]["data"]) == 1
            # the writer's cookie, or the token as a header from another client: the primary
            assert "Only on the primary" in await _titles(writer)
            assert "Only on the primary" in await _titles(other, **{"Contentapi-Lsn": token})
            # a read carries no token back; a malformed token is ignored, not refused
            assert "contentapi-lsn" not in (await reader.get(ARTICLES, headers=ADMIN)).headers
            assert await _titles(reader, **{"Contentapi-Lsn": "nonsense"}) == {"Before the pause"}
        finally:
            await _standby(pair, "SELECT pg_wal_replay_resume()")
        await _caught_up(app, reader, "Only on the primary")

        # once the replica has passed the writer's token, the writer reads there again
        await _standby(pair, "SELECT pg_wal_replay_pause()")
        try:
            await _create(other, "Someone else's")
            assert "Someone else's" not in await _titles(writer)
            assert "Someone else's" in await _titles(other)
        finally:
            await _standby(pair, "SELECT pg_wal_replay_resume()")


async def test_a_replica_behind_more_than_the_max_lag_is_skipped(
    pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    async with _on_the_pair(pair, replica_max_lag=0.3) as handle:
        replicas = handle.runtime.database.replicas
        assert replicas is not None
        replica = replicas.replicas[0]
        async with _client(handle) as writer, _client(handle) as reader:
            await _create(writer, "Lag before")
            await _caught_up(handle, reader, "Lag before")
            await _until(lambda: replica.usable, "the replica in use")
            # an idle primary does not make a current replica look behind (as
            # now() - pg_last_xact_replay_timestamp() would): lag is measured on WAL positions
            idle_since, dropped = time.monotonic(), []

            def idle_long_enough() -> bool:
                if not replica.usable:
                    dropped.append(time.monotonic())
                return time.monotonic() - idle_since > 3 * 0.3

            await _until(idle_long_enough, "three times the max lag without a write")
            assert dropped == []
            await _standby(pair, "SELECT pg_wal_replay_pause()")
            try:
                await _create(writer, "Lag after")
                await _until(lambda: not replica.usable, "the lagging replica skipped")
                # no token, yet the write is seen: the primary answered
                assert "Lag after" in await _titles(reader)
                assert "is more than 0.3 s behind the primary" in caplog.text
            finally:
                await _standby(pair, "SELECT pg_wal_replay_resume()")
            await _until(lambda: replica.usable, "the replica back once caught up")


async def test_a_stopped_replica_is_skipped_without_errors_and_used_again_once_back(
    app: AppHandle, pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="contentapi")
    replicas = app.runtime.database.replicas
    assert replicas is not None
    replica = replicas.replicas[0]
    async with _client(app) as writer, _client(app) as reader:
        await _create(writer, "Before the stop")
        await _caught_up(app, reader, "Before the stop")
        pair.standby.stop("fast")
        try:
            # at once (the pooled connections to the replica now fail midway), then skipped
            for _ in range(5):
                assert "Before the stop" in await _titles(reader)
            await _until(lambda: not replica.usable, "the stopped replica skipped")
            assert "skipped, reads go to the primary" in caplog.text
            await _create(writer, "While stopped")
            for _ in range(5):
                assert "While stopped" in await _titles(reader)
        finally:
            pair.standby.start()
        await _until(lambda: replica.usable, "the replica used again")
        assert "serves reads again" in caplog.text
        await _standby(pair, "SELECT pg_wal_replay_pause()")
        try:
            await _create(writer, "After the restart")
            assert "After the restart" not in await _titles(reader)
        finally:
            await _standby(pair, "SELECT pg_wal_replay_resume()")


async def test_with_the_response_cache_kept_answers_are_read_on_the_primary(
    pair: Pair,
) -> None:
    """A replica's copy can be older than a change the cache has already evicted for (the
    listener hears the primary): an answer the cache may keep is read on the primary, so a read
    after a commit never gets a kept answer without it (``http/response_cache.py``)."""
    async with _on_the_pair(pair, replica_max_lag=30, response_cache="memory") as handle:
        cache = handle.runtime.response_cache
        assert cache is not None
        async with _client(handle) as writer, _client(handle) as reader:
            await _create(writer, "Cached before")
            await _caught_up(handle, reader, "Cached before")
            await _standby(pair, "SELECT pg_wal_replay_pause()")
            try:
                await _create(writer, "Cached after")
                hits = cache.store.counters.hits
                # no token, and a paused replica in use: yet the answer is the primary's, and
                # the kept copy served next holds the write too
                assert "Cached after" in await _titles(reader)
                assert "Cached after" in await _titles(reader)
                assert cache.store.counters.hits == hits + 1
            finally:
                await _standby(pair, "SELECT pg_wal_replay_resume()")
