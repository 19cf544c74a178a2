"""A biginteger outside PostgreSQL's ``bigint`` (-2**63 … 2**63-1) is a 400, never another value.

orjson reads a JSON integer beyond 64 bits as the nearest double: -9223372036854775809 arrived
as -2**63.0, was in range, and was stored as -9223372036854775808 (200, the wrong number).
"""

from __future__ import annotations

import json

import pytest

from tests.api.graphql.conftest import ADMIN, gql

LOWEST, HIGHEST = -(2**63), 2**63 - 1


def _raw(views: str) -> str:
    return f'{{"data": {{"title": "Counted", "views": {views}}}}}'


@pytest.mark.parametrize(
    "views",
    [
        "-9223372036854775809",  # JSON number: read as the double -2**63
        "-9223372036854777856",
        "-1e19",
        "9223372036854775808",
        "18446744073709551616",
        '"-9223372036854775809"',  # the REST string form
        '"9223372036854775808"',
    ],
)
async def test_a_biginteger_beyond_64_bits_is_a_validation_error(
    app, client, admin, unchanged, views
):
    created = await client.post(
        "/api/articles", json={"data": {"title": "Counted", "views": "5"}}, headers=admin
    )
    entry = created.json()["data"]["id"]
    json_headers = {**admin, "content-type": "application/json"}
    async with unchanged(app):
        posted = await client.post("/api/articles", content=_raw(views), headers=json_headers)
        put = await client.put(f"/api/articles/{entry}", content=_raw(views), headers=json_headers)
    for response in (posted, put):
        assert response.status_code == 400, response.text
        assert response.json()["error"]["details"]["errors"] == [
            {"path": ["views"], "message": "views is out of range", "name": "ValidationError"}
        ]


@pytest.mark.parametrize("views", [LOWEST, HIGHEST, str(LOWEST), str(HIGHEST)])
async def test_the_bigint_extremes_are_stored_exactly(client, admin, views):
    response = await client.post(
        "/api/articles", json={"data": {"title": "Counted", "views": views}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["attributes"]["views"] == str(views)


async def test_graphql_long_beyond_64_bits_is_bad_user_input(app, client, unchanged):
    mutation = (
        'mutation($v: Long) { createArticle(data: {title: "Counted", views: $v}) { data { id } } }'
    )
    literal = 'mutation { createArticle(data: {title: "Counted", views: %s}) { data { id } } }'
    # Written by hand: json.dumps would send the exact integer, orjson reads it as a double.
    payload = '{"query": ' + json.dumps(mutation) + ', "variables": {"v": -9223372036854775809}}'
    async with unchanged(app):
        from_variable = await client.post(
            "/graphql",
            content=payload,
            headers={**ADMIN, "content-type": "application/json"},
        )
        from_literal = await gql(client, literal % "-9223372036854775809")
    assert from_variable.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert from_literal["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_biginteger_filter_beyond_64_bits_is_a_validation_error(client, admin):
    response = await client.get(
        "/api/articles?filters[views][$lt]=-9223372036854775809", headers=admin
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Invalid format, expected an integer"
