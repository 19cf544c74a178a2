"""Two contentapi instances (two ``contentapi serve`` processes on two ports) on one PostgreSQL
database and one S3 bucket: nothing that matters lives in one process.

Both start at the same moment on an empty database (one migrates and syncs, the other waits
on the advisory lock and finds it done; the secrets one generates are the ones both use). Then
a role changed through one applies to the other's requests, the auth rate limit counts the
requests of both, a file uploaded through one is listed by the other and read through its URL,
an entry written through one is read (and counted) by the other, and a JWT issued by one is
accepted by the other.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.api.upload.test_upload import png
from tests.conftest import ADMIN_TOKEN, MODELS
from tests.support.pgproxy import RoundTripProxy
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
RATE_LIMIT = 4
#: how long a change made through one instance may take to apply on the other
BOUND_SECONDS = 2.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def instances(
    backend: str, databases: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, str]]:
    """Clients of two instances started together on a new, empty database; the database's
    asyncpg DSN."""
    if backend != "postgres":
        pytest.skip("several instances share a PostgreSQL database")
    s3_bucket: dict[str, object] = request.getfixturevalue("s3_bucket")
    url = await databases.new_url()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")},
        "CONTENTAPI_DATABASE_URL": url,
        "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
        "CONTENTAPI_ADMIN_TOKEN": ADMIN_TOKEN,
        "CONTENTAPI_AUTH_RATE_LIMIT_MAX": str(RATE_LIMIT),
        # no JWT secret and no API-token salt: generated on first start, shared through the
        # database
        **{f"CONTENTAPI_{key.upper()}": str(value) for key, value in s3_bucket.items()},
    }
    command = [str(Path(sys.executable).parent / "contentapi"), "serve", "--workers", "1"]
    ports = [_free_port(), _free_port()]
    logs = [tmp_path / f"instance-{n}.log" for n in range(2)]
    processes = [
        subprocess.Popen(
            [*command, "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
        )
        for port, log in zip(ports, logs, strict=True)
    ]
    clients = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") for port in ports]
    try:
        for process, client, log in zip(processes, clients, logs, strict=True):
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    pytest.fail(f"an instance exited: {log.read_text()}")
                try:
                    if (await client.get("/api/articles", headers=ADMIN)).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"an instance did not start: {log.read_text()}")
                await asyncio.sleep(0.05)
        for log in logs:  # both started without an error on the empty database
            text = log.read_text()
            assert "Traceback" not in text and "ERROR" not in text, text
            assert "Application startup complete" in text, text
        yield clients[0], clients[1], url.replace("postgresql+asyncpg://", "postgresql://")
    finally:
        for client in clients:
            await client.aclose()
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=15)


async def _public_role(client: httpx.AsyncClient) -> dict[str, Any]:
    roles = (await client.get("/api/users-permissions/roles", headers=ADMIN)).json()["roles"]
    role_id = next(role["id"] for role in roles if role["type"] == "public")
    found = await client.get(f"/api/users-permissions/roles/{role_id}", headers=ADMIN)
    return dict(found.json()["role"])


async def test_two_instances_share_everything(instances, s3_emulator, s3_bucket):
    one, other, dsn = instances

    # one instance migrated and made the secrets; the other found them
    conn = await asyncpg.connect(dsn)
    try:
        assert await conn.fetchval("SELECT count(*) FROM alembic_version") == 1
        secrets = await conn.fetch(
            "SELECT key FROM strapi_core_store_settings WHERE key LIKE 'contentapi_%' ORDER BY key"
        )
        assert [row["key"] for row in secrets] == [
            "contentapi_api_token_salt",
            "contentapi_jwt_secret",
        ]
        assert await conn.fetchval("SELECT count(*) FROM up_roles") == 2
    finally:
        await conn.close()

    # a role changed through one applies to the other's requests (its caller cache is
    # emptied by the notification of the commit)
    assert (await other.get("/api/articles")).status_code == 403  # public: kept by `other`
    role = await _public_role(one)
    role["permissions"]["api::article"]["controllers"]["article"]["find"]["enabled"] = True
    changed = await one.put(
        f"/api/users-permissions/roles/{role['id']}",
        json={"permissions": role["permissions"]},
        headers=ADMIN,
    )
    assert changed.json() == {"ok": True}

    async def public_may_find() -> bool:
        return (await other.get("/api/articles")).status_code == 200

    await eventually(
        public_may_find, "the role change on the other instance", seconds=BOUND_SECONDS
    )

    # a write through one is read, and counted, by the other (list totals are kept per
    # process and forgotten on every committed write, whoever made it)
    assert (await other.get("/api/articles")).json()["meta"]["pagination"]["total"] == 0
    created = await one.post("/api/articles", json={"data": {"title": "Shared"}}, headers=ADMIN)
    assert created.status_code == 200, created.text
    article = created.json()["data"]["id"]
    read = await other.get(f"/api/articles/{article}", headers=ADMIN)
    assert read.json()["data"]["attributes"]["title"] == "Shared"

    async def counted() -> bool:
        listed = (await other.get("/api/articles")).json()
        return bool(listed["meta"]["pagination"]["total"] == 1)

    await eventually(counted, "the list total on the other instance", seconds=BOUND_SECONDS)

    # an upload through one (S3) is listed by the other and read through its URL
    picture = png(800, 600)
    uploaded = await one.post(
        "/api/upload",
        files=[("files", ("shared.png", picture, "image/png"))],
        data={"ref": "api::article.article", "refId": str(article), "field": "cover"},
        headers=ADMIN,
    )
    assert uploaded.status_code == 200, uploaded.text
    (file,) = uploaded.json()
    seen = await other.get(f"/api/upload/files/{file['id']}", headers=ADMIN)
    assert seen.status_code == 200 and seen.json()["url"] == file["url"]
    assert file["url"].startswith(f"{s3_emulator.endpoint}/{s3_bucket['s3_bucket']}/")
    cover = await other.get(f"/api/articles/{article}?populate=cover", headers=ADMIN)
    assert cover.json()["data"]["attributes"]["cover"]["data"]["attributes"]["url"] == file["url"]
    async with httpx.AsyncClient() as web:
        assert (await web.get(seen.json()["url"])).content == picture
    removed = await other.delete(f"/api/upload/files/{file['id']}", headers=ADMIN)
    assert removed.status_code == 200
    assert s3_emulator.keys(str(s3_bucket["s3_bucket"])) == set()

    # a JWT issued by one is accepted by the other: the secret generated on the first start
    # is stored once and read by both
    person = {"username": "sam", "email": "sam@example.com", "password": "secret pass 1"}
    registered = await one.post("/api/auth/local/register", json=person)
    assert registered.status_code == 200, registered.text
    me = await other.get(
        "/api/users/me", headers={"Authorization": f"Bearer {registered.json()['jwt']}"}
    )
    assert me.status_code == 200 and me.json()["username"] == "sam"

    # the auth rate limit counts the requests of both instances together
    wrong = {"identifier": "sam", "password": "wrong pass"}
    statuses = [
        (await (one if n % 2 else other).post("/api/auth/local", json=wrong)).status_code
        for n in range(RATE_LIMIT)
    ]
    assert statuses == [400] * RATE_LIMIT
    assert (await one.post("/api/auth/local", json=wrong)).status_code == 429
    assert (await other.post("/api/auth/local", json=wrong)).status_code == 429


async def test_the_listener_connects_where_configured(backend, databases, start_app):
    """``CONTENTAPI_DATABASE_LISTEN_URL``: the ``LISTEN`` connection goes there (past a pooler
    in transaction mode, in production), every other statement to the database URL."""
    if backend != "postgres":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's")
    url = await databases.new_url()
    proxy = RoundTripProxy(url)  # stands for the direct route, and counts what takes it
    await proxy.start()
    try:
        base, _, name = url.rpartition("/")
        credentials = base.rsplit("@", 1)[0]
        listen = f"{credentials}@127.0.0.1:{proxy.port}/{name}?ssl=disable"
        handle = await start_app(database_url=url, database_listen_url=listen)
        assert handle.runtime.caller_cache.live  # listening, through the proxy
        assert proxy.round_trips >= 2  # LISTEN contentapi_auth, LISTEN contentapi_content
        before = proxy.round_trips
        assert (await handle.client.get("/api/articles", headers=ADMIN)).status_code == 200
        assert proxy.round_trips == before  # requests use the database URL
        assert len(handle.runtime.caller_cache) == 1
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
        try:  # another tool changes a role: heard through the listening connection
            await conn.execute("UPDATE up_roles SET description = 'changed'")
        finally:
            await conn.close()

        async def emptied() -> bool:
            return len(handle.runtime.caller_cache) == 0

        await eventually(
            emptied, "the notification through the listening connection", seconds=BOUND_SECONDS
        )
    finally:
        await proxy.stop()
