"""``contentapi import`` / ``export``: archives of Strapi's data transfer (``strapi export``)
read back through REST the same as the Strapi that made them — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.reference.transfer_content import READS, clean
from contentapi.transfer.archive import ArchiveError
from contentapi.transfer.service import export_file, import_file
from tests.conftest import AppHandle

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transfer"
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


async def test_the_encrypted_archive_with_its_key(fresh, admin):
    await import_file(fresh.runtime, ENCRYPTED, key="secret")
    assert await snapshot(fresh, admin) == STRAPI_SNAPSHOT


async def test_the_archive_files_bytes_are_served(fresh, admin):
    await import_file(fresh.runtime, PLAIN)
    response = await fresh.client.get("/uploads/dot_7c75e68a3f.png")
    assert response.status_code == 200
    assert response.content.startswith(b"\x89PNG")


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
