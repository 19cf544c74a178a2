"""``contentapi locales list|add|remove|default`` on a real database of each backend, with a
server running on it: each change read back through ``GET /api/i18n/locales`` and seen by the
running server's entry reads and writes (PostgreSQL: through its change listener, so polled);
Strapi's refusals exit 2 with one line and change nothing. Also ``CONTENTAPI_LOCALES`` at
start-up: it adds a missing locale and never moves the default."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from contentapi.cli import app
from tests.conftest import ADMIN_TOKEN, Databases
from tests.support.cli_env import assert_refused, cli_environment
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
async def server(databases: Databases, start_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A server (locales ``en,fr``, ``en`` the default) on a fresh database, and
    ``server.cli(…)`` running ``contentapi locales …`` on the same database (in a thread: the
    command runs its own event loop)."""
    url = await databases.new_url()
    handle = await start_app(database_url=url)
    cli_environment(monkeypatch, tmp_path, url)

    async def cli(*args: str) -> Result:
        return await asyncio.to_thread(CliRunner().invoke, app, ["locales", *args])

    handle.cli = cli  # type: ignore[attr-defined]
    return handle


async def _locales(server) -> list[tuple[str, str, bool]]:
    response = await server.client.get("/api/i18n/locales", headers=ADMIN)
    assert response.status_code == 200, response.text
    return [(loc["code"], loc["name"], loc["isDefault"]) for loc in response.json()]


async def _article(server, title: str, locale: str | None = None) -> dict:
    data = {"title": title, **({"locale": locale} if locale else {})}
    response = await server.client.post("/api/articles", json={"data": data}, headers=ADMIN)
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def _titles(server, query: str = "") -> list[str]:
    response = await server.client.get(f"/api/articles?{query}", headers=ADMIN)
    assert response.status_code == 200, response.text
    return [entry["attributes"]["title"] for entry in response.json()["data"]]


async def test_list_prints_code_name_and_the_default(server):
    result = await server.cli("list")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert rows == [["en", "English", "(en)", "default"], ["fr", "French", "(fr)"]]


async def test_add_makes_a_locale_the_running_server_writes_in(server):
    await _article(server, "Hello")  # the server has read (PostgreSQL: keeps) its locales
    german = await server.cli("add", "de")
    assert german.exit_code == 0, german.output
    named = await server.cli("add", "pt-BR", "--name", "Português do Brasil")
    assert named.exit_code == 0, named.output
    assert await _locales(server) == [
        ("en", "English (en)", True),
        ("fr", "French (fr)", False),
        ("de", "German (de)", False),
        ("pt-BR", "Português do Brasil", False),
    ]

    async def written_in_german() -> bool:
        data = {"title": "Hallo", "locale": "de"}
        response = await server.client.post("/api/articles", json={"data": data}, headers=ADMIN)
        return response.status_code == 200

    await eventually(written_in_german, "an entry written in the added locale")
    assert await _titles(server, "locale=de") == ["Hallo"]


async def test_add_refuses_an_unknown_code_a_duplicate_and_a_long_name(server):
    before = await _locales(server)
    assert_refused(await server.cli("add", "xx"), "'xx' is not one of Strapi's ISO locale codes")
    assert_refused(await server.cli("add", "en_US"), "did you mean 'en-US'?")
    assert_refused(await server.cli("add", "fr"), "this locale already exists: 'fr'")
    assert_refused(await server.cli("add", "de", "--name", "x" * 51), "at most 50 characters")
    assert await _locales(server) == before


async def test_default_moves_is_default_and_the_reads_without_locale(server):
    english = await _article(server, "Hello")
    french = await server.client.post(
        f"/api/articles/{english['id']}/localizations",
        json={"locale": "fr", "title": "Bonjour", "publishedAt": "2024-01-01T00:00:00Z"},
        headers=ADMIN,
    )
    assert french.status_code == 200, french.text
    await server.client.put(
        f"/api/articles/{french.json()['id']}",
        json={"data": {"publishedAt": "2024-01-01T00:00:00Z"}},
        headers=ADMIN,
    )
    assert await _titles(server) == ["Hello"]  # read (PostgreSQL: kept) with en the default

    result = await server.cli("default", "fr")
    assert result.exit_code == 0, result.output
    assert await _locales(server) == [
        ("en", "English (en)", False),
        ("fr", "French (fr)", True),
    ]

    async def read_in_french() -> bool:
        return await _titles(server) == ["Bonjour"]

    await eventually(read_in_french, "a read without locale in the new default")
    created = await _article(server, "Nouveau")
    assert created["attributes"]["locale"] == "fr"  # a create without locale: the default
    assert_refused(await server.cli("default", "de"), "there is no locale 'de'")
    assert (await _locales(server))[1] == ("fr", "French (fr)", True)


async def _hello_in_english_and_french(server) -> tuple[int, int]:
    """An article "Hello" and its French localization "Bonjour": their ids."""
    english = await _article(server, "Hello")
    french = await server.client.post(
        f"/api/articles/{english['id']}/localizations",
        json={"locale": "fr", "title": "Bonjour"},
        headers=ADMIN,
    )
    assert french.status_code == 200, french.text
    return english["id"], french.json()["id"]


async def test_remove_refuses_the_default_and_unconfirmed_entries(server):
    await _hello_in_english_and_french(server)
    before = await _locales(server)
    assert_refused(
        await server.cli("remove", "en", "--yes"), "cannot delete the default locale 'en'"
    )
    assert_refused(
        await server.cli("remove", "fr"),
        "1 entry written in 'fr' would be deleted with it",
        "--yes",
    )
    assert_refused(await server.cli("remove", "de"), "there is no locale 'de'")
    assert await _locales(server) == before
    assert await _titles(server, "locale=fr&publicationState=preview") == ["Bonjour"]


async def test_remove_deletes_the_locale_and_the_entries_written_in_it(server):
    english_id, french_id = await _hello_in_english_and_french(server)
    result = await server.cli("remove", "fr", "--yes")
    assert result.exit_code == 0, result.output
    assert "removed locale 'fr' and 1 entry written in it" in result.stderr
    assert await _locales(server) == [("en", "English (en)", True)]
    gone = await server.client.get(f"/api/articles/{french_id}", headers=ADMIN)
    assert gone.status_code == 404
    kept = await server.client.get(
        f"/api/articles/{english_id}?populate=localizations", headers=ADMIN
    )
    assert kept.json()["data"]["attributes"]["localizations"]["data"] == []

    async def refused_in_french() -> bool:
        data = {"title": "Encore", "locale": "fr"}
        response = await server.client.post("/api/articles", json={"data": data}, headers=ADMIN)
        return response.status_code == 400

    await eventually(refused_in_french, "a write in the removed locale refused")
    # a locale no entry is written in goes without --yes
    assert (await server.cli("add", "de")).exit_code == 0
    assert (await server.cli("remove", "de")).exit_code == 0
    assert await _locales(server) == [("en", "English (en)", True)]


async def test_start_adds_a_missing_locale_and_keeps_the_default(databases, start_app, caplog):
    url = await databases.new_url()
    first = await start_app(database_url=url, locales="en")
    assert await _locales(first) == [("en", "English (en)", True)]
    caplog.set_level("WARNING", logger="contentapi")
    second = await start_app(database_url=url, locales="fr,en")
    assert await _locales(second) == [("en", "English (en)", True), ("fr", "French (fr)", False)]
    assert "locale" not in caplog.text
    created = await _article(second, "Bonjour", locale="fr")
    assert created["attributes"]["locale"] == "fr"
