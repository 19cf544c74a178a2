"""contentapi's webhook deliveries against the reference Strapi 4.25's, recorded.

``tests/fixtures/strapi_webhooks.json`` holds what a real Strapi 4.25.24 sent to a webhook
subscribed to all eight events (headers ``{"X-Own": "o"}``) for a list of writes through its
REST, upload and GraphQL APIs and its admin's publish and unpublish (recorded by ``python -m
diff.webhooks_record``, which also dumped Strapi's database as it was before the writes, its
webhook row written by Strapi's admin: ``tests/fixtures/strapi_webhooks_db.sql``). The same
requests are replayed here, in the same order, and each delivery must match the recorded one:
the same events in the same order, the same headers (the transport's own — host, user agent,
accept, encoding, length, connection — apart: those are the HTTP client's, node-fetch there,
httpx here) and the same JSON body, key order included, with times and upload hashes
normalized. Replayed three ways:

- on a fresh contentapi database (SQLite and PostgreSQL), the admin steps left out;
- on the Strapi-made database (PostgreSQL): the same, ids included, with the one change that
  its webhook's URL points at this test's receiver; and again there with the publication
  events, as follows;
- with ``CONTENTAPI_EVENTS_PUBLICATION``: contentapi has no admin API, so the admin's publish
  and unpublish are replayed as the REST writes that do the same (``publishedAt`` now, or
  null); their ``entry.publish``/``entry.unpublish`` must be the admin's, while their
  ``entry.update`` is REST's, as for any REST update.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson
import pytest

from contentapi.events.webhooks import WEBHOOK_EVENTS, create_webhook
from tests.conftest import ADMIN_TOKEN, POSTGRES_ADMIN_URL, AppHandle
from tests.support.pgdump import restored_database
from tests.support.receiver import Received, Receiver, receiving
from tests.support.waiting import eventually

FIXTURES = Path(__file__).parents[2] / "fixtures"
RECORDED = orjson.loads((FIXTURES / "strapi_webhooks.json").read_bytes())
#: Strapi's database as the recording began: its webhook row made by its admin, no content
DUMP = FIXTURES / "strapi_webhooks_db.sql"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
#: headers of the HTTP client, not of the webhook (and contentapi's own additions)
TRANSPORT = frozenset(
    {"accept", "content-length", "user-agent", "accept-encoding", "host", "connection"}
)
OURS = frozenset({"x-contentapi-event-id", "x-contentapi-signature"})
TIMES = frozenset({"createdAt", "updatedAt", "publishedAt"})
HASHED = re.compile(r"_[0-9a-f]{10}")


def _normalized(value: Any) -> Any:
    """Times as ``<time>`` (null kept), upload hashes without their random part; key order kept
    (a dict's items as a list of pairs, so that the comparison sees the order)."""
    if isinstance(value, dict):
        return [
            (key, "<time>" if key in TIMES and item is not None else _normalized(item))
            for key, item in value.items()
        ]
    if isinstance(value, list):
        return [_normalized(item) for item in value]
    if isinstance(value, str):
        return HASHED.sub("_<hash>", value)
    return value


def _first_difference(ours: Any, theirs: Any, path: str = "") -> str:
    """Where two bodies first differ (for the failure message)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if list(ours) != list(theirs):
            return f"{path}: keys {list(ours)} != {list(theirs)}"
        for key in ours:
            if key in TIMES and ours[key] is not None and theirs[key] is not None:
                continue
            found = _first_difference(ours[key], theirs[key], f"{path}.{key}")
            if found:
                return found
        return ""
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found = _first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return ""
    return "" if _normalized(ours) == _normalized(theirs) else f"{path}: {ours!r} != {theirs!r}"


def _headers(headers: dict[str, str]) -> list[tuple[str, str]]:
    return [(k, v) for k, v in headers.items() if k not in TRANSPORT and k not in OURS]


@pytest.fixture(autouse=True)
def no_gathering(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dispatcher woken by a write waits 0.2 s for more writes to join its turn; here each
    step waits for its deliveries, so that wait would be most of the test's time."""
    monkeypatch.setattr("contentapi.events.dispatch.COALESCE_SECONDS", 0.0)


async def _send(client, request: dict[str, Any]):
    method, path, body = request["method"], request["path"], request.get("body")
    if isinstance(body, dict) and "multipart/form-data" in body:
        # every part a form-data part, as the recorder sent them (fields as unnamed files)
        parts: list[tuple[str, tuple[str | None, bytes, str | None]]] = []
        for name, value in body["multipart/form-data"].items():
            if isinstance(value, dict):
                parts.append(
                    (name, (value["filename"], value["content"].encode(), value["contentType"]))
                )
            else:
                parts.append((name, (None, value.encode(), None)))
        return await client.request(method, path, files=parts, headers=ADMIN)
    if body is None:
        return await client.request(method, path, headers=ADMIN)
    return await client.request(method, path, json=body, headers=ADMIN)


@dataclass(frozen=True)
class Expected:
    """A delivery a step must cause: the recorded one, or (``recorded`` None) only its event."""

    step: str
    event: str
    recorded: dict[str, Any] | None


def _admin_as_rest(request: dict[str, Any]) -> dict[str, Any]:
    """The content manager's ``…/api::article.article/N/actions/publish`` (or ``unpublish``)
    as the REST update that does the same."""
    *_, entry_id, _, action = request["path"].split("/")
    published_at = datetime.now(UTC).isoformat() if action == "publish" else None
    return {
        "method": "PUT",
        "path": f"/api/articles/{entry_id}",
        "body": {"data": {"publishedAt": published_at}},
    }


def _plan(*, publication: bool) -> list[tuple[dict[str, Any], dict[str, Any], list[Expected]]]:
    """Each step to replay — (step, request, expected deliveries) — in order."""
    plan = []
    last_unpublish: dict[str, Any] | None = None
    for step in RECORDED["steps"]:
        name, recorded = step["name"], step["deliveries"]
        events = [delivery["body"]["event"] for delivery in recorded]
        if step["request"].get("auth") != "admin-jwt":
            expected = [Expected(name, event, d) for event, d in zip(events, recorded, strict=True)]
            plan.append((step, step["request"], expected))
            continue
        if not publication:
            continue
        # the admin's entry.update (and its copies to localizations) are not REST's
        event = events[-1]
        assert event in ("entry.publish", "entry.unpublish"), name
        expected = [Expected(name, "entry.update", None), Expected(name, event, recorded[-1])]
        plan.append((step, _admin_as_rest(step["request"]), expected))
        if event == "entry.unpublish" and last_unpublish is None:
            last_unpublish = recorded[-1]
    if publication:
        # a REST update taking a published entry back to a draft now also sends
        # entry.unpublish: step 4b takes article 1 there in the state 5b's admin unpublish
        # leaves it, so it sends what 5b recorded
        for step, _, expected in plan:
            if step["name"].startswith("4b."):
                expected.append(Expected(step["name"], "entry.unpublish", last_unpublish))
    return plan


async def _replay(
    client: httpx.AsyncClient, receiver: Receiver, *, publication: bool = False
) -> None:
    """Make each write, wait for its deliveries, then compare them all with the expected."""
    expected: list[Expected] = []
    for step, request, deliveries in _plan(publication=publication):
        answer = await _send(client, request)
        assert answer.status_code == step["status"], (step["name"], answer.text)
        expected += deliveries

        async def arrived(count: int = len(expected)) -> bool:
            return len(receiver.requests) >= count

        await eventually(arrived, f"the deliveries up to step {step['name']}")
    got: list[Received] = receiver.requests
    assert [sent.headers.get("x-strapi-event") for sent in got] == [e.event for e in expected]
    for wanted, sent in zip(expected, got, strict=True):
        if wanted.recorded is None:
            continue
        recorded = wanted.recorded
        assert (sent.method, sent.path) == (recorded["method"], recorded["path"]), wanted.step
        assert _headers(sent.headers) == _headers(recorded["headers"]), wanted.step
        ours, theirs = orjson.loads(sent.body), recorded["body"]
        assert _normalized(ours) == _normalized(theirs), (
            wanted.step,
            _first_difference(ours, theirs),
        )


async def _with_webhook(handle: AppHandle, url: str) -> None:
    async with handle.runtime.database.write() as conn:
        hook = RECORDED["webhook"]
        await create_webhook(conn, "recorder", url, hook["headers"], list(WEBHOOK_EVENTS))


async def test_the_deliveries_are_strapis(start_app):
    handle = await start_app(events_poll_interval=0.05)
    async with receiving() as receiver:
        await _with_webhook(handle, receiver.url)
        await _replay(handle.client, receiver)


async def test_publish_and_unpublish_are_the_content_managers(start_app):
    handle = await start_app(events_poll_interval=0.05, events_publication=True)
    async with receiving() as receiver:
        await _with_webhook(handle, receiver.url)
        await _replay(handle.client, receiver, publication=True)


@pytest.fixture
async def strapi_made_database(backend: str) -> AsyncIterator[str]:
    """The reference's own database before the writes, restored (PostgreSQL only)."""
    if backend != "postgres":
        pytest.skip("the database Strapi made is a PostgreSQL database")
    async with restored_database(POSTGRES_ADMIN_URL, DUMP, "contentapi_test_hooks") as url:
        yield url


@pytest.mark.parametrize("publication", [False, True], ids=["rest", "with-publication"])
async def test_a_strapi_made_databases_webhook_gets_strapis_deliveries(
    start_app, strapi_made_database: str, publication: bool
):
    async with receiving() as receiver:
        dsn = strapi_made_database.replace("postgresql+asyncpg://", "postgresql://")
        conn = await asyncpg.connect(dsn)
        try:
            # the row Strapi's admin wrote; only its target changes, to this test's receiver
            rows = await conn.fetch("SELECT name, headers, events, enabled FROM strapi_webhooks")
            assert [(r["name"], r["enabled"]) for r in rows] == [("recorder", True)]
            await conn.execute("UPDATE strapi_webhooks SET url = $1", receiver.url)
        finally:
            await conn.close()
        handle = await start_app(
            database_url=strapi_made_database,
            events_poll_interval=0.05,
            events_publication=publication,
        )
        await _replay(handle.client, receiver, publication=publication)
