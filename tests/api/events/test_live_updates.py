"""Live updates through real connections, across two ``contentapi serve`` processes on one
database: what one writes, a stream on the other hears — ``GET /api/P/events`` (server-sent
events, read with httpx) and GraphQL subscriptions over ``graphql-transport-ws`` (read with the
``graphql-ws`` library Apollo Client uses, ``tests/support/graphql_ws.py``) — filtered as the
stream's query says, resumed with ``Last-Event-ID``, ended when the caller may no longer read
the type."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.conftest import MODELS
from tests.support.graphql_ws import NODE, GraphQLWsClient
from tests.support.server import ServerProcess
from tests.support.waiting import eventually

#: a stream is cut off once more than 20 events wait for its client
QUEUE_LIMIT = 20
SERVED = {
    "CONTENTAPI_GRAPHQL_SUBSCRIPTIONS": "true",
    "CONTENTAPI_LOCALES": "en,fr",
    "CONTENTAPI_EVENTS_QUEUE_LIMIT": str(QUEUE_LIMIT),
}
#: a localized single type with draft & publish, beside the example models
NOTICE = {
    "kind": "singleType",
    "collectionName": "notices",
    "info": {"singularName": "notice", "pluralName": "notices", "displayName": "Notice"},
    "options": {"draftAndPublish": True},
    "pluginOptions": {"i18n": {"localized": True}},
    "attributes": {"text": {"type": "string", "pluginOptions": {"i18n": {"localized": True}}}},
}


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
async def two_servers(databases, tmp_path: Path):
    url = await databases.new_url()
    models = tmp_path / "content-types"
    shutil.copytree(MODELS, models)
    (models / "notice.json").write_text(json.dumps(NOTICE))
    servers = [ServerProcess(url, models, **SERVED) for _ in range(2)]
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        yield servers
    finally:
        for server in servers:
            server.stop()


async def test_streams_across_two_processes(two_servers):
    """One pair of servers for every check (each start costs seconds); the server-sent events
    first, then what needs the graphql-ws client (Node.js)."""
    writer, reader = two_servers
    await _filtered_and_resumed(writer, reader)
    await _a_client_that_does_not_read_is_cut_off(writer, reader)
    if NODE is None:
        pytest.skip("the graphql-ws client runs on Node.js, which is not installed")
    await _graphql_subscriptions(writer, reader)
    await _single_type_subscriptions(writer, reader)
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


async def _graphql_subscriptions(writer: ServerProcess, reader: ServerProcess) -> None:
    """``articleCreated`` (filtered, aliased, its variables), ``articleUpdated``,
    ``articleUnpublished`` and ``articleDeleted`` on one connection to the reader, for writes
    through the writer; a bad document is refused with ``error``; a connection without the
    protocol is refused at the upgrade."""
    url = reader.base_url.replace("http://", "ws://") + "/graphql"
    with pytest.raises(InvalidStatus):
        async with websockets.connect(url, subprotocols=["graphql-ws"]):
            pass
    async with (
        GraphQLWsClient(url, writer.headers) as socket,
        httpx.AsyncClient(base_url=writer.base_url, headers=writer.headers) as client,
    ):
        created = (
            "subscription($f: ArticleFiltersInput) "
            "{ fresh: articleCreated(filters: $f) { data { id attributes { title } } } }"
        )
        for operation_id, query, variables in (
            ("1", created, {"f": {"title": {"startsWith": "Sub"}}}),
            ("2", "subscription { articleUpdated { data { attributes { title } } } }", {}),
            ("3", "subscription { articleDeleted { data { id } } }", {}),
            ("4", "subscription { articleCreated { data { nope } } }", {}),
            ("5", "subscription { articleUnpublished { data { attributes { title } } } }", {}),
        ):
            await socket.subscribe(operation_id, query, variables)
        refused = await _next(socket)
        assert (refused["id"], refused["type"]) == ("4", "error")
        assert "nope" in refused["payload"][0]["message"]
        await _in_place(socket, client)
        await client.post("/api/articles", json={"data": {"title": "Not this one"}})
        made = (await client.post("/api/articles", json={"data": {"title": "Sub 1"}})).json()
        entry_id = str(made["data"]["id"])
        heard: dict[str, list[dict]] = {}

        async def hear(count: int) -> None:
            for _ in range(count):
                message = await _next(socket)
                assert message["type"] == "next", message
                heard.setdefault(message["id"], []).append(message["payload"])

        await hear(1)
        await client.put(f"/api/articles/{entry_id}", json={"data": {"title": "Sub 2"}})
        await hear(1)
        await client.put(f"/api/articles/{entry_id}", json={"data": {"publishedAt": None}})
        await hear(1)  # the unpublish (articleUpdated reads live entries: a draft is not one)
        await client.delete(f"/api/articles/{entry_id}")
        await hear(1)

    def data(key: str, entry: dict) -> dict:
        return {"data": {key: {"data": entry}}}

    assert heard == {
        "1": [data("fresh", {"id": entry_id, "attributes": {"title": "Sub 1"}})],
        "2": [data("articleUpdated", {"attributes": {"title": "Sub 2"}})],
        "5": [data("articleUnpublished", {"attributes": {"title": "Sub 2"}})],
        "3": [data("articleDeleted", {"id": entry_id, "attributes": None})],
    }


async def _next(socket: GraphQLWsClient) -> dict:
    """The next message of the test's own subscriptions (a late probe's skipped)."""
    while (message := await socket.next_message()).get("id") == "probe":
        pass
    return message


async def _in_place(socket: GraphQLWsClient, client: httpx.AsyncClient) -> None:
    """Until the subscriptions sent so far follow the change feed: the server sets each up
    before it reads the next message, so once a probe subscribed after them hears a write of
    its own, they are in place too (polling, not a fixed wait)."""
    probe = (
        'subscription { articleCreated(filters: {title: {startsWith: "Probe"}}) { data { id } } }'
    )
    await socket.subscribe("probe", probe)
    for attempt in range(60):
        await client.post("/api/articles", json={"data": {"title": f"Probe {attempt}"}})
        try:
            message = await socket.next_message(seconds=0.5)
        except TimeoutError:
            continue
        assert message["id"] == "probe", message
        return
    pytest.fail("a probe subscription heard none of 60 writes")


async def _single_type_subscriptions(writer: ServerProcess, reader: ServerProcess) -> None:
    """A localized single type with draft & publish: ``noticeUpdated`` hears its first write
    (a create) and its updates in the locale it follows (the default one without ``locale``),
    ``noticePublished`` / ``noticeDeleted`` theirs; another locale's writes send nothing."""
    url = reader.base_url.replace("http://", "ws://") + "/graphql"
    async with (
        GraphQLWsClient(url, writer.headers) as socket,
        httpx.AsyncClient(base_url=writer.base_url, headers=writer.headers) as client,
    ):
        selection = "{ data { id attributes { text locale } } }"
        for operation_id, query in (
            ("en", f"subscription {{ noticeUpdated {selection} }}"),
            ("fr", f'subscription {{ noticeUpdated(locale: "fr") {selection} }}'),
            ("published", f'subscription {{ noticePublished(locale: "fr") {selection} }}'),
            ("deleted", 'subscription { noticeDeleted(locale: "fr") { data { id } } }'),
        ):
            await socket.subscribe(operation_id, query)
        await _in_place(socket, client)

        async def write(method: str, path: str, body: dict | None = None) -> int:
            answer = await client.request(method, path, json=body)
            assert answer.status_code == 200, answer.text
            made = answer.json()
            return int(made["data"]["id"] if "data" in made else made["id"])

        async def heard() -> tuple[str, dict | None]:
            message = await _next(socket)
            assert message["type"] == "next", message
            key = next(iter(message["payload"]["data"]))
            return message["id"], message["payload"]["data"][key]["data"]

        english = await write("PUT", "/api/notice", {"data": {"text": "Hello"}})
        en_entry = {"id": str(english), "attributes": {"text": "Hello", "locale": "en"}}
        assert await heard() == ("en", en_entry)
        # a French draft: its create is not live; the English entry's update (its
        # localizations) is
        body = {"locale": "fr", "text": "Bonjour", "publishedAt": None}
        french = await write("POST", "/api/notice/localizations", body)
        assert await heard() == ("en", en_entry)
        await write("PUT", "/api/notice?locale=fr", {"data": {"publishedAt": "2026-01-01"}})
        fr_entry = {"id": str(french), "attributes": {"text": "Bonjour", "locale": "fr"}}
        assert sorted([await heard(), await heard()]) == [("fr", fr_entry), ("published", fr_entry)]
        await write("DELETE", "/api/notice")  # English: not the deleted subscription's locale
        await write("DELETE", "/api/notice?locale=fr")
        assert await heard() == ("deleted", {"id": str(french), "attributes": None})
        await write("PUT", "/api/notice", {"data": {"text": "Hello again"}})
        following, entry = await heard()
        assert following == "en" and entry is not None
        assert entry["attributes"]["text"] == "Hello again"


