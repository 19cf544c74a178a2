"""Transport, limits and error shapes: GET, batching, parse/validation failures, depthLimit,
amountLimit, the playground and introspection by environment."""

from __future__ import annotations

import json

from tests.api.graphql.conftest import ADMIN, gql

DEEP = (
    "query Deep { articles { data { attributes { author { data { attributes { articles { data "
    "{ attributes { author { data { attributes { articles { data { attributes { author { data "
    "{ id } } } } } } } } } } } } } } } } } }"
)


async def test_get_queries_and_get_mutations(blog, client):
    response = await client.get(
        "/graphql",
        params={
            "query": "query($n: Int) { articles(pagination: {limit: $n}) { data { id } } }",
            "variables": json.dumps({"n": 1}),
        },
        headers={**ADMIN, "content-type": "application/json"},
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"articles": {"data": [{"id": "1"}]}}}
    mutation = await client.get(
        "/graphql",
        params={"query": "mutation { deleteArticle(id: 1) { data { id } } }"},
        headers=ADMIN,
    )
    assert mutation.status_code == 405
    assert mutation.json()["errors"][0]["message"] == "GET supports only query operation"
    assert (await client.get("/api/articles/1", headers=ADMIN)).status_code == 200


async def test_batched_operations(blog, client):
    response = await client.post(
        "/graphql",
        json=[
            {"query": "{ articles { data { id } } }"},
            {
                "query": "query One($id: ID) { author(id: $id) { data { id } } }",
                "variables": {"id": 2},
                "operationName": "One",
                "extensions": {"persistedQuery": None},
            },
        ],
        headers=ADMIN,
    )
    assert response.status_code == 200
    assert response.json() == [
        {"data": {"articles": {"data": [{"id": "1"}, {"id": "2"}]}}},
        {"data": {"author": {"data": {"id": "2"}}}},
    ]


async def test_parse_and_validation_failures_are_400_without_data(app, client):
    parse = await gql(client, "{ articles { data { id ", status=400)
    assert "data" not in parse
    assert parse["errors"][0]["extensions"] == {"code": "GRAPHQL_PARSE_FAILED"}
    invalid = await gql(client, "{ nope }", status=400)
    assert invalid["errors"][0]["extensions"] == {"code": "GRAPHQL_VALIDATION_FAILED"}
    assert invalid["errors"][0]["locations"] == [{"line": 1, "column": 3}]
    variables = await gql(
        client,
        "query($n: Int) { articles(pagination: {limit: $n}) { data { id } } }",
        {"n": "many"},
        status=400,
    )
    assert variables["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    empty = await client.post("/graphql", json={}, headers=ADMIN)
    assert empty.status_code == 400
    broken = await client.post(
        "/graphql", content=b"{not json", headers={**ADMIN, "content-type": "application/json"}
    )
    assert broken.status_code == 400 and "errors" in broken.json()


async def test_depth_limit_with_strapis_message(app, client):
    body = await gql(client, DEEP, status=400)
    assert body["errors"][0]["message"] == "'Deep' exceeds maximum operation depth of 10"
    assert body["errors"][0]["locations"] == [{"line": 1, "column": 121}]
    anonymous = await gql(client, DEEP.replace("query Deep ", ""), status=400)
    assert anonymous["errors"][0]["message"] == "'' exceeds maximum operation depth of 10"


async def test_amount_limit_applies_to_lists_and_nested_lists(start_app):
    handle = await start_app(graphql_amount_limit=2)
    for number in range(4):
        await handle.runtime.entries.create(
            "api::category.category", {"name": f"c{number}", "slug": f"c{number}"}
        )
    await handle.runtime.entries.create(
        "api::article.article", {"title": "Many", "categories": [1, 2, 3, 4]}
    )
    body = await gql(
        handle.client,
        "{ categories(pagination: {limit: -1}) { data { id } "
        "meta { pagination { pageSize pageCount } } } "
        "articles { data { attributes { "
        "categories(pagination: {pageSize: 50}) { data { id } } } } } }",
    )
    assert body["data"]["categories"]["data"] == [{"id": "1"}, {"id": "2"}]
    assert body["data"]["categories"]["meta"]["pagination"] == {"pageSize": 2, "pageCount": 2}
    nested = body["data"]["articles"]["data"][0]["attributes"]["categories"]["data"]
    assert nested == [{"id": "1"}, {"id": "2"}]


async def test_playground_and_introspection_by_environment(start_app):
    development = await start_app()
    page = await development.client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    production = await start_app(env="production")
    hidden = await production.client.get("/graphql", headers={"accept": "text/html"})
    assert hidden.status_code == 400  # no playground: a GET without a query
    introspection = await gql(production.client, "{ __schema { types { name } } }", status=400)
    assert introspection["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert "introspection is not allowed" in introspection["errors"][0]["message"]
    always = await start_app(env="production", graphql_playground_always=True)
    shown = await always.client.get("/graphql", headers={"accept": "text/html"})
    assert shown.status_code == 200


async def test_disabled_plugin_and_other_endpoint(start_app):
    disabled = await start_app(graphql_enabled=False)
    assert (
        await disabled.client.post("/graphql", json={"query": "{ me { id } }"})
    ).status_code == 404
    moved = await start_app(graphql_endpoint="/api/graphql")
    old = await moved.client.post("/graphql", json={"query": "{ articles { data { id } } }"})
    assert old.status_code == 404
    response = await moved.client.post(
        "/api/graphql", json={"query": "{ articles { data { id } } }"}, headers=ADMIN
    )
    assert response.status_code == 200 and response.json() == {"data": {"articles": {"data": []}}}


async def test_unexpected_failures_leak_nothing(blog, client, monkeypatch):
    async def broken(*args, **kwargs):
        raise RuntimeError("connection string postgres://secret@db")

    monkeypatch.setattr(blog.runtime.entries, "find_many", broken)
    body = await gql(client, "{ articles { data { id } } }")
    assert body == {
        "errors": [
            {"message": "Internal Server Error", "extensions": {"code": "INTERNAL_SERVER_ERROR"}}
        ],
        "data": {"articles": None},
    }
