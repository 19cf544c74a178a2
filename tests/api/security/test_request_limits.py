"""Request size limits: a query string over ``CONTENTAPI_QUERY_STRING_LIMIT`` is 414, a body over
``CONTENTAPI_BODY_LIMIT`` (declared or streamed without a length) is 413 — in the contract's
error shape, with nothing written; multipart bodies have the upload limit instead."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contentapi.config import Settings
from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _error(response, status: int, name: str, message: str) -> None:
    assert response.status_code == status, response.text
    assert response.json() == {
        "data": None,
        "error": {"status": status, "name": name, "message": message, "details": {}},
    }
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_defaults():
    settings = Settings()
    assert settings.body_limit == 1024 * 1024  # Strapi's jsonLimit
    assert settings.query_string_limit == 64 * 1024


@pytest.fixture
async def small(reused_app):
    return await reused_app(body_limit=2000, query_string_limit=1000, upload_max_size=50_000)


async def test_a_query_string_over_the_limit_is_414(small):
    within = "filters[title][$eq]=" + "a" * (1000 - len("filters[title][$eq]="))
    assert (await small.client.get(f"/api/articles?{within}", headers=ADMIN)).status_code == 200
    over = within + "a"
    for path in (f"/api/articles?{over}", f"/graphql?{over}", f"/api/upload/files?{over}"):
        response = await small.client.get(path, headers=ADMIN)
        _error(response, 414, "URITooLongError", "URI Too Long")


async def test_a_body_over_the_limit_is_413_and_writes_nothing(small, unchanged):
    big = {"data": {"title": "t", "body": "x" * 3000}}
    async with unchanged(small):
        for path in ("/api/articles", "/api/auth/local/register", "/graphql"):
            response = await small.client.post(path, json=big, headers=ADMIN)
            _error(response, 413, "PayloadTooLargeError", "Payload Too Large")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
            yield b'{"data": {"title": "'
            for _ in range(10):
                yield b"x" * 500
            yield b'"}}'

        response = await small.client.post(
            "/api/articles",
            content=chunks(),
            headers={**ADMIN, "Content-Type": "application/json"},
        )
        _error(response, 413, "PayloadTooLargeError", "Payload Too Large")
        # multipart to a JSON route: held to the JSON limit all the same
        response = await small.client.post(
            "/api/articles", files={"data": ("x", b"x" * 3000)}, headers=ADMIN
        )
        _error(response, 413, "PayloadTooLargeError", "Payload Too Large")
    within = await small.client.post(
        "/api/articles", json={"data": {"title": "ttt", "body": "x" * 1500}}, headers=ADMIN
    )
    assert within.status_code == 200, within.text


async def test_an_upload_has_the_upload_limit_not_the_body_limit(small):
    text = b"hello " * 2000  # 12 kB: over the body limit, within the upload limit
    response = await small.client.post(
        "/api/upload", files={"files": ("a.txt", text, "text/plain")}, headers=ADMIN
    )
    assert response.status_code == 200, response.text
    response = await small.client.post(
        "/api/upload", files={"files": ("a.txt", text * 5, "text/plain")}, headers=ADMIN
    )
    _error(response, 413, "PayloadTooLargeError", "Payload Too Large")
