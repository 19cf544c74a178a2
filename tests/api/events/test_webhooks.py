"""Webhooks (``strapi_webhooks``) reached by the writes' events, as Strapi 4.25 sends them: a
real HTTP receiver gets the POST with Strapi's headers and body; retried on 5xx, not on 4xx;
nothing for a read, a refused write or a rolled-back transaction."""

from __future__ import annotations

import hashlib
import hmac

import orjson
import pytest
from sqlalchemy import func, select

from contentapi.db.system import events, webhook_deliveries
from contentapi.events.webhooks import create_webhook, update_webhook
from tests.conftest import ADMIN_TOKEN
from tests.support.receiver import Receiver, receiving
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
SECRET = "webhook-secret"
SETTINGS = {
    "webhooks_default_headers": '{"X-Default": "d", "X-Shared": "default", "X-Strapi-Event": "no"}',
    "webhooks_secret": SECRET,
    "webhooks_retry_ceiling": 1,
    # a new webhook is seen at the next look (a second by default): sooner here
    "events_poll_interval": 0.05,
}
ENTRY_EVENTS = ["entry.create", "entry.update", "entry.delete"]


@pytest.fixture
async def hooked(reused_app):
    handle = await reused_app(**SETTINGS)
    async with receiving() as receiver:
        async with handle.runtime.database.write() as conn:
            await create_webhook(
                conn, "site", receiver.url, {"X-Shared": "own", "X-Own": "o"}, ENTRY_EVENTS
            )
        yield handle, receiver


async def _received(receiver: Receiver, count: int) -> None:
    async def arrived() -> bool:
        return len(receiver.requests) >= count

    await eventually(arrived, f"{count} webhook requests")


async def _media_hook_and_file(handle, url: str, events: list[str]) -> int:
    """A webhook ``media`` at ``url`` for ``events``, then one text file uploaded: its id."""
    async with handle.runtime.database.write() as conn:
        await create_webhook(conn, "media", url, {}, events)
    uploaded = await handle.client.post(
        "/api/upload", files=[("files", ("note.txt", b"hello", "text/plain"))], headers=ADMIN
    )
    assert uploaded.status_code == 200, uploaded.text
    return int(uploaded.json()[0]["id"])


async def test_a_create_reaches_the_webhook_as_strapi_sends_it(hooked):
    handle, receiver = hooked
    created = await handle.client.post(
        "/api/articles", json={"data": {"title": "Hello"}}, headers=ADMIN
    )
    assert created.status_code == 200, created.text
    await _received(receiver, 1)
    sent = receiver.requests[0]
    assert (sent.method, sent.path) == ("POST", "/hook")
    # default headers, the webhook's own over them, then Strapi's two over both
    assert sent.headers["x-default"] == "d"
    assert sent.headers["x-shared"] == "own" and sent.headers["x-own"] == "o"
    assert sent.headers["x-strapi-event"] == "entry.create"
    assert sent.headers["content-type"] == "application/json"
    body = orjson.loads(sent.body)
    assert list(body) == ["event", "createdAt", "model", "uid", "entry"]
    assert body["event"] == "entry.create"
    assert (body["model"], body["uid"]) == ("article", "api::article.article")
    entry = body["entry"]
    assert entry["id"] == created.json()["data"]["id"] and entry["title"] == "Hello"
    assert entry["locale"] == "en" and "createdAt" in entry and "publishedAt" in entry
    assert body["createdAt"].endswith("Z")
    # beyond Strapi: the event's id and the body's signature
    assert int(sent.headers["x-contentapi-event-id"]) > 0
    digest = hmac.new(SECRET.encode(), sent.body, hashlib.sha256).hexdigest()
    assert sent.headers["x-contentapi-signature"] == f"sha256={digest}"


