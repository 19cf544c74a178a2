"""Real answers of a scripted scenario match the document's schemas: the shapes schemathesis
rarely reaches by chance — populated relations (to-one, to-many, counts), media, nested
components, dynamic zones, localizations, users, roles, files, locales."""

from __future__ import annotations

import io
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from PIL import Image


@pytest.fixture
async def document(client) -> dict:
    return (await client.get("/documentation/openapi.json")).json()


def _check(document: dict, path: str, method: str, response) -> None:
    """``response`` is one the document declares for ``method path`` (status and body)."""
    operation = document["paths"][path][method]
    declared = operation["responses"].get(str(response.status_code))
    assert declared is not None, f"{method} {path}: undocumented {response.status_code}"
    if "$ref" in declared:
        declared = document["components"]["responses"][declared["$ref"].rsplit("/", 1)[1]]
    schema = declared["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": document["components"]})
    errors = sorted(validator.iter_errors(response.json()), key=str)
    assert not errors, f"{method} {path}: {errors[0]}"


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


async def test_populated_entries_match_the_document(client, admin, document):
    async def post(path: str, body: dict[str, Any], url: str | None = None) -> dict[str, Any]:
        response = await client.post(url or path, json=body, headers=admin)
        assert response.status_code == 200, response.text
        _check(document, path, "post", response)
        return response.json()

    uploaded = await client.post(
        "/api/upload", files=[("files", ("red.png", _png(), "image/png"))], headers=admin
    )
    assert uploaded.status_code == 200, uploaded.text
    _check(document, "/api/upload", "post", uploaded)
    file_id = uploaded.json()[0]["id"]
    author = (await post("/api/authors", {"data": {"name": "Ann", "email": "ann@example.com"}}))[
        "data"
    ]["id"]
    category = (await post("/api/categories", {"data": {"name": "News", "slug": "news"}}))["data"][
        "id"
    ]
    article = await post(
        "/api/articles",
        {
            "data": {
                "title": "Hello world",
                "views": "9007199254740993",
                "rating": 4.5,
                "price": 3,
                "eventDate": "2024-05-17",
                "eventTime": "20:28:00",
                "scheduledAt": "2024-05-17T08:30:00.000Z",
                "reviewedAt": "2024-05-17T08:30:00.000Z",
                "metadata": {"a": [1, 2.5, None]},
                "author": author,
                "categories": {"connect": [category]},
                "cover": file_id,
                "gallery": [file_id],
                "seo": {"metaTitle": "Hi", "keywords": [{"label": "a", "url": "/a"}]},
                "links": [{"label": "b", "url": "/b"}],
                "blocks": [
                    {"__component": "blocks.quote", "body": "Quoted", "author": author},
                    {"__component": "blocks.media", "file": file_id},
                    {"__component": "blocks.rich-text", "body": "Text"},
                ],
            }
        },
    )
    article_id = article["data"]["id"]
    await post(
        "/api/articles/{id}/localizations",
        {"locale": "fr", "title": "Bonjour"},
        f"/api/articles/{article_id}/localizations",
    )
    reads = [
        ("/api/articles", "/api/articles?populate=*&locale=all"),
        (
            "/api/articles/{id}",
            f"/api/articles/{article_id}?populate[author][populate]=*"
            "&populate[categories][count]=true&populate[blocks][populate]=*"
            "&populate[seo][populate]=*&populate[links]=true&populate[cover]=true"
            "&populate[gallery]=true&populate[localizations]=true",
        ),
        ("/api/articles", "/api/articles?fields[0]=title&pagination[start]=0&pagination[limit]=1"),
        ("/api/authors/{id}", f"/api/authors/{author}?populate[articles][populate]=*"),
        ("/api/categories", "/api/categories?populate[articles][fields][0]=title"),
        ("/api/upload/files", "/api/upload/files"),
        ("/api/upload/files/{id}", f"/api/upload/files/{file_id}"),
        ("/api/i18n/locales", "/api/i18n/locales"),
        ("/api/users-permissions/roles", "/api/users-permissions/roles"),
        ("/api/users-permissions/roles/{id}", "/api/users-permissions/roles/1"),
        ("/api/users-permissions/permissions", "/api/users-permissions/permissions"),
    ]
    for path, url in reads:
        response = await client.get(url, headers=admin)
        assert response.status_code == 200, f"{url}: {response.text}"
        _check(document, path, "get", response)
    global_ = await client.put(
        "/api/global?populate=*",
        json={"data": {"siteName": "Blog", "favicon": file_id, "defaultSeo": {"metaTitle": "B"}}},
        headers=admin,
    )
    _check(document, "/api/global", "put", global_)


async def test_users_and_errors_match_the_document(client, admin, document):
    registered = await client.post(
        "/api/auth/local/register",
        json={"username": "ann", "email": "ann@example.com", "password": "a good secret"},
    )
    _check(document, "/api/auth/local/register", "post", registered)
    jwt = {"Authorization": f"Bearer {registered.json()['jwt']}"}
    login = await client.post(
        "/api/auth/local", json={"identifier": "ann", "password": "a good secret"}
    )
    _check(document, "/api/auth/local", "post", login)
    _check(document, "/api/users/me", "get", await client.get("/api/users/me", headers=jwt))
    users = await client.get("/api/users?populate=role", headers=admin)
    _check(document, "/api/users", "get", users)
    count = await client.get("/api/users/count", headers=admin)
    _check(document, "/api/users/count", "get", count)
    for path, method, url, headers in [
        ("/api/articles", "get", "/api/articles?filters[title][$bogus]=1", admin),
        ("/api/articles/{id}", "get", "/api/articles/999", admin),
        ("/api/articles", "get", "/api/articles", {}),
        ("/api/articles", "get", "/api/articles", {"Authorization": "Bearer nope"}),
        ("/api/auth/local", "post", "/api/auth/local", {}),
    ]:
        response = await client.request(method, url, headers=headers)
        assert response.status_code >= 400
        _check(document, path, method, response)
