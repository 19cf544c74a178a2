"""A database that cannot be reached or used answers 503 ``ServiceUnavailableError`` with
``Retry-After``, in the contract's error shape — never 500. PostgreSQL: the app talks to it
through a TCP proxy that the test then stops (pooled connections drop, new ones are refused).
SQLite: another process holds the write lock past the busy timeout."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from sqlalchemy import func, select

from contentapi.db.outage import is_unavailable
from contentapi.db.system import events
from contentapi.errors import ApplicationError, ValidationError
from tests.conftest import ADMIN_TOKEN
from tests.support.pgproxy import url_through
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
UNAVAILABLE = {
    "data": None,
    "error": {
        "status": 503,
        "name": "ServiceUnavailableError",
        "message": "Service Unavailable",
        "details": {},
    },
}


def _unavailable(response) -> None:
    assert response.status_code == 503, response.text
    assert response.json() == UNAVAILABLE
    assert int(response.headers["retry-after"]) > 0
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_postgresql_going_away_answers_503(postgres_relay, databases, start_app):
    handle = await start_app(database_url=url_through(postgres_relay, await databases.new_url()))
    created = await handle.client.post(
        "/api/articles", json={"data": {"title": "Before"}}, headers=ADMIN
    )
    assert created.status_code == 200, created.text
    await postgres_relay.stop()  # the server is gone: open connections drop, new ones are refused
    for method, path, body in [
        ("GET", "/api/articles", None),  # a pooled connection that dropped
        ("GET", "/api/articles", None),  # a new connection, refused
        ("GET", "/api/articles/1", None),
        ("POST", "/api/articles", {"data": {"title": "During"}}),
        ("POST", "/api/auth/local", {"identifier": "a", "password": "b"}),
        ("GET", "/api/users/me", None),
    ]:
        response = await handle.client.request(method, path, json=body, headers=ADMIN)
        _unavailable(response)


async def test_a_postgresql_refusing_connections_answers_503_on_graphql(
    postgres_relay, databases, start_app
):
    handle = await start_app(database_url=url_through(postgres_relay, await databases.new_url()))
    await postgres_relay.stop()
    response = await handle.client.post(
        "/graphql", json={"query": "{ articles { data { id } } }"}, headers=ADMIN
    )
    _unavailable(response)


async def test_a_sqlite_database_locked_past_the_busy_timeout_answers_503(
    backend, databases, start_app
):
    if backend != "sqlite":
        pytest.skip("SQLite's file lock")
    url = await databases.new_url()
    handle = await start_app(database_url=url, sqlite_busy_timeout=0.2, events_poll_interval=0.05)
    created = await handle.client.post(
        "/api/articles", json={"data": {"title": "Before"}}, headers=ADMIN
    )
    assert created.status_code == 200, created.text
    # the admin token's last-used stamp is written in a task of its own: let it end first, or
    # the lock below (taken synchronously, so the event loop stands still) waits on it
    await handle.runtime.token_usage.settle()
    # and the create's event dispatched: the dispatcher's write would wait on the lock too
    await eventually(lambda: _dispatched(handle), "the create's event dispatched")
    holder = sqlite3.connect(url.split(":///", 1)[1], isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # another process writing, for longer than 0.2 s
        for method, path, body in [
            ("POST", "/api/articles", {"data": {"title": "During"}}),
            ("PUT", "/api/articles/1", {"data": {"title": "Changed"}}),
            ("DELETE", "/api/articles/1", None),
        ]:
            _unavailable(await handle.client.request(method, path, json=body, headers=ADMIN))
        # Reads go on (WAL); the mutation's write fails inside its resolver: still a 503.
        mutation = 'mutation { createArticle(data: {title: "During"}) { data { id } } }'
        _unavailable(await handle.client.post("/graphql", json={"query": mutation}, headers=ADMIN))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    listed = await handle.client.get("/api/articles?fields[0]=title", headers=ADMIN)
    assert [item["attributes"]["title"] for item in listed.json()["data"]] == ["Before"]


async def _dispatched(handle) -> bool:
    async with handle.runtime.database.read() as conn:
        waiting = select(func.count()).where(events.c.dispatched.is_(False))
        return (await conn.execute(waiting)).scalar() == 0


def _raised_from(error: BaseException, cause: BaseException) -> BaseException:
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (ConnectionRefusedError(111, "refused"), True),
        (sqlite3.OperationalError("database is locked"), True),
        (ValidationError("bad value"), False),
        (ApplicationError(), False),
        (KeyError("x"), False),
        # An application error raised while handling a socket error is still the answer.
        (_raised_from(ValidationError("bad value"), ConnectionResetError()), False),
    ],
)
def test_what_counts_as_unavailable(error: Any, expected: bool):
    assert is_unavailable(error) is expected