async def test_update_and_delete_are_sent_reads_and_refused_writes_are_not(hooked):
    handle, receiver = hooked
    client = handle.client
    created = await client.post("/api/articles", json={"data": {"title": "First"}}, headers=ADMIN)
    assert created.status_code == 200, created.text
    entry_id = created.json()["data"]["id"]
    await client.get("/api/articles", headers=ADMIN)
    refused = await client.post("/api/articles", json={"data": {"views": "x"}}, headers=ADMIN)
    assert refused.status_code == 400
    await client.put(f"/api/articles/{entry_id}", json={"data": {"title": "Second"}}, headers=ADMIN)
    await client.delete(f"/api/articles/{entry_id}", headers=ADMIN)
    await _received(receiver, 3)
    sent = [orjson.loads(request.body) for request in receiver.requests]
    assert [body["event"] for body in sent] == ENTRY_EVENTS
    assert [body["entry"]["title"] for body in sent] == ["First", "Second", "Second"]


async def test_a_5xx_is_tried_again_and_delivered_once_a_4xx_is_not(hooked):
    handle, receiver = hooked
    receiver.statuses[:] = [503, 200, 404]
    await handle.client.post("/api/articles", json={"data": {"title": "First"}}, headers=ADMIN)
    await _received(receiver, 2)
    await handle.client.post("/api/articles", json={"data": {"title": "Second"}}, headers=ADMIN)
    await _received(receiver, 3)
    ids = [request.headers["x-contentapi-event-id"] for request in receiver.requests]
    assert ids[0] == ids[1] != ids[2]  # the same event, retried

    async def settled() -> bool:
        async with handle.runtime.database.read() as conn:
            rows = (
                await conn.execute(
                    select(webhook_deliveries.c.status, webhook_deliveries.c.attempts).order_by(
                        webhook_deliveries.c.id
                    )
                )
            ).all()
        return [tuple(row) for row in rows] == [("delivered", 2), ("failed", 1)]

    await eventually(settled, "one delivery delivered on its second try, one failed")


async def test_a_localization_sends_create_and_update_as_strapi(hooked):
    handle, receiver = hooked
    client = handle.client
    source = (
        await client.post("/api/articles", json={"data": {"title": "English"}}, headers=ADMIN)
    ).json()["data"]["id"]
    made = await client.post(
        f"/api/articles/{source}/localizations",
        json={"title": "French", "locale": "fr"},
        headers=ADMIN,
    )
    assert made.status_code == 200, made.text
    await _received(receiver, 3)
    sent = [orjson.loads(request.body) for request in receiver.requests]
    assert [(body["event"], body["entry"]["locale"]) for body in sent] == [
        ("entry.create", "en"),
        ("entry.create", "fr"),
        ("entry.update", "en"),
    ]


async def test_a_disabled_webhook_or_one_not_listening_gets_nothing(hooked):
    handle, receiver = hooked
    async with receiving() as other:
        async with handle.runtime.database.write() as conn:
            from contentapi.events.webhooks import list_webhooks

            (site,) = await list_webhooks(conn)
            await update_webhook(conn, site, enabled=False)
            await create_webhook(conn, "deletes", other.url, {}, ["entry.delete"])
        await handle.client.post("/api/articles", json={"data": {"title": "First"}}, headers=ADMIN)

        async def dispatched() -> bool:
            async with handle.runtime.database.read() as conn:
                waiting = select(func.count()).where(events.c.dispatched.is_(False))
                return (await conn.execute(waiting)).scalar() == 0

        await eventually(dispatched, "the event dispatched")
        async with handle.runtime.database.read() as conn:
            made = (
                await conn.execute(select(func.count()).select_from(webhook_deliveries))
            ).scalar()
        assert made == 0 and not receiver.requests and not other.requests


async def test_a_rolled_back_write_records_no_event(hooked):
    handle, _receiver = hooked
    runtime = handle.runtime
    recorder = runtime.entries.events
    article = runtime.registry.content_types["api::article.article"]
    with pytest.raises(RuntimeError):
        async with runtime.database.write() as conn:
            await recorder.entry(conn, "entry.create", article, {"id": 1, "title": "x"})
            raise RuntimeError("the write fails after its event")
    async with runtime.database.read() as conn:
        assert (await conn.execute(select(func.count()).select_from(events))).scalar() == 0


