"""Errors in the contract's shape for every route; nothing a client sends produces a 500."""

from __future__ import annotations

import pytest

NOT_FOUND = {
    "data": None,
    "error": {"status": 404, "name": "NotFoundError", "message": "Not Found", "details": {}},
}
MISSING_DATA = 'Missing "data" payload in the request body'


@pytest.mark.parametrize("path", ["/api/nope", "/api/nope/1", "/api/", "/nope", "/api/globals"])
async def test_unknown_route_is_404_in_error_shape(client, path):
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/api/articles", {"GET", "POST"}),
        ("PUT", "/api/articles", {"GET", "POST"}),
        ("POST", "/api/articles/1", {"GET", "PUT", "DELETE"}),
        ("PATCH", "/api/articles/1", {"GET", "PUT", "DELETE"}),
        ("POST", "/api/global", {"GET", "PUT", "DELETE"}),
    ],
)
async def test_wrong_method_is_405_json_with_allow_header(client, method, path, allowed):
    response = await client.request(method, path)
    assert response.status_code == 405
    assert response.json()["error"]["name"] == "MethodNotAllowedError"
    assert response.json()["data"] is None
    assert allowed <= {m.strip() for m in response.headers["allow"].split(",")}


@pytest.mark.parametrize(
    "path",
    [
        "/api/articles/999999",
        "/api/articles/abc",
        "/api/articles/1.5",
        "/api/articles/-1",
        "/api/articles/99999999999999999999999",
    ],
)
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_unknown_or_malformed_id_is_404(client, admin, path, method):
    response = await client.request(method, path, json={"data": {"title": "abc"}}, headers=admin)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{}",
        b'{"data": "x"}',
        b'{"data": 1}',
        b'{"data": null}',
        b'{"data": true}',
        b"[1, 2]",
        b'"data"',
        b'{"data": [1]}',
        b"not json at all",
        b'{"data": {"title": "abc"',
        b"\xff\xfe\x00",
    ],
)
@pytest.mark.parametrize("method", ["POST", "PUT"])
async def test_body_without_data_object_is_400(client, admin, content, method):
    await client.post("/api/articles", json={"data": {"title": "exists"}}, headers=admin)
    path = "/api/articles" if method == "POST" else "/api/articles/1"
    response = await client.request(
        method, path, content=content, headers={**admin, "content-type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["name"] == "ValidationError"
    assert error["message"] in (MISSING_DATA, "Invalid JSON in the request body")


async def test_oversized_body_is_413(client, admin):
    big = b'{"data": {"title": "' + b"x" * (1024 * 1024 + 10) + b'"}}'
    response = await client.post(
        "/api/articles", content=big, headers={**admin, "content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["error"]["name"] == "PayloadTooLargeError"


async def test_cors_preflight_is_answered(client):
    response = await client.options(
        "/api/articles",
        headers={"Origin": "http://example.com", "Access-Control-Request-Method": "GET"},
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] in ("*", "http://example.com")


async def test_single_type_lifecycle(client, admin):
    assert (await client.get("/api/global", headers=admin)).json() == NOT_FOUND
    missing = await client.put(
        "/api/global", json={"data": {"siteDescription": "d"}}, headers=admin
    )
    assert missing.status_code == 400
    assert missing.json()["error"]["details"]["errors"][0]["path"] == ["siteName"]
    created = await client.put("/api/global", json={"data": {"siteName": "My site"}}, headers=admin)
    assert created.status_code == 200
    assert created.json()["data"]["id"] == 1
    assert created.json()["data"]["attributes"]["siteName"] == "My site"
    assert created.json()["meta"] == {}
    updated = await client.put(
        "/api/global", json={"data": {"siteDescription": "d"}}, headers=admin
    )
    assert updated.json()["data"]["attributes"]["siteName"] == "My site"
    assert updated.json()["data"]["attributes"]["siteDescription"] == "d"
    assert (await client.get("/api/global", headers=admin)).json() == updated.json()
    deleted = await client.delete("/api/global", headers=admin)
    assert deleted.json() == updated.json()
    assert (await client.get("/api/global", headers=admin)).status_code == 404
    assert (await client.delete("/api/global", headers=admin)).status_code == 404
