"""``contentapi webhooks …`` on a real database of each backend: create, list, update, delete,
``trigger`` (Strapi's test event to a real receiver) and the delivery log a running server
writes; bad input refused before anything is written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from click.testing import Result
from typer.testing import CliRunner

from contentapi.cli import app
from tests.conftest import ADMIN_TOKEN, Databases
from tests.support.cli_env import assert_refused, cli_environment
from tests.support.receiver import receiving
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
async def webhooks(databases: Databases, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Runs ``contentapi webhooks …`` against a fresh database (in a thread: the command runs
    its own event loop); ``webhooks.url`` is that database."""
    url = await databases.new_url()
    cli_environment(monkeypatch, tmp_path, url, webhooks_default_headers='{"X-Default": "d"}')

    async def run(*args: str) -> Result:
        return await asyncio.to_thread(CliRunner().invoke, app, ["webhooks", *args])

    run.url = url  # type: ignore[attr-defined]
    return run


async def test_create_list_update_delete(webhooks):
    assert (await webhooks("list")).stderr.strip() == "no webhooks"
    made = await webhooks(
        "create", "--name", "site", "--url", "https://example.com/hook", "--event", "entry.create"
    )
    assert made.exit_code == 0, made.output
    listed = await webhooks("list")
    assert "site" in listed.stdout and "https://example.com/hook" in listed.stdout
    assert "entry.create" in listed.stdout and "entry.delete" not in listed.stdout
    changed = await webhooks("update", "site", "--event", "entry.delete", "--disable")
    assert changed.exit_code == 0, changed.output
    listed = await webhooks("list")
    assert "entry.delete" in listed.stdout and "entry.create" not in listed.stdout
    assert " no" in listed.stdout
    assert (await webhooks("delete", "site")).exit_code == 0
    assert (await webhooks("list")).stderr.strip() == "no webhooks"


async def test_bad_input_is_refused(webhooks):
    assert_refused(await webhooks("create", "--name", "a", "--url", "ftp://x/y"), "http or https")
    assert_refused(
        await webhooks("create", "--name", "a", "--url", "http://x/y", "--event", "entry.made"),
        "unknown event 'entry.made'",
    )
    assert_refused(
        await webhooks("create", "--name", "a", "--url", "http://x/y", "--header", "nocolon"),
        '"Name: value"',
    )
    assert (await webhooks("create", "--name", "a", "--url", "http://x/y")).exit_code == 0
    assert_refused(await webhooks("create", "--name", "a", "--url", "http://x/z"), "already")
    assert_refused(await webhooks("delete", "missing"), "no webhook named 'missing'")


async def test_trigger_sends_strapis_test_event(webhooks):
    async with receiving() as receiver:
        made = await webhooks(
            "create", "--name", "site", "--url", receiver.url, "--header", "X-Own: o"
        )
        assert made.exit_code == 0, made.output
        triggered = await webhooks("trigger", "site")
        assert triggered.exit_code == 0, triggered.output
        assert triggered.stdout.startswith("200")
    (sent,) = receiver.requests
    assert sent.headers["x-strapi-event"] == "trigger-test"
    assert sent.headers["x-own"] == "o" and sent.headers["x-default"] == "d"
    body = orjson.loads(sent.body)
    assert list(body) == ["event", "createdAt"] and body["event"] == "trigger-test"


async def test_deliveries_show_what_a_server_sent(webhooks, start_app):
    async with receiving() as receiver:
        made = await webhooks("create", "--name", "site", "--url", receiver.url)
        assert made.exit_code == 0, made.output
        handle = await start_app(database_url=webhooks.url, events_poll_interval=0.05)
        created = await handle.client.post(
            "/api/articles", json={"data": {"title": "Logged"}}, headers=ADMIN
        )
        assert created.status_code == 200, created.text

        async def delivered() -> bool:
            shown = await webhooks("deliveries", "site")
            return "delivered" in shown.stdout

        await eventually(delivered, "the delivery in the log")
    shown = await webhooks("deliveries")
    assert "entry.create" in shown.stdout and "site" in shown.stdout and "200" in shown.stdout
