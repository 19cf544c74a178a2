"""HTTP validators and ``Cache-Control`` on GraphQL (``http/conditional.py``): a query over
``GET`` without errors gets an ETag and a 304; ``POST``, mutations, batches and answers with
errors are ``no-store``."""

from __future__ import annotations

import pytest
from xxhash import xxh3_128_hexdigest

from tests.api.graphql.conftest import ADMIN
from tests.api.users.test_permissions import _role, _set

QUERY = {"query": "{ articles { data { id attributes { title } } } }"}
VARY = "Authorization, Origin"


def _tag(body: bytes) -> str:
    return '"' + xxh3_128_hexdigest(body) + '"'


@pytest.mark.parametrize("who", ["admin token", "public"])
async def test_a_get_query_carries_an_etag_and_revalidates_to_304(blog, client, admin, who):
    if who == "public":
        public = await _role(client, admin, "public")
        await _set(client, admin, public, "api::article", "article", "find", True)
    headers = ADMIN if who == "admin token" else {}
    control = "private, no-cache" if who == "admin token" else "public, no-cache"
    first = await client.get("/graphql", params=QUERY, headers=headers)
    assert first.status_code == 200
    assert "errors" not in first.json()
    assert first.headers["etag"] == _tag(first.content)
    assert first.headers["cache-control"] == control
    assert first.headers["vary"] == VARY
    again = await client.get(
        "/graphql", params=QUERY, headers={**headers, "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["cache-control"] == control


async def test_the_etag_follows_the_content(blog, client):
    first = await client.get("/graphql", params=QUERY, headers=ADMIN)
    changed = await client.put(
        "/api/articles/1", json={"data": {"title": "Changed title"}}, headers=ADMIN
    )
    assert changed.status_code == 200
    again = await client.get(
        "/graphql", params=QUERY, headers={**ADMIN, "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 200
    assert again.headers["etag"] == _tag(again.content) != first.headers["etag"]


async def test_head_of_a_get_query_has_no_body(blog, client):
    got = await client.get("/graphql", params=QUERY, headers=ADMIN)
    head = await client.head("/graphql", params=QUERY, headers=ADMIN)
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["etag"] == got.headers["etag"]
    assert head.headers["content-length"] == str(len(got.content))


async def test_post_queries_are_not_cached(blog, client):
    response = await client.post("/graphql", json=QUERY, headers=ADMIN)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers
    batch = await client.post("/graphql", json=[QUERY, QUERY], headers=ADMIN)
    assert batch.status_code == 200
    assert batch.headers["cache-control"] == "no-store"
    assert "etag" not in batch.headers


async def test_mutations_are_no_store_over_post_and_refused_over_get(blog, client):
    mutation = 'mutation { updateArticle(id: 1, data: {title: "Renamed"}) { data { id } } }'
    posted = await client.post("/graphql", json={"query": mutation}, headers=ADMIN)
    assert posted.status_code == 200 and "errors" not in posted.json()
    assert posted.headers["cache-control"] == "no-store"
    assert "etag" not in posted.headers
    got = await client.get("/graphql", params={"query": mutation}, headers=ADMIN)
    assert got.status_code == 405
    assert got.headers["cache-control"] == "no-store"
    assert "etag" not in got.headers


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"query": "{ nosuch }"}, 400),  # validation
        ({"query": "{ articles { data { id }"}, 400),  # syntax
        ({"query": QUERY["query"], "variables": "{not json"}, 400),
        ({}, 400),  # no query
    ],
)
async def test_get_failures_are_no_store(blog, client, params, status):
    response = await client.get("/graphql", params=params, headers=ADMIN)
    assert response.status_code == status
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers


async def test_a_get_answer_with_errors_is_no_store(blog, client):
    """The public role may not find articles: HTTP 200 with ``errors``, which nobody keeps."""
    response = await client.get("/graphql", params=QUERY)
    assert response.status_code == 200
    assert response.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers
