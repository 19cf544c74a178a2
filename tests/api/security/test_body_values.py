"""Body values that used to answer 500 — one of them after committing the entry — are refused
with 400 ValidationError before anything is written."""

from __future__ import annotations

import json

import pytest

from tests.api.graphql.conftest import gql

#: The documented limit (``values.MAX_JSON_DEPTH``).
MAX_JSON_DEPTH = 100


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _field_error(response, path: list[str], message: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["name"] == "ValidationError"
    assert {"path": path, "message": message, "name": "ValidationError"} in error["details"][
        "errors"
    ]


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 300, 1000])
async def test_json_nested_too_deeply_is_refused_before_the_write(
    app, client, admin, unchanged, levels
):
    raw = f'{{"data": {{"title": "Deep one", "metadata": {_nested(levels)}}}}}'
    async with unchanged(app):
        response = await client.post(
            "/api/articles",
            content=raw,
            headers={**admin, "content-type": "application/json"},
        )
    assert response.status_code == 400, response.text
    if levels < 1000:
        _field_error(
            response,
            ["metadata"],
            f"metadata must not be nested more than {MAX_JSON_DEPTH} levels deep",
        )
    # Before, the 300-level entry was committed and then every list answered 500.
    assert (await client.get("/api/articles", headers=admin)).status_code == 200


async def test_json_nested_too_deeply_in_an_update(app, client, admin, unchanged):
    created = await client.post("/api/articles", json={"data": {"title": "Shallow"}}, headers=admin)
    entry = created.json()["data"]["id"]
    deep = json.loads(_nested(300))
    async with unchanged(app):
        updated = await client.put(
            f"/api/articles/{entry}", json={"data": {"metadata": {"a": deep}}}, headers=admin
        )
    _field_error(
        updated, ["metadata"], f"metadata must not be nested more than {MAX_JSON_DEPTH} levels deep"
    )


async def test_graphql_json_nested_too_deeply_is_bad_user_input(app, client, unchanged):
    mutation = (
        'mutation($m: JSON) { createArticle(data: {title: "Deep one", metadata: $m})'
        " { data { id } } }"
    )
    async with unchanged(app):
        body = await gql(client, mutation, {"m": json.loads(_nested(300))})
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_json_at_the_depth_limit_is_stored_and_read_back(client, admin):
    value = json.loads(_nested(MAX_JSON_DEPTH))
    created = await client.post(
        "/api/articles", json={"data": {"title": "Deep enough", "metadata": value}}, headers=admin
    )
    assert created.status_code == 200, created.text
    listed = await client.get("/api/articles?populate=*", headers=admin)
    assert listed.status_code == 200
    assert listed.json()["data"][0]["attributes"]["metadata"] == value
    body = await gql(client, "{ articles { data { attributes { metadata } } } }")
    assert body["data"]["articles"]["data"][0]["attributes"]["metadata"] == value


@pytest.mark.parametrize(
    ("price", "message"),
    [
        (1e300, "price is out of range"),
        (1e30, "price is out of range"),
        ("1e30", "price is out of range"),
        (99999999.995, "price is out of range"),  # rounds to 100000000.00
        (
            "1e400",
            "price must be a `number` type, but the final value was: `NaN`"
            ' (cast from the value `"1e400"`).',
        ),
    ],
)
async def test_a_decimal_overflow_in_a_body_is_a_validation_error(
    app, client, admin, unchanged, price, message
):
    async with unchanged(app):
        response = await client.post(
            "/api/articles", json={"data": {"title": "Costly", "price": price}}, headers=admin
        )
    _field_error(response, ["price"], message)


async def test_the_largest_decimal_still_fits(client, admin):
    response = await client.post(
        "/api/articles", json={"data": {"title": "Costly", "price": 99999999.99}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["attributes"]["price"] == 99999999.99


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/api/auth/local/register",
            {"username": "a\x00b", "email": "ab@example.com", "password": "pass 1234"},
            "username",
        ),
        (
            "/api/auth/local/register",
            {"username": "ab", "email": "ab@example.com\x00", "password": "pass 1234"},
            "email",
        ),
        ("/api/auth/local", {"identifier": "a\x00b", "password": "pass 1234"}, "identifier"),
    ],
)
async def test_nul_in_a_users_body_is_a_validation_error(app, client, unchanged, path, body, field):
    async with unchanged(app):
        response = await client.post(path, json=body)
    _field_error(response, [field], f"{field} must not contain NUL characters")


@pytest.mark.parametrize(
    "info",
    [
        {"name": "a\x00b"},
        {"caption": "a\x00b"},
        {"alternativeText": "a\x00b"},
        {"caption": "x" * 256},
        {"name": {"not": "text"}},
    ],
)
async def test_a_bad_file_info_text_is_refused_before_storing(app, client, admin, unchanged, info):
    async with unchanged(app):
        response = await client.post(
            "/api/upload",
            files=[("files", ("a.txt", b"hello", "text/plain"))],
            data={"fileInfo": json.dumps(info)},
            headers=admin,
        )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["name"] == "ValidationError"
