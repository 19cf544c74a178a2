"""CDN purges (``events/cdn_purge.py``) against a local receiver: a committed change — through
the API or plain SQL on the database — purges the keys of the tables it changed, in the
configured style, tried again on failure on the webhooks' schedule. PostgreSQL: the purges
follow the change listener's notifications (SQLite has none)."""

from __future__ import annotations

import asyncpg
import orjson
import pytest

from contentapi.events.cdn_purge import purge_request
from tests.conftest import ADMIN_TOKEN
from tests.support.receiver import Receiver, receiving
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def test_each_style_names_the_keys_as_its_cdn_reads_them():
    fastly = purge_request("fastly", "https://f/purge", "k", ["articles", "authors"])
    assert fastly.method == "POST" and fastly.headers["Fastly-Key"] == "k"
    assert orjson.loads(fastly.body) == {"surrogate_keys": ["articles", "authors"]}
    cloudflare = purge_request("cloudflare", "https://c/purge_cache", "t", ["authors"])
    assert cloudflare.headers["Authorization"] == "Bearer t"
    assert orjson.loads(cloudflare.body) == {"tags": ["authors"]}
    varnish = purge_request("varnish", "http://v/", None, ["articles", "authors"])
    assert varnish.method == "PURGE" and varnish.headers == {"xkey-purge": "articles authors"}


def _keys(receiver: Receiver) -> list[list[str]]:
    return [orjson.loads(r.body)["surrogate_keys"] for r in receiver.requests]


async def test_a_commit_purges_the_keys_of_the_tables_it_changed(start_app, backend):
    if backend != "postgres":
        pytest.skip("purges follow PostgreSQL's change notifications")
    async with receiving() as receiver:
        handle = await start_app(
            cdn_purge="fastly", cdn_purge_url=receiver.url, cdn_purge_token="secret"
        )

        async def purged_everything() -> bool:  # the listener connected: changes were missed
            return any("authors" in keys and "articles" in keys for keys in _keys(receiver))

        await eventually(purged_everything, "the purge of every key at start")
        first = len(receiver.requests)
        created = await handle.client.post(
            "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=ADMIN
        )
        assert created.status_code == 200

        async def purged_authors() -> bool:
            return any("authors" in keys for keys in _keys(receiver)[first:])

        await eventually(purged_authors, "the purge after the API's write")
        sent = receiver.requests[-1]
        assert sent.method == "POST" and sent.headers["fastly-key"] == "secret"
        assert "articles" not in _keys(receiver)[-1]

        # plain SQL on the database, through the triggers' notification alone
        later = len(receiver.requests)
        url = handle.runtime.settings.database_url.replace("postgresql+asyncpg", "postgresql")
        tool = await asyncpg.connect(url)
        try:
            await tool.execute("UPDATE categories SET name = name")
        finally:
            await tool.close()

        async def purged_categories() -> bool:
            return ["categories"] in _keys(receiver)[later:]

        await eventually(purged_categories, "the purge after plain SQL")


async def test_a_failed_purge_is_tried_again(start_app, backend):
    if backend != "postgres":
        pytest.skip("purges follow PostgreSQL's change notifications")
    async with receiving() as receiver:
        handle = await start_app(
            cdn_purge="fastly",
            cdn_purge_url=receiver.url,
            webhooks_retry_ceiling=0.05,
            webhooks_max_attempts=3,
        )
        purger = handle.runtime.cdn_purger
        assert purger is not None

        async def started() -> bool:
            return purger.sent == 1

        await eventually(started, "the purge at start")
        receiver.statuses = [503, 502]  # two failures, then 200
        url = handle.runtime.settings.database_url.replace("postgresql+asyncpg", "postgresql")
        tool = await asyncpg.connect(url)
        try:
            await tool.execute("UPDATE authors SET name = name")
        finally:
            await tool.close()

        async def delivered() -> bool:
            return purger.sent == 2

        await eventually(delivered, "the purge after two failures")
        assert _keys(receiver)[-3:] == [["authors"]] * 3
        # a refusal (4xx) is not tried again
        receiver.statuses = [403]
        tool = await asyncpg.connect(url)
        try:
            await tool.execute("UPDATE authors SET name = name")
        finally:
            await tool.close()

        async def refused() -> bool:
            return purger.failed == 1

        await eventually(refused, "the refused purge")
        assert len(receiver.requests) == 5  # the start, three tries, one refusal