async def _a_client_that_does_not_read_is_cut_off(
    writer: ServerProcess, reader: ServerProcess
) -> None:
    """A client that stops reading its stream (a small socket buffer, large messages): once
    more than ``QUEUE_LIMIT`` events wait for it, the stream ends with the reason — what its
    socket already held comes first — and the connection closes."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", reader.port))
    incoming, outgoing = await asyncio.open_connection(sock=raw)
    authorization = writer.headers["Authorization"]
    outgoing.write(
        b"GET /api/articles/events?fields[0]=body HTTP/1.1\r\nHost: test\r\n"
        + f"Authorization: {authorization}\r\nConnection: close\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(incoming.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 200"), head  # subscribed before it answers
    # from now on nothing is read
    body = "x" * 200_000
    async with httpx.AsyncClient(base_url=writer.base_url, headers=writer.headers) as client:
        for _ in range(5 * QUEUE_LIMIT):
            made = await client.post("/api/articles", json={"data": {"title": "Big", "body": body}})
            assert made.status_code == 200, made.text
    received = await asyncio.wait_for(incoming.read(), 30)  # to the end: the server closes
    outgoing.close()
    messages = received.count(b"event: entry.create")
    assert 0 < messages < 4 * QUEUE_LIMIT, messages
    assert b"event: error" in received
    reason = f"the client did not keep up: more than {QUEUE_LIMIT} events waited".encode()
    assert reason in received[received.rindex(b"event: error") :]


async def _ended_when_the_role_loses_the_permission(
    writer: ServerProcess, reader: ServerProcess
) -> None:
    """A user's event stream and subscription end within a second or so of its role losing
    ``find``; a new stream is refused."""
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
        url = reader.base_url.replace("http://", "ws://") + "/graphql"
        async with (
            streaming(reader, "/api/articles/events", jwt) as stream,
            GraphQLWsClient(url, jwt) as socket,
        ):
            query = (
                'subscription { articleCreated(filters: {title: {eq: "Seen"}}) { data { id } } }'
            )
            await socket.subscribe("1", query)
            await _in_place(socket, client)
            await client.post("/api/articles", json={"data": {"title": "Seen"}})
            # the stream is not filtered: the probes that showed the subscription in place may
            # come first
            await stream.until(
                lambda m: any(
                    (x.data.get("data") or {}).get("attributes", {}).get("title") == "Seen"
                    for x in m
                ),
                "the event of 'Seen'",
            )
            first = await _next(socket)
            await allow(False)
            await stream.until(lambda m: m[-1].event == "error", "the stream's end")
            ended = [await _next(socket) for _ in range(2)]
        assert stream.messages[-1].data == {"reason": "Forbidden"}
        assert first["type"] == "next" and first["payload"]["data"]["articleCreated"]["data"]
        errors = [{"message": "Forbidden", "extensions": {"code": "FORBIDDEN"}}]
        assert ended == [
            {"id": "1", "type": "next", "payload": {"errors": errors}},
            {"id": "1", "type": "complete"},
        ]
        refused = await httpx.AsyncClient(base_url=reader.base_url).get(
            "/api/articles/events", headers=jwt
        )
        assert refused.status_code == 403
