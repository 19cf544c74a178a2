"""``contentapi tokens create|list|revoke`` on a real database of each backend: permissions and
names validated before anything is written, secrets never listed, revocation effective, and
``last_used_at`` stamped when a token is used — at most once a minute per token and worker."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from contentapi.cli import app
from tests.conftest import Databases
from tests.support.cli_env import cli_environment
from tests.support.waiting import eventually

SALT = "test-salt"  # the app of ``start_app`` hashes with it too


@pytest.fixture
async def tokens(databases: Databases, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Runs ``contentapi tokens …`` against a fresh database (in a thread: the command runs
    its own event loop); ``tokens.url`` is that database."""
    url = await databases.new_url()
    cli_environment(monkeypatch, tmp_path, url)  # its salt is SALT

    async def run(*args: str) -> Result:
        return await asyncio.to_thread(CliRunner().invoke, app, ["tokens", *args])

    run.url = url  # type: ignore[attr-defined]
    return run


def one_line_error(result: Result, code: int, *expected: str) -> None:
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0], lines[0]


async def test_create_validates_permissions_and_names(tokens):
    one_line_error(
        await tokens("create", "--name", "t", "--type", "custom", "--permission", "article.find"),
        2,
        "--permission 'article.find' is not an action",
        "did you mean 'api::article.article.find'?",
    )
    one_line_error(
        await tokens(
            "create", "--name", "t", "--type", "custom", "--permission", "api::article.article.fnd"
        ),
        2,
        "did you mean 'api::article.article.find'?",
    )
    one_line_error(await tokens("create", "--name", "t", "--type", "custom"), 2, "at least one")
    bad_type = await tokens("create", "--name", "t", "--type", "admin")
    assert bad_type.exit_code == 2 and "read-only" in bad_type.output  # the choices are shown
    first = await tokens(
        "create",
        "--name",
        "reader",
        "--type",
        "custom",
        "--permission",
        "api::article.article.find",
    )
    assert first.exit_code == 0, first.output
    assert len(first.stdout.strip().splitlines()) == 1  # the secret, alone
    one_line_error(
        await tokens("create", "--name", "reader"), 2, "a token named 'reader' already exists"
    )
    listed = await tokens("list")
    assert listed.exit_code == 0
    assert listed.stdout.count("reader") == 1  # created once


async def test_list_shows_no_secret_and_last_use(tokens, start_app):
    created = await tokens("create", "--name", "deploy", "--type", "full-access")
    secret = created.stdout.strip()
    listed = await tokens("list")
    assert listed.exit_code == 0
    header, row = listed.stdout.splitlines()[:2]
    assert header.split()[:4] == ["name", "type", "expires", "last"]
    assert row.split()[:4] == ["deploy", "full-access", "never", "never"]
    assert secret not in listed.output
    assert "access_key" not in listed.output and len(max(listed.output.split(), key=len)) < 64

    handle = await start_app(database_url=tokens.url, api_token_salt=SALT, admin_token=None)
    bearer = {"Authorization": f"Bearer {secret}"}
    assert (await handle.client.get("/api/articles", headers=bearer)).status_code == 200
    await handle.runtime.token_usage.settle()
    row = (await tokens("list")).stdout.splitlines()[1]
    name, kind, expires, last_used_day, last_used_time, zone = row.split()[:6]
    assert (name, kind, expires, zone) == ("deploy", "full-access", "never", "UTC")
    assert len(last_used_day) == 10 and len(last_used_time) == 5  # 2026-11-24 10:30
    # used again within the minute: no second stamp is even scheduled
    assert (await handle.client.get("/api/articles", headers=bearer)).status_code == 200
    assert not handle.runtime.token_usage._pending


async def test_revoke(tokens, start_app):
    secret = (await tokens("create", "--name", "old", "--type", "read-only")).stdout.strip()
    handle = await start_app(database_url=tokens.url, api_token_salt=SALT, admin_token=None)
    bearer = {"Authorization": f"Bearer {secret}"}
    assert (await handle.client.get("/api/articles", headers=bearer)).status_code == 200
    revoked = await tokens("revoke", "old")
    assert revoked.exit_code == 0 and "revoked token 'old'" in revoked.stderr

    async def refused() -> bool:  # PostgreSQL: the workers hear of it through NOTIFY
        return (await handle.client.get("/api/articles", headers=bearer)).status_code == 401

    await eventually(refused, "the revoked token refused")
    assert "old" not in (await tokens("list")).output
    one_line_error(await tokens("revoke", "old"), 1, "no API token named 'old'")


async def test_a_custom_token_may_be_given_an_extensions_custom_action(
    tokens, start_app, monkeypatch
):
    """The actions of extensions' custom REST routes are known to ``tokens create``, and a
    token given one may call that route (and nothing else)."""
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "examples.extensions.rest_blog")
    created = await tokens(
        "create",
        "--name",
        "related-only",
        "--type",
        "custom",
        "--permission",
        "api::article.article.related",
    )
    assert created.exit_code == 0, created.output
    bearer = {"Authorization": f"Bearer {created.stdout.strip()}"}
    handle = await start_app(
        database_url=tokens.url,
        api_token_salt=SALT,
        extensions="examples.extensions.rest_blog",
    )
    assert (await handle.client.get("/api/articles/x/related", headers=bearer)).status_code == 200
    assert (await handle.client.get("/api/articles", headers=bearer)).status_code == 403
