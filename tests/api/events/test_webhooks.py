"""Webhooks (``strapi_webhooks``) reached by the writes' events, as Strapi 4.25 sends them: a
real HTTP receiver gets the POST with Strapi's headers and body; retried on 5xx, not on 4xx;
nothing for a read, a refused write or a rolled-back transaction."""

from __future__ import annotations

import hashlib
import hmac

import orjson
import pytest
from sqlalchemy import func, select, text

from contentapi.db.system import events, webhook_deliveries
from contentapi.events.webhooks import create_webhook, update_webhook
from tests.conftest import ADMIN_TOKEN
from tests.support.receiver import Receiver, receiving
from tests.support.server import free_port
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


@pytest.fixture(autouse=True)
def no_gathering(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dispatcher woken by a write waits 0.2 s for more writes to join its turn (under
    load, fewer turns); these tests write one at a time and wait for each delivery."""
    monkeypatch.setattr("contentapi.events.dispatch.COALESCE_SECONDS", 0.0)


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


async def test_a_receiver_down_then_up_gets_each_event_once(hooked):
    handle, _receiver = hooked
    port = free_port()
    async with handle.runtime.database.write() as conn:
        await create_webhook(conn, "late", f"http://127.0.0.1:{port}/hook", {}, ["entry.create"])
    for title in ("One", "Two", "Three"):
        created = await handle.client.post(
            "/api/articles", json={"data": {"title": title}}, headers=ADMIN
        )
        assert created.status_code == 200

    async def refused_twice() -> bool:
        async with handle.runtime.database.read() as conn:
            rows = (
                await conn.execute(
                    select(webhook_deliveries).where(webhook_deliveries.c.webhook_name == "late")
                )
            ).all()
        return len(rows) == 3 and all(
            row.status == "pending" and row.attempts >= 2 and row.last_error for row in rows
        )

    await eventually(refused_twice, "three deliveries tried twice while the receiver is down")
    async with receiving(port) as late:
        await _received(late, 3)

        async def delivered() -> bool:
            async with handle.runtime.database.read() as conn:
                statuses = (
                    await conn.execute(
                        select(webhook_deliveries.c.status).where(
                            webhook_deliveries.c.webhook_name == "late"
                        )
                    )
                ).scalars()
                return list(statuses) == ["delivered"] * 3

        await eventually(delivered, "the three deliveries delivered")
    ids = [request.headers["x-contentapi-event-id"] for request in late.requests]
    assert len(ids) == len(set(ids)) == 3  # each event once
    titles = [orjson.loads(request.body)["entry"]["title"] for request in late.requests]
    assert sorted(titles) == ["One", "Three", "Two"]


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
        await _received(receiver, 2)
    (media_update,) = [orjson.loads(request.body) for request in media.requests]
    assert media_update["event"] == "media.update"
    assert media_update["media"]["name"] == "renamed.txt"
    # the first upload made Strapi's "API Uploads" folder: its entry.create, as Strapi's
    folder, entry_update = [orjson.loads(request.body) for request in receiver.requests]
    assert (folder["event"], folder["model"], folder["entry"]["name"]) == (
        "entry.create",
        "folder",
        "API Uploads",
    )
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
        await _received(receiver, 2)
    assert orjson.loads(media.requests[0].body)["media"]["caption"] == "C"
    events_sent = [orjson.loads(request.body)["event"] for request in receiver.requests]
    assert events_sent == ["entry.create", "entry.update"]  # the folder's, then the file's


async def test_publication_events_are_sent_when_switched_on(reused_app):
    """Off by default (Strapi sends them for its admin's publish action only, and a REST write
    of ``publishedAt`` an ``entry.update``: ``test_strapi_recordings.py``); on, an update that
    publishes or unpublishes also sends ``entry.publish`` / ``entry.unpublish``, Strapi's
    admin body ``{event, createdAt, model, entry}``."""
    handle = await reused_app(**SETTINGS, events_publication=True)
    async with receiving() as receiver:
        async with handle.runtime.database.write() as conn:
            await create_webhook(
                conn, "publication", receiver.url, {}, ["entry.publish", "entry.unpublish"]
            )
        created = await handle.client.post(
            "/api/articles", json={"data": {"title": "Draft", "publishedAt": None}}, headers=ADMIN
        )
        article = f"/api/articles/{created.json()['data']['id']}"
        for published_at in ("2024-01-02T03:04:05.000Z", "2024-02-02T03:04:05.000Z", None, None):
            changed = await handle.client.put(
                article, json={"data": {"publishedAt": published_at}}, headers=ADMIN
            )
            assert changed.status_code == 200, changed.text
        # a published entry's title: no publication event
        await handle.client.put(article, json={"data": {"title": "T"}}, headers=ADMIN)
        mutation = (
            "mutation($id: ID!) { updateArticle(id: $id, data: {publishedAt: %s}) { data { id } } }"
        )
        for value in ('"2024-03-03T00:00:00.000Z"', "null"):
            answer = await handle.client.post(
                "/graphql",
                json={"query": mutation % value, "variables": {"id": created.json()["data"]["id"]}},
                headers=ADMIN,
            )
            assert "errors" not in answer.json(), answer.text
        await _received(receiver, 4)
    bodies = [orjson.loads(sent.body) for sent in receiver.requests]
    assert [b["event"] for b in bodies] == [
        "entry.publish",
        "entry.unpublish",
        "entry.publish",
        "entry.unpublish",
    ]
    assert list(bodies[0]) == ["event", "createdAt", "model", "entry"]
    assert bodies[0]["model"] == "article" and bodies[0]["entry"]["publishedAt"] is not None
    assert bodies[1]["entry"]["publishedAt"] is None


async def test_users_events_are_strapis_users_permissions_ones(hooked):
    """Register and the account flows send ``entry.create`` / ``entry.update`` of model
    ``user`` with its role (Strapi's user service writes with ``populate: ['role']``); a
    user's delete sends nothing (Strapi deletes it below its entity service)."""
    handle, _receiver = hooked
    registered = await handle.client.post(
        "/api/auth/local/register",
        json={"username": "ann", "email": "ann@example.com", "password": "Passw0rd!"},
    )
    assert registered.status_code == 200, registered.text
    user_id = registered.json()["user"]["id"]
    asked = await handle.client.post("/api/auth/forgot-password", json={"email": "ann@example.com"})
    assert asked.status_code == 200
    deleted = await handle.client.delete(f"/api/users/{user_id}", headers=ADMIN)
    assert deleted.status_code == 200
    async with handle.runtime.database.read() as conn:
        rows = (
            await conn.execute(select(events.c.event, events.c.payload).order_by(events.c.id))
        ).all()
    assert [row.event for row in rows] == ["entry.create", "entry.update"]
    for row in rows:
        payload = orjson.loads(row.payload)
        assert (payload["model"], payload["uid"]) == ("user", "plugin::users-permissions.user")
        assert payload["entry"]["role"]["type"] == "authenticated"
        assert "password" not in payload["entry"] and "resetPasswordToken" not in payload["entry"]


async def test_a_busy_dispatcher_vacuums_the_feeds_tables(reused_app, backend, monkeypatch):
    """Every dispatched event and sent delivery leaves a dead row; a dispatcher that moved
    some vacuums both tables (PostgreSQL: whatever autovacuum does, which may be off)."""
    if backend != "postgres":
        pytest.skip("SQLite keeps no dead rows")
    monkeypatch.setattr("contentapi.events.dispatch.VACUUM_SECONDS", 0.0)
    handle = await reused_app(**SETTINGS)
    counts = text(
        "SELECT relname, vacuum_count FROM pg_stat_user_tables "
        "WHERE relname IN ('contentapi_events', 'contentapi_webhook_deliveries')"
    )

    async def vacuums() -> dict[str, int]:
        async with handle.runtime.database.read() as conn:
            return {name: int(n) for name, n in (await conn.execute(counts)).all()}

    before = await vacuums()
    async with receiving() as receiver:
        async with handle.runtime.database.write() as conn:
            await create_webhook(conn, "vacuumed", receiver.url, {}, ENTRY_EVENTS)
        created = await handle.client.post(
            "/api/categories",
            json={"data": {"name": "Vacuumed", "slug": "vacuumed"}},
            headers=ADMIN,
        )
        assert created.status_code == 200, created.text
        await _received(receiver, 1)

        async def vacuumed() -> bool:
            # the statistics collector reports a little after the vacuum
            after = await vacuums()
            return all(after[name] > before.get(name, 0) for name in after) and len(after) == 2

        await eventually(vacuumed, "a vacuum of both tables")


async def test_a_private_target_is_refused_where_private_targets_are_not_allowed(reused_app):
    """``CONTENTAPI_WEBHOOKS_ALLOW_PRIVATE=false`` (production's default): a loopback receiver
    gets nothing; the delivery fails at once, its reason logged (every redirect hop is checked
    the same way: ``test_http_client.py``)."""
    handle = await reused_app(**SETTINGS, webhooks_allow_private=False)
    async with receiving() as receiver:
        async with handle.runtime.database.write() as conn:
            await create_webhook(conn, "inside", receiver.url, {}, ENTRY_EVENTS)
        made = await handle.client.post(
            "/api/categories", json={"data": {"name": "Kept", "slug": "kept"}}, headers=ADMIN
        )
        assert made.status_code == 200, made.text
        query = select(webhook_deliveries.c.status, webhook_deliveries.c.last_error).where(
            webhook_deliveries.c.webhook_name == "inside"
        )

        async def failed() -> bool:
            async with handle.runtime.database.read() as conn:
                rows = (await conn.execute(query)).all()
            return bool(rows) and rows[0].status == "failed"

        await eventually(failed, "the delivery failed")
        async with handle.runtime.database.read() as conn:
            row = (await conn.execute(query)).one()
        assert "127.0.0.1 is a private address" in row.last_error
        assert receiver.requests == []
