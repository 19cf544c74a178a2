"""``GET /api/P/events`` (server-sent events) through real HTTP, across two ``contentapi serve``
processes on one database: what one writes, a stream on the other hears — filtered as the
stream's query says, resumed with ``Last-Event-ID``, ended when the caller may no longer read
the type."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
import orjson
import pytest

from tests.conftest import MODELS
from tests.support.server import ServerProcess
from tests.support.waiting import eventually


@dataclass
class Message:
    id: int
    event: str
    data: dict


@dataclass
class Stream:
    """The messages of one open event stream, read in the background."""

    messages: list[Message] = field(default_factory=list)
    ended: bool = False

    async def read(self, response: httpx.Response) -> None:
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
                continue
            if "event" in fields:
                self.messages.append(
                    Message(int(fields["id"]), fields["event"], orjson.loads(fields["data"]))
                )
            fields = {}
        self.ended = True

    async def until(self, check, what: str) -> None:
        async def holds() -> bool:
            return check(self.messages)

        await eventually(holds, f"{what} (heard: {self.messages})", seconds=20)


@contextlib.asynccontextmanager
async def streaming(
    server: ServerProcess, path: str, headers: dict[str, str]
) -> AsyncIterator[Stream]:
    stream = Stream()
    async with (
        httpx.AsyncClient(base_url=server.base_url, timeout=30) as client,
        client.stream("GET", path, headers=headers) as response,
    ):
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        reading = asyncio.create_task(stream.read(response))
        try:
            yield stream
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reading


@pytest.fixture
async def two_servers(databases):
    url = await databases.new_url()
    servers = [ServerProcess(url, MODELS), ServerProcess(url, MODELS)]
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        yield servers
    finally:
        for server in servers:
            server.stop()


async def test_streams_across_two_processes(two_servers):
    """One pair of servers for both checks (each start costs seconds)."""
    writer, reader = two_servers
    await _filtered_and_resumed(writer, reader)
    await _ended_when_the_role_loses_the_permission(writer, reader)


async def _filtered_and_resumed(writer: ServerProcess, reader: ServerProcess) -> None:
    """What one process writes, a stream on the other hears, filtered by its query; with
    ``Last-Event-ID`` it gets what it missed, then live events."""
    admin = writer.headers
    async with httpx.AsyncClient(base_url=writer.base_url, headers=admin) as client:
        path = "/api/articles/events?filters[title][$startsWith]=Keep&fields[0]=title"
        async with streaming(reader, path, admin) as stream:
            await client.post("/api/articles", json={"data": {"title": "Drop"}})
            kept = (await client.post("/api/articles", json={"data": {"title": "Keep 1"}})).json()
            await stream.until(lambda m: len(m) >= 1, "the create")
            article = f"/api/articles/{kept['data']['id']}"
            await client.put(article, json={"data": {"title": "Keep 2"}})
            await stream.until(lambda m: len(m) >= 2, "the update")
            await client.delete(article)
            await stream.until(lambda m: len(m) >= 3, "the delete")
            await asyncio.sleep(0.5)  # nothing more comes: the "Drop" entry does not match
        created, updated, deleted = stream.messages
        assert [m.event for m in stream.messages] == [
            "entry.create",
            "entry.update",
            "entry.delete",
        ]
        assert created.data == {
            "data": {"id": kept["data"]["id"], "attributes": {"title": "Keep 1"}},
            "meta": {},
        }
        assert updated.data["data"]["attributes"] == {"title": "Keep 2"}
        assert deleted.data == {"data": {"id": kept["data"]["id"]}, "meta": {}}
        assert created.id < updated.id < deleted.id
        # reconnecting after the create: the update (the entry is gone: skipped) and the
        # delete again, then live
        resumed_headers = {**admin, "Last-Event-ID": str(created.id)}
        async with streaming(reader, path, resumed_headers) as resumed:
            await resumed.until(lambda m: len(m) >= 1, "the missed delete")
            await client.post("/api/articles", json={"data": {"title": "Keep 3"}})
            await resumed.until(lambda m: len(m) >= 2, "a live event after the missed one")
        assert [m.id for m in resumed.messages[:1]] == [deleted.id]
        assert resumed.messages[1].data["data"]["attributes"] == {"title": "Keep 3"}


async def _ended_when_the_role_loses_the_permission(
    writer: ServerProcess, reader: ServerProcess
) -> None:
    """A user's stream ends within a second or so of its role losing ``find``; a new one is
    refused."""
    admin = writer.headers
    async with httpx.AsyncClient(base_url=writer.base_url, headers=admin) as client:
        roles = (await client.get("/api/users-permissions/roles")).json()["roles"]
        role_id = next(r["id"] for r in roles if r["type"] == "authenticated")
        role = (await client.get(f"/api/users-permissions/roles/{role_id}")).json()["role"]
        find = role["permissions"]["api::article"]["controllers"]["article"]["find"]

        async def allow(on: bool) -> None:
            find["enabled"] = on
            changed = await client.put(
                f"/api/users-permissions/roles/{role_id}",
                json={"permissions": role["permissions"]},
            )
            assert changed.json() == {"ok": True}

        await allow(True)
        registered = await client.post(
            "/api/auth/local/register",
            json={"username": "sam", "email": "sam@example.com", "password": "Passw0rd!"},
            headers={"Authorization": ""},
        )
        jwt = {"Authorization": f"Bearer {registered.json()['jwt']}"}
        async with streaming(reader, "/api/articles/events", jwt) as stream:
            await client.post("/api/articles", json={"data": {"title": "Seen"}})
            await stream.until(lambda m: len(m) == 1, "the first event")
            await allow(False)
            await stream.until(lambda m: m[-1].event == "error", "the stream's end")
        assert stream.messages[-1].data == {"reason": "Forbidden"}
        refused = await httpx.AsyncClient(base_url=reader.base_url).get(
            "/api/articles/events", headers=jwt
        )
        assert refused.status_code == 403
