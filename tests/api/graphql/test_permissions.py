"""The same grants give the same visibility in REST and GraphQL (one ``may()``)."""

from __future__ import annotations

import pytest

from tests.api.graphql.conftest import gql
from tests.api.users.test_permissions import _role, _set

LIST = """{ articles { data { id attributes { title
  author { data { attributes { name } } }
  categories { data { attributes { name } } } } } } }"""


@pytest.mark.parametrize("protocol", ["rest", "graphql"])
async def test_public_role_without_find_is_refused(blog, client, protocol):
    if protocol == "rest":
        assert (await client.get("/api/articles")).status_code == 403
        return
    body = await gql(client, LIST, headers=None)
    assert body == {
        "errors": [
            {
                "message": "Forbidden access",
                "extensions": {
                    "error": {
                        "name": "ForbiddenError",
                        "message": "Forbidden access",
                        "details": {},
                    },
                    "code": "FORBIDDEN",
                },
            }
        ],
        "data": {"articles": None},
    }


async def test_same_grants_same_visibility_in_both_protocols(blog, client, admin):
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::article", "article", "find", True)
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::category", "category", "find", True)
    # REST: the author relation (type not findable) is left out of populate=*
    rest = (await client.get("/api/articles?populate=*")).json()["data"]
    assert [e["id"] for e in rest] == [1, 2]
    assert "author" not in rest[0]["attributes"]
    assert rest[0]["attributes"]["categories"]["data"][0]["attributes"]["name"] == "Tech"
    # GraphQL: the same entries; the author field answers FORBIDDEN once per row (as Strapi)
    body = await gql(client, LIST, headers=None)
    data = body["data"]["articles"]["data"]
    assert [e["id"] for e in data] == ["1", "2"]
    assert [e["attributes"]["author"] for e in data] == [None, None]
    assert [c["attributes"]["name"] for c in data[0]["attributes"]["categories"]["data"]] == [
        "Tech",
        "Life",
    ]
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN", "FORBIDDEN"]
    # filtering through the unreadable type is refused in both protocols
    # (docs/differences-from-strapi.md)
    assert (await client.get("/api/articles?filters[author][name][$eq]=Bob")).status_code == 400
    refused = await gql(
        client, '{ articles(filters: {author: {name: {eq: "Bob"}}}) { data { id } } }', headers=None
    )
    assert refused["data"] == {"articles": None}
    assert refused["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    # findOne is its own action, in both protocols
    assert (await client.get("/api/articles/1")).status_code == 403
    one = await gql(client, "{ article(id: 1) { data { id } } }", headers=None)
    assert one["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_api_tokens_in_graphql(blog, client, make_token):
    read_only = await make_token("read-only")
    body = await gql(
        client, "{ articles { data { id } } authors { data { id } } }", headers=read_only
    )
    assert "errors" not in body
    custom = await make_token("custom", ("api::article.article.find",))
    body = await gql(client, LIST, headers=custom)
    assert [e["attributes"]["author"] for e in body["data"]["articles"]["data"]] == [None, None]
    assert len(body["errors"]) == 4  # author and categories, for each of the two rows


async def test_bad_token_is_http_401_with_the_rest_body(app, client):
    response = await client.post(
        "/graphql",
        json={"query": "{ articles { data { id } } }"},
        headers={"Authorization": "Bearer not-a-token"},
    )
    assert response.status_code == 401
    assert response.json() == {
        "data": None,
        "error": {
            "status": 401,
            "name": "UnauthorizedError",
            "message": "Missing or invalid credentials",
            "details": {},
        },
    }
