"""The auth gate: public role, unknown tokens, read-only, full-access and custom API tokens."""

from __future__ import annotations

import pytest

FORBIDDEN = {
    "data": None,
    "error": {"status": 403, "name": "ForbiddenError", "message": "Forbidden", "details": {}},
}
UNAUTHORIZED = {
    "data": None,
    "error": {
        "status": 401,
        "name": "UnauthorizedError",
        "message": "Missing or invalid credentials",
        "details": {},
    },
}


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}]
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/articles"),
        ("GET", "/api/articles/1"),
        ("POST", "/api/articles"),
        ("PUT", "/api/articles/1"),
        ("DELETE", "/api/articles/1"),
        ("GET", "/api/global"),
    ],
)
async def test_request_without_credentials_is_the_public_role_and_forbidden(
    client, headers, method, path
):
    response = await client.request(method, path, json={"data": {"title": "abc"}}, headers=headers)
    assert response.status_code == 403
    assert response.json() == FORBIDDEN


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
async def test_unknown_token_is_401(client, scheme):
    response = await client.get("/api/articles", headers={"Authorization": f"{scheme} not-a-token"})
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED


async def test_read_only_token_reads_but_cannot_write(client, admin, make_token):
    await client.post("/api/articles", json={"data": {"title": "abc"}}, headers=admin)
    read_only = await make_token("read-only")
    assert (await client.get("/api/articles", headers=read_only)).status_code == 200
    assert (await client.get("/api/articles/1", headers=read_only)).status_code == 200
    assert (await client.get("/api/articles/999", headers=read_only)).status_code == 404
    for method, path in (
        ("POST", "/api/articles"),
        ("PUT", "/api/articles/1"),
        ("DELETE", "/api/articles/1"),
        ("DELETE", "/api/articles/999"),
    ):
        response = await client.request(
            method, path, json={"data": {"title": "abc"}}, headers=read_only
        )
        assert response.status_code == 403
        assert response.json() == FORBIDDEN
    assert (await client.get("/api/articles", headers=admin)).json()["meta"]["pagination"][
        "total"
    ] == 1


async def test_full_access_token_may_do_everything(client, make_token):
    full = await make_token("full-access")
    created = await client.post("/api/articles", json={"data": {"title": "abc"}}, headers=full)
    assert created.status_code == 200
    assert (
        await client.put("/api/articles/1", json={"data": {"title": "abcd"}}, headers=full)
    ).status_code == 200
    assert (await client.delete("/api/articles/1", headers=full)).status_code == 200


async def test_custom_token_may_do_only_its_actions(client, admin, make_token):
    await client.post("/api/articles", json={"data": {"title": "abc"}}, headers=admin)
    custom = await make_token(
        "custom", ("api::article.article.find", "api::category.category.create")
    )
    assert (await client.get("/api/articles", headers=custom)).status_code == 200
    assert (await client.get("/api/articles/1", headers=custom)).status_code == 403
    assert (await client.get("/api/authors", headers=custom)).status_code == 403
    created = await client.post(
        "/api/categories", json={"data": {"name": "n", "slug": "n"}}, headers=custom
    )
    assert created.status_code == 200


async def test_token_secrets_are_stored_only_as_hashes(app, make_token):
    from contentapi.db.system import api_tokens

    headers = await make_token("read-only")
    secret = headers["Authorization"].split()[1]
    async with app.runtime.database.read() as conn:
        keys = [row.access_key for row in await conn.execute(api_tokens.select())]
    assert secret not in keys
    assert all(len(key) == 128 for key in keys)  # HMAC-SHA512, hex


async def test_expired_token_is_401(app, client):
    from datetime import timedelta

    from contentapi.auth.tokens import create_token

    runtime = app.runtime
    async with runtime.database.write() as conn:
        token = await create_token(
            conn,
            runtime.token_hasher,
            name="short",
            token_type="full-access",
            lifespan=timedelta(microseconds=1),
        )
    response = await client.get(
        "/api/articles", headers={"Authorization": f"Bearer {token.secret}"}
    )
    assert response.status_code == 401
