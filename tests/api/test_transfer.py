"""``contentapi import`` / ``export``: archives of Strapi's data transfer (``strapi export``)
read back through REST the same as the Strapi that made them — on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from bench.reference.transfer_content import READS, clean
from click.testing import Result
from typer.testing import CliRunner

from contentapi.cli import app as cli_app
from contentapi.transfer.archive import read_archive, write_archive
from contentapi.transfer.service import export_file, import_file
from tests.conftest import ADMIN_TOKEN, AppHandle, Databases
from tests.support.cli_env import assert_refused, cli_environment

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transfer"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PLAIN = FIXTURES / "strapi-plain.tar.gz"
ENCRYPTED = FIXTURES / "strapi-secret.tar.gz.enc"
#: what the reference Strapi answered to READS for the content of both archives
STRAPI_SNAPSHOT = json.loads((FIXTURES / "strapi-snapshot.json").read_text())


async def snapshot(handle: AppHandle, headers: dict[str, str]) -> dict[str, Any]:
    answers = {}
    for path, params in READS:
        response = await handle.client.get(path, params=params, headers=headers)
        assert response.status_code == 200, response.text
        answers[path] = clean(response.json())
    return answers


@pytest.fixture
async def fresh(start_app) -> AppHandle:
    return await start_app()


async def test_strapi_archive_reads_back_as_strapi_answered(fresh, admin):
    await import_file(fresh.runtime, PLAIN)
    assert await snapshot(fresh, admin) == STRAPI_SNAPSHOT
    # ids go on after the imported ones (PostgreSQL's sequences were moved)
    response = await fresh.client.post(
        "/api/articles", json={"data": {"title": "After the import"}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["id"] == 4


async def test_the_encrypted_archive_with_its_key(fresh, admin):
    await import_file(fresh.runtime, ENCRYPTED, key="secret")
    assert await snapshot(fresh, admin) == STRAPI_SNAPSHOT


async def test_the_archive_files_bytes_are_served(fresh, admin):
    await import_file(fresh.runtime, PLAIN)
    response = await fresh.client.get("/uploads/dot_7c75e68a3f.png")
    assert response.status_code == 200
    assert response.content.startswith(b"\x89PNG")


async def test_users_and_their_passwords_travel(fresh, start_app, tmp_path):
    """A users-permissions user (bcrypt hash as stored) signs in on the importing side."""
    account = {"username": "ada", "email": "ada@example.org", "password": "correct horse"}
    response = await fresh.client.post("/api/auth/local/register", json=account)
    assert response.status_code == 200, response.text
    archive = tmp_path / "users.tar.gz"
    await export_file(fresh.runtime, archive)
    other = await start_app()
    await import_file(other.runtime, archive)
    sign_in = {"identifier": "ada", "password": "correct horse"}
    response = await other.client.post("/api/auth/local", json=sign_in)
    assert response.status_code == 200, response.text
    assert response.json()["user"]["username"] == "ada"


async def test_round_trip_through_an_export(fresh, start_app, admin, tmp_path):
    """contentapi → archive → another contentapi: every read the same (and the file's bytes)."""
    await import_file(fresh.runtime, PLAIN)
    archive = tmp_path / "content.tar.gz"
    await export_file(fresh.runtime, archive)
    other = await start_app()
    await import_file(other.runtime, archive)
    assert await snapshot(other, admin) == STRAPI_SNAPSHOT
    response = await other.client.get("/uploads/dot_7c75e68a3f.png")
    assert response.content.startswith(b"\x89PNG")


@pytest.fixture
async def server(databases: Databases, start_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A server on a fresh database holding one article, and ``server.cli(...)`` running
    ``contentapi ...`` on the same database and uploads folder (in a thread: own event loop)."""
    url = await databases.new_url()
    uploads = tmp_path / "uploads"
    handle = await start_app(database_url=url, uploads_dir=uploads)
    cli_environment(monkeypatch, tmp_path, url, uploads_dir=str(uploads))

    async def cli(*args: str) -> Result:
        return await asyncio.to_thread(CliRunner().invoke, cli_app, list(args))

    handle.cli = cli  # type: ignore[attr-defined]
    return handle


async def _titles(handle: AppHandle, admin: dict[str, str]) -> list[str]:
    response = await handle.client.get(
        "/api/articles",
        params={"locale": "all", "publicationState": "preview", "sort": "id"},
        headers=admin,
    )
    return [entry["attributes"]["title"] for entry in response.json()["data"]]


async def _with_one_article(handle: AppHandle, admin: dict[str, str]) -> None:
    response = await handle.client.post(
        "/api/articles", json={"data": {"title": "Kept while refused"}}, headers=admin
    )
    assert response.status_code == 200, response.text


async def test_cli_import_then_export_encrypted_and_back(server, admin, tmp_path):
    result = await server.cli("import", str(PLAIN))
    assert result.exit_code == 0, result.output
    assert "imported" in result.stderr and "1 file" in result.stderr
    assert await snapshot(server, admin) == STRAPI_SNAPSHOT
    exported = tmp_path / "copy.tar.gz.enc"
    result = await server.cli("export", str(exported), "--key", "s3cret")
    assert result.exit_code == 0, result.output
    assert_refused(await server.cli("import", str(exported)), "needs --key", "nothing was written")
    result = await server.cli("import", str(exported), "--key", "s3cret")
    assert result.exit_code == 0, result.output
    assert await snapshot(server, admin) == STRAPI_SNAPSHOT


def _damaged_archives(tmp_path: Path) -> dict[str, tuple[Path, list[str], str]]:
    """Name → (archive, extra CLI arguments, words of the expected error)."""
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(PLAIN.read_bytes()[:3000])
    not_archive = tmp_path / "notes.tar.gz"
    not_archive.write_text("just some text")
    bad_line = tmp_path / "bad-line.tar"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:") as tar:
        for name, data in (("metadata.json", b"{}"), ("entities/entities_00001.jsonl", b"{oops\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    bad_line.write_bytes(buffer.getvalue())
    # a valid archive whose last entity cannot be stored: refused after the tables were emptied
    late = read_archive(PLAIN)
    late.entities.append({"type": "api::author.author", "id": 99, "data": {"born": "someday"}})
    late_failure = tmp_path / "late.tar.gz"
    write_archive(late_failure, late)
    unknown = read_archive(PLAIN)
    unknown.entities.append({"type": "api::recipe.recipe", "id": 1, "data": {}})
    unknown_type = tmp_path / "unknown.tar.gz"
    write_archive(unknown_type, unknown)
    extra = read_archive(PLAIN)
    extra.entities.append({"type": "api::profile.profile", "id": 9, "data": {"mood": "glad"}})
    extra_field = tmp_path / "extra-field.tar.gz"
    write_archive(extra_field, extra)
    return {
        "unknown field": (extra_field, [], "api::profile.profile has no field 'mood'"),
        "wrong key": (ENCRYPTED, ["--key", "nope"], "does not decrypt with this key"),
        "no key": (ENCRYPTED, [], "needs --key"),
        "truncated": (truncated, [], "damaged"),
        "not an archive": (not_archive, [], "not a transfer archive"),
        "bad JSON line": (bad_line, [], "entities/entities_00001.jsonl line 1 is not JSON"),
        "bad value": (late_failure, [], "api::author.author: born has an invalid date value"),
        "unknown type": (unknown_type, [], "api::recipe.recipe"),
        "missing file": (tmp_path / "absent.tar.gz", [], "cannot read"),
    }


async def test_bad_archives_are_refused_and_nothing_is_written(server, admin, tmp_path):
    await _with_one_article(server, admin)
    for name, (archive, extra, words) in _damaged_archives(tmp_path).items():
        result = await server.cli("import", str(archive), *extra)
        assert_refused(result, words, "nothing was written")
        assert await _titles(server, admin) == ["Kept while refused"], name
    assert not list((tmp_path / "uploads").glob("dot_*")), "no file stored either"


async def test_the_archive_locales_are_added(start_app, admin):
    """A server with English only gets the archive's French (and its French entry reads)."""
    handle = await start_app(locales="en")
    await import_file(handle.runtime, PLAIN)
    response = await handle.client.get("/api/i18n/locales", headers=admin)
    assert [locale["code"] for locale in response.json()] == ["en", "fr"]
    response = await handle.client.get(
        "/api/articles", params={"locale": "fr", "publicationState": "preview"}, headers=admin
    )
    assert [entry["attributes"]["title"] for entry in response.json()["data"]] == ["Bonjour monde"]


async def test_files_travel_through_the_s3_provider(start_app, s3_bucket, tmp_path):
    """Import stores the archive's files in the bucket; export reads them back from it."""
    handle = await start_app(**s3_bucket)
    await import_file(handle.runtime, PLAIN)
    response = await handle.client.get("/api/upload/files", headers=ADMIN)
    [file] = response.json()
    assert file["provider"] == "aws-s3" and file["url"].startswith("http")
    assert s3_bucket["s3_bucket"] in file["url"]
    exported = tmp_path / "from-s3.tar.gz"
    archive = await export_file(handle.runtime, exported)
    assert archive.assets["dot_7c75e68a3f.png"].data.startswith(b"\x89PNG")
    assert read_archive(exported).assets["dot_7c75e68a3f.png"].data == (
        read_archive(PLAIN).assets["dot_7c75e68a3f.png"].data
    )


async def test_the_default_locale_travels(fresh, start_app, admin, tmp_path):
    """The archive's default locale becomes the default (Strapi's configuration stage), and an
    export carries this server's default on."""
    from contentapi.i18n.manage import set_default_locale

    async with fresh.runtime.database.write() as conn:
        await set_default_locale(conn, "fr")
    await import_file(fresh.runtime, PLAIN)  # Strapi's default: en
    response = await fresh.client.get("/api/i18n/locales", headers=admin)
    assert [loc["code"] for loc in response.json() if loc["isDefault"]] == ["en"]
    async with fresh.runtime.database.write() as conn:
        await set_default_locale(conn, "fr")
    archive = tmp_path / "fr-default.tar.gz"
    await export_file(fresh.runtime, archive)
    other = await start_app()
    await import_file(other.runtime, archive)
    response = await other.client.get("/api/i18n/locales", headers=admin)
    assert [loc["code"] for loc in response.json() if loc["isDefault"]] == ["fr"]
