"""``contentapi settings``: an operator changes the advanced settings and a mail template
without an admin panel; a running server applies the change on its next request."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from contentapi.cli import app as cli
from tests.api.mail.conftest import delivered, register
from tests.conftest import MODELS


def _run(monkeypatch: pytest.MonkeyPatch, url: str, *args: str):
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", url)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    return CliRunner().invoke(cli, list(args))


async def test_settings_commands_change_what_the_server_does(
    start_app, smtp, leaks, databases, monkeypatch, tmp_path
):
    url = await databases.new_url()
    handle = await start_app(database_url=url, **smtp.settings())
    changed = await asyncio.to_thread(
        _run, monkeypatch, url, "settings", "set", "allow_register=false",
        "email_reset_password=https://front.example.test/reset",
    )  # fmt: skip
    assert changed.exit_code == 0, changed.output
    assert json.loads(changed.stdout)["allow_register"] is False
    refused = await register(handle)
    assert refused.json()["error"]["message"] == "Register action is currently disabled"

    body = tmp_path / "reset.html"
    body.write_text("<p>Hi <%= USER.username %>: <%= URL %>?code=<%= TOKEN %></p>")
    template = await asyncio.to_thread(
        _run, monkeypatch, url, "settings", "template", "reset_password",
        "--from-name", "Shop", "--from-email", "help@shop.example", "--subject", "Your reset",
        "--message-file", str(body),
    )  # fmt: skip
    assert template.exit_code == 0, template.output
    shown = await asyncio.to_thread(_run, monkeypatch, url, "settings", "show")
    assert json.loads(shown.stdout)["email"]["reset_password"]["object"] == "Your reset"

    await asyncio.to_thread(_run, monkeypatch, url, "settings", "set", "allow_register=true")
    assert (await register(handle)).status_code == 200
    await handle.client.post("/api/auth/forgot-password", json={"email": "alice@example.com"})
    [mail] = await delivered(handle, smtp)
    assert mail.message["From"] == "Shop <help@shop.example>"
    assert mail.message["Subject"] == "Your reset"
    assert "Hi alice: https://front.example.test/reset?code=" in mail.text
    leaks.secret(mail.text.split("code=")[1].split()[0])


@pytest.mark.parametrize(
    "args",
    [
        ("settings", "set", "allow_register=maybe"),
        ("settings", "set", "no_such_setting=1"),
        ("settings", "set", "email_reset_password=javascript:alert(1)"),
        ("settings", "set", "allow_register"),
        ("settings", "template", "welcome", "--subject", "x"),
        ("settings", "template", "reset_password"),
    ],
)
def test_bad_settings_are_refused_before_touching_the_database(args):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 2, result.output


async def test_a_default_role_that_names_no_role_is_one_line_and_exit_2(databases, monkeypatch):
    url = await databases.new_url()
    refused = await asyncio.to_thread(
        _run, monkeypatch, url, "settings", "set", "default_role=editor"
    )
    assert refused.exit_code == 2, refused.output
    assert refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (
        "error: default_role 'editor' is not a role; the roles are authenticated, public"
    )
    shown = await asyncio.to_thread(_run, monkeypatch, url, "settings", "show")
    assert json.loads(shown.stdout)["advanced"]["default_role"] == "authenticated"
    chosen = await asyncio.to_thread(
        _run, monkeypatch, url, "settings", "set", "default_role=public"
    )
    assert chosen.exit_code == 0, chosen.output
    assert json.loads(chosen.stdout)["default_role"] == "public"
