"""``/_health`` (liveness, as Strapi's) and ``/_ready`` (the database answers and its migrations
are current) on both databases, including readiness going to 503 when the database cannot be
used: PostgreSQL behind a TCP proxy that is then stopped, SQLite whose file is no database."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from contentapi.db.sync import head_revision
from tests.support.pgproxy import url_through


async def _ready_within(client, seconds: float = 20.0) -> int:
    """The status of ``/_ready`` once it is 200, or the last one after ``seconds``: a first
    connection through the relay can take longer than the probe's own 3 s while the suite's
    other workers load both cores (seen once in ``make test``)."""
    deadline = time.monotonic() + seconds
    while True:
        status = (await client.get("/_ready")).status_code
        if status == 200 or time.monotonic() > deadline:
            return status
        await asyncio.sleep(0.2)


def _not_ready(response, message: str) -> None:
    assert response.status_code == 503, response.text
    assert response.json() == {
        "data": None,
        "error": {
            "status": 503,
            "name": "ServiceUnavailableError",
            "message": message,
            "details": {},
        },
    }
    assert int(response.headers["retry-after"]) > 0


async def test_health_answers_204_without_a_body_as_strapi_does(client):
    response = await client.get("/_health")
    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["strapi"] == "You are so French!"
    assert (await client.head("/_health")).status_code == 204


async def test_ready_answers_200_when_the_database_answers_and_migrations_are_current(client):
    response = await client.get("/_ready")
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ready"}


async def test_ready_answers_503_when_the_migrations_are_behind(start_app):
    handle = await start_app()
    async with handle.runtime.database.write() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    _not_ready(await handle.client.get("/_ready"), "The database migrations are not current")
    assert (await handle.client.get("/_health")).status_code == 204
    async with handle.runtime.database.write() as conn:
        await conn.execute(
            text("UPDATE alembic_version SET version_num = :v"), {"v": head_revision()}
        )
    assert (await handle.client.get("/_ready")).status_code == 200


async def test_ready_answers_503_when_postgresql_is_unreachable(
    postgres_relay, databases, start_app
):
    handle = await start_app(database_url=url_through(postgres_relay, await databases.new_url()))
    assert await _ready_within(handle.client) == 200
    await postgres_relay.stop()  # open connections drop, new ones are refused
    _not_ready(await handle.client.get("/_ready"), "The database is unavailable")
    _not_ready(await handle.client.get("/_ready"), "The database is unavailable")
    assert (await handle.client.get("/_health")).status_code == 204


async def test_ready_answers_503_when_the_sqlite_file_is_no_database(backend, start_app):
    if backend != "sqlite":
        pytest.skip("a SQLite file")
    handle = await start_app()
    assert (await handle.client.get("/_ready")).status_code == 200
    path = Path(make_url(handle.runtime.settings.database_url).database or "")
    await handle.runtime.database.dispose()  # pooled connections would keep the old file
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    _not_ready(await handle.client.get("/_ready"), "The database is unavailable")
    assert (await handle.client.get("/_health")).status_code == 204