async def test_a_graphql_write_sends_the_same_event(hooked):
    handle, receiver = hooked
    answer = await handle.client.post(
        "/graphql",
        json={"query": 'mutation { createArticle(data: {title: "Graph"}) { data { id } } }'},
        headers=ADMIN,
    )
    assert answer.status_code == 200 and "errors" not in answer.json(), answer.text
    await _received(receiver, 1)
    body = orjson.loads(receiver.requests[0].body)
    assert (body["event"], body["uid"], body["entry"]["title"]) == (
        "entry.create",
        "api::article.article",
        "Graph",
    )
    assert body["entry"]["id"] == int(answer.json()["data"]["createArticle"]["data"]["id"])


async def test_an_upload_and_a_file_delete_send_media_events(hooked):
    handle, _receiver = hooked
    async with receiving() as media:
        file_id = await _media_hook_and_file(handle, media.url, ["media.create", "media.delete"])
        deleted = await handle.client.delete(f"/api/upload/files/{file_id}", headers=ADMIN)
        assert deleted.status_code == 200, deleted.text
        await _received(media, 2)
    sent = [orjson.loads(request.body) for request in media.requests]
    assert [list(body) for body in sent] == [["event", "createdAt", "media"]] * 2
    assert [body["event"] for body in sent] == ["media.create", "media.delete"]
    assert [body["media"]["id"] for body in sent] == [file_id, file_id]
    assert sent[0]["media"]["name"] == "note.txt" and sent[0]["media"]["mime"] == "text/plain"


async def test_a_file_info_update_answers_the_file_and_sends_entry_and_media_updates(hooked):
    handle, receiver = hooked
    async with receiving() as media:
        file_id = await _media_hook_and_file(handle, media.url, ["media.update"])
        info = orjson.dumps({"name": "renamed.txt", "caption": "A note"}).decode()
        updated = await handle.client.post(
            f"/api/upload?id={file_id}", files=[("fileInfo", (None, info))], headers=ADMIN
        )
        assert updated.status_code == 200, updated.text
        answer = updated.json()
        assert answer["id"] == file_id and answer["name"] == "renamed.txt"
        assert answer["caption"] == "A note" and answer["alternativeText"] is None
        missing = await handle.client.post(
            "/api/upload?id=999", files=[("fileInfo", (None, info))], headers=ADMIN
        )
        assert missing.status_code == 404, missing.text
        await _received(media, 1)
        await _received(receiver, 1)
    (media_update,) = [orjson.loads(request.body) for request in media.requests]
    assert media_update["event"] == "media.update"
    assert media_update["media"]["name"] == "renamed.txt"
    entry_update = orjson.loads(receiver.requests[0].body)
    assert (entry_update["event"], entry_update["model"], entry_update["uid"]) == (
        "entry.update",
        "file",
        "plugin::upload.file",
    )
    assert entry_update["entry"]["caption"] == "A note"


async def test_graphqls_update_file_info_sends_the_same_events(hooked):
    handle, receiver = hooked
    async with receiving() as media:
        file_id = await _media_hook_and_file(handle, media.url, ["media.update"])
        mutation = (
            f'mutation {{ updateFileInfo(id: {file_id}, info: {{caption: "C"}}) '
            "{ data { attributes { caption name } } } }"
        )
        answer = await handle.client.post("/graphql", json={"query": mutation}, headers=ADMIN)
        assert answer.json()["data"]["updateFileInfo"]["data"]["attributes"] == {
            "caption": "C",
            "name": "note.txt",
        }
        await _received(media, 1)
        await _received(receiver, 1)
    assert orjson.loads(media.requests[0].body)["media"]["caption"] == "C"
    assert orjson.loads(receiver.requests[0].body)["event"] == "entry.update"
