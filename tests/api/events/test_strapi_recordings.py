"""contentapi's webhook deliveries against the reference Strapi 4.25's, recorded.

``tests/fixtures/strapi_webhooks.json`` holds what a real Strapi 4.25.24 sent to a webhook
subscribed to all eight events (headers ``{"X-Own": "o"}``) for a list of writes through its
REST, upload and GraphQL APIs (recorded by ``python -m diff.webhooks_record``). The same
requests are replayed here, in the same order, on a fresh database, and each delivery must
match the recorded one: the same events in the same order, the same headers (the transport's
own — host, user agent, accept, encoding, length, connection — apart: those are the HTTP
client's, node-fetch there, httpx here) and the same JSON body, key order included, with times
and upload hashes normalized. The content manager's publish and unpublish (admin steps) are
not replayed: contentapi has no admin API.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from contentapi.events.webhooks import WEBHOOK_EVENTS, create_webhook
from tests.conftest import ADMIN_TOKEN
from tests.support.receiver import Received, receiving
from tests.support.waiting import eventually

RECORDED = orjson.loads(
    (Path(__file__).parents[2] / "fixtures" / "strapi_webhooks.json").read_bytes()
)
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


@pytest.fixture
async def recording(start_app):
    handle = await start_app(events_poll_interval=0.05)
    async with receiving() as receiver:
        async with handle.runtime.database.write() as conn:
            hook = RECORDED["webhook"]
            await create_webhook(
                conn, "recorder", receiver.url, hook["headers"], list(WEBHOOK_EVENTS)
            )
        yield handle, receiver


async def test_the_deliveries_are_strapis(recording):
    handle, receiver = recording
    expected: list[tuple[str, dict[str, Any]]] = []
    for step in RECORDED["steps"]:
        if step["request"].get("auth") == "admin-jwt":
            continue
        answer = await _send(handle.client, step["request"])
        assert answer.status_code == step["status"], (step["name"], answer.text)
        expected += [(step["name"], delivery) for delivery in step["deliveries"]]

        async def arrived(count: int = len(expected)) -> bool:
            return len(receiver.requests) >= count

        await eventually(arrived, f"the deliveries up to step {step['name']}")
    got: list[Received] = receiver.requests
    assert len(got) == len(expected)
    for (name, recorded), sent in zip(expected, got, strict=True):
        assert (sent.method, sent.path) == (recorded["method"], recorded["path"]), name
        assert _headers(sent.headers) == _headers(recorded["headers"]), name
        ours, theirs = orjson.loads(sent.body), recorded["body"]
        assert _normalized(ours) == _normalized(theirs), (name, _first_difference(ours, theirs))
