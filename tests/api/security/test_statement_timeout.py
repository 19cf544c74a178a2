"""A runaway statement is cancelled by ``CONTENTAPI_STATEMENT_TIMEOUT`` and answered 503
``ServiceUnavailableError`` with ``Retry-After``, in the contract's error shape, with nothing
written. The statements are made slow the way they are in production: stuck behind another
session's lock (a long migration, a ``VACUUM FULL``, a forgotten transaction), which a
statement timeout bounds like any other wait — and a ``pg_sleep`` on the server's own engine."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
from sqlalchemy import text

from contentapi.config import Settings
from contentapi.errors import ServiceUnavailableError
from tests.api.security.test_database_outage import UNAVAILABLE
from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def postgres_only(backend: str) -> None:
    if backend != "postgres":
        pytest.skip("SQLite has no statement timeout (docs/security.md)")


async def _lock(url: str, table: str) -> asyncpg.Connection:
    """Another session holding ``table`` exclusively in an open transaction."""
    holder = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    await holder.execute("BEGIN")
    await holder.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
    return holder


def test_the_default_is_thirty_seconds_and_zero_turns_it_off():
    assert Settings().statement_timeout == 30
    assert Settings(statement_timeout=0).statement_timeout == 0
    with pytest.raises(ValueError):
        Settings(statement_timeout=-1)


async def test_a_statement_past_the_timeout_answers_503(postgres_only, databases, start_app):
    url = await databases.new_url()
    handle = await start_app(database_url=url, statement_timeout=0.3)
    created = await handle.client.post(
        "/api/articles", json={"data": {"title": "Before"}}, headers=ADMIN
    )
    assert created.status_code == 200, created.text
    holder = await _lock(url, "articles")
    try:
        for method, path, body in [
            ("GET", "/api/articles", None),  # kept statements, on asyncpg directly
            ("GET", "/api/articles/1?populate=*", None),
            ("GET", "/api/articles?filters[title][$containsi]=bef&sort=title", None),
            ("POST", "/api/articles", {"data": {"title": "During"}}),
            ("PUT", "/api/articles/1", {"data": {"title": "Changed"}}),
        ]:
            started = time.monotonic()
            response = await handle.client.request(method, path, json=body, headers=ADMIN)
            assert response.status_code == 503, (path, response.text)
            assert response.json() == UNAVAILABLE
            assert int(response.headers["retry-after"]) > 0
            assert time.monotonic() - started < 10  # cancelled, not waited out
        query = "{ articles { data { id attributes { title } } } }"
        graphql = await handle.client.post("/graphql", json={"query": query}, headers=ADMIN)
        assert graphql.status_code == 503, graphql.text
    finally:
        await holder.execute("ROLLBACK")
        await holder.close()
    listed = await handle.client.get("/api/articles?fields[0]=title", headers=ADMIN)
    assert [item["attributes"]["title"] for item in listed.json()["data"]] == ["Before"]


async def test_a_slow_query_on_the_servers_engine_is_cancelled(postgres_only, databases, start_app):
    handle = await start_app(database_url=await databases.new_url(), statement_timeout=0.2)
    database = handle.runtime.database
    with pytest.raises(ServiceUnavailableError):
        async with database.read() as conn:
            await conn.execute(text("SELECT pg_sleep(5)"))
    with pytest.raises(ServiceUnavailableError):
        async with database.write() as conn:
            await conn.execute(text("SELECT pg_sleep(5)"))
    async with database.read() as conn:  # the pool is still good
        assert (await conn.execute(text("SHOW statement_timeout"))).scalar() == "200ms"


async def test_zero_lets_a_statement_wait(postgres_only, databases, start_app):
    url = await databases.new_url()
    handle = await start_app(database_url=url, statement_timeout=0)
    holder = await _lock(url, "articles")

    async def release() -> None:
        await asyncio.sleep(1.0)
        await holder.execute("ROLLBACK")

    releasing = asyncio.create_task(release())
    try:
        response = await handle.client.get("/api/articles", headers=ADMIN)
        assert response.status_code == 200, response.text
    finally:
        await releasing
        await holder.close()


async def test_connections_run_without_jit_and_with_the_timeout(
    postgres_only, databases, start_app
):
    """Both are set when a connection opens (db/dialect.py): no JIT compilation of a costly
    estimated list page at every run, and the statement timeout."""
    handle = await start_app(database_url=await databases.new_url(), statement_timeout=7)
    async with handle.runtime.database.read() as conn:
        jit = (await conn.execute(text("SHOW jit"))).scalar_one()
        timeout = (await conn.execute(text("SHOW statement_timeout"))).scalar_one()
    assert (jit, timeout) == ("off", "7s")
    unbounded = await start_app(database_url=await databases.new_url(), statement_timeout=0)
    async with unbounded.runtime.database.read() as conn:
        assert (await conn.execute(text("SHOW jit"))).scalar_one() == "off"
