"""Ids a client sends that no id column can hold (ids are PostgreSQL ``integer``: at most
2**31 - 1; SQLite stops at 2**63 - 1) name no entry: a path answers 404, a body or a filter 400,
and nothing reaches the database driver (asyncpg refused to bind them: 500)."""

from __future__ import annotations

import pytest

from tests.api.graphql.conftest import gql

TOO_LARGE = [2**31, 3_000_000_000, 2**63, 2**64]


@pytest.fixture
async def article(client, admin) -> int:
    created = await client.post("/api/articles", json={"data": {"title": "Anchor"}}, headers=admin)
    assert created.status_code == 200, created.text
    return int(created.json()["data"]["id"])


@pytest.mark.parametrize("big", TOO_LARGE)
@pytest.mark.parametrize(
    ("method", "template"),
    [
        ("GET", "/api/articles/{}"),
        ("PUT", "/api/articles/{}"),
        ("DELETE", "/api/articles/{}"),
        ("POST", "/api/articles/{}/localizations"),
        ("GET", "/api/upload/files/{}"),
        ("DELETE", "/api/upload/files/{}"),
        ("GET", "/api/users/{}"),
        ("PUT", "/api/users/{}"),
        ("GET", "/api/users-permissions/roles/{}"),
    ],
)
async def test_a_path_id_beyond_the_id_columns_is_not_found(
    app, client, admin, unchanged, article, big, method, template
):
    body = {"data": {"title": "Changed"}} if template.startswith("/api/articles") else {}
    if template.endswith("localizations"):
        body = {"title": "Traduit", "locale": "fr"}
    async with unchanged(app):
        response = await client.request(
            method, template.format(big), json=body if method != "GET" else None, headers=admin
        )
    assert response.status_code == 404, response.text
    assert response.json()["error"]["name"] == "NotFoundError"


def _relation_bodies(big: int) -> list[tuple[str, dict]]:
    return [
        ("author", {"author": big}),
        ("author", {"author": str(big)}),
        ("author.connect", {"author": {"connect": [big]}}),
        ("author.connect", {"author": {"connect": [{"id": big}]}}),
        ("categories", {"categories": [big]}),
        ("categories.set", {"categories": {"set": [{"id": big}]}}),
        ("categories.disconnect", {"categories": {"disconnect": [big]}}),
        ("cover", {"cover": big}),
        ("gallery", {"gallery": [big]}),
        ("seo.id", {"seo": {"id": big, "metaTitle": "Meta"}}),
    ]


@pytest.mark.parametrize("big", TOO_LARGE)
async def test_an_id_beyond_the_id_columns_in_a_body_is_a_validation_error(
    app, client, admin, unchanged, article, big
):
    for name, fields in _relation_bodies(big):
        for method, path in (("POST", "/api/articles"), ("PUT", f"/api/articles/{article}")):
            async with unchanged(app):
                response = await client.request(
                    method, path, json={"data": {"title": "Linked", **fields}}, headers=admin
                )
            assert response.status_code == 400, (name, method, response.text)
            error = response.json()["error"]
            assert error["name"] == "ValidationError"
            assert error["details"]["errors"][0]["path"][0] == name.split(".")[0]


async def test_a_position_anchor_beyond_the_id_columns_is_a_validation_error(
    app, client, admin, unchanged, article
):
    body = {"categories": {"connect": [{"id": 1, "position": {"before": 2**63}}]}}
    async with unchanged(app):
        response = await client.put(f"/api/articles/{article}", json={"data": body}, headers=admin)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["message"] == "position.before must be an entry id"


@pytest.mark.parametrize("big", [3_000_000_000, 2**63])
async def test_an_admin_created_user_with_a_role_id_beyond_the_columns(
    app, client, admin, unchanged, big
):
    body = {"username": "someone", "email": "someone@example.com", "password": "pass 1234"}
    async with unchanged(app):
        response = await client.post("/api/users", json={**body, "role": big}, headers=admin)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["name"] == "ValidationError"


@pytest.mark.parametrize("big", ["3000000000", "9223372036854775808", "99999999999999999999"])
async def test_an_upload_ref_id_beyond_the_id_columns_is_refused_before_storing(
    app, client, admin, unchanged, article, big
):
    async with unchanged(app):
        response = await client.post(
            "/api/upload",
            files=[("files", ("a.txt", b"hello", "text/plain"))],
            data={"ref": "api::article.article", "refId": big, "field": "cover"},
            headers=admin,
        )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["message"] == "refId must be an entry id"


@pytest.mark.parametrize(
    "query",
    [
        "filters[id][$eq]=9223372036854775808",
        "filters[id][$in][0]=3000000000",
        "filters[author][$eq]=9223372036854775808",
        "filters[author][id][$gt]=3000000000",
    ],
)
async def test_an_id_filter_beyond_the_id_columns_is_a_validation_error(
    client, admin, article, query
):
    response = await client.get(f"/api/articles?{query}", headers=admin)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == {
        "status": 400,
        "name": "ValidationError",
        "message": "Invalid format, expected an integer",
        "details": {},
    }


async def test_graphql_ids_beyond_the_id_columns(app, client, unchanged, article):
    found = await gql(client, '{ article(id: "3000000000") { data { id } } }')
    assert found == {"data": {"article": {"data": None}}}
    async with unchanged(app):
        updated = await gql(
            client,
            'mutation { updateArticle(id: "3000000000", data: {title: "New"}) { data { id } } }',
        )
        created = await gql(
            client,
            'mutation { createArticle(data: {title: "New one", author: "3000000000"}) '
            "{ data { id } } }",
        )
    assert updated["data"]["updateArticle"]["data"] is None
    assert created["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
