"""The cost budget (``CONTENTAPI_GRAPHQL_COST_LIMIT``), the batch limit
(``CONTENTAPI_GRAPHQL_BATCH_LIMIT``) and the token limit (``CONTENTAPI_GRAPHQL_TOKEN_LIMIT``):
a request over any is a 400 before any statement runs — and over the budget or the tokens,
before validation; the cost is reported when asked."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.graphql.conftest import ADMIN, gql

ARTICLE = (
    "data { id attributes { title author { data { id attributes { name } } } "
    "categories { data { id attributes { name } } } } }"
)
#: 500 aliases of a 100-article page with its author and categories (issue 29's request):
#: 26,000 tokens, over the token limit
ISSUE_REQUEST = (
    "{"
    + " ".join(f"a{n}: articles(pagination: {{limit: 100}}) {{ {ARTICLE} }}" for n in range(500))
    + "}"
)
#: the same with 150 aliases: 7,800 tokens, within the token limit, over the budget
ALIASES = (
    "{"
    + " ".join(f"a{n}: articles(pagination: {{limit: 100}}) {{ {ARTICLE} }}" for n in range(150))
    + "}"
)

COSTLY = {
    "aliases": ({"query": ALIASES}),
    "aliases through fragments": {
        "query": "{"
        + " ".join(f"a{n}: articles(pagination: {{limit: 100}}) {{ ...Page }}" for n in range(50))
        + "} fragment Page on ArticleEntityResponseCollection { data { ...Entry } } "
        "fragment Entry on ArticleEntity { id attributes { title "
        "categories { data { id attributes { name } } } } }"
    },
    "limits as variables": {
        "query": "query($n: Int) {"
        + " ".join(f"a{n}: articles(pagination: {{limit: $n}}) {{ {ARTICLE} }}" for n in range(150))
        + "}",
        "variables": {"n": 100},
    },
    "nested lists": {
        "query": "{ categories(pagination: {limit: 100}) { data { attributes { "
        "articles(pagination: {limit: 100}) { data { attributes { "
        "categories(pagination: {limit: 100}) { data { id } } } } } } } } }"
    },
    "many small roots": {
        "query": "{"
        + " ".join(
            f"a{n}: articles(pagination: {{limit: 1}}) {{ data {{ id }} }}" for n in range(200)
        )
        + "}"
    },
}


async def _statements_of(client, statements, payload: Any) -> tuple[Any, list[str]]:
    async with statements.recording() as recorded:
        response = await client.post("/graphql", json=payload, headers=ADMIN)
    content = [s for s in recorded if not s.startswith("BEGIN") and "strapi_api_tokens" not in s]
    return response, content


@pytest.mark.parametrize("name", list(COSTLY))
async def test_a_costly_operation_is_refused_before_any_statement(blog, client, statements, name):
    response, ran = await _statements_of(client, statements, COSTLY[name])
    assert response.status_code == 400, response.text
    assert ran == []
    [error] = response.json()["errors"]
    assert "data" not in response.json()
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["error"]["name"] == "ValidationError"
    details = error["extensions"]["error"]["details"]
    assert details["limit"] == 100_000
    assert details["requested"] > details["limit"]
    assert f"costs {details['requested']}, more than the limit of 100000" in error["message"]


async def test_the_issue_request_costs_what_its_lists_hold(blog, client, statements):
    response, _ = await _statements_of(client, statements, {"query": ALIASES})
    details = response.json()["errors"][0]["extensions"]["error"]["details"]
    # per article: id, attributes, title, author (data, id, attributes, name), categories
    # (data, 10 x (id, attributes, name)); per alias: articles and data
    per_article = 3 + 5 + 2 + 10 * 3
    assert details["values"] == 150 * (2 + 100 * per_article)
    assert details["reads"] == 150 * 3


async def test_a_costly_operation_is_refused_before_validation(blog, client, monkeypatch):
    """Validation grows with the document (a second for issue 29's request): the budget is
    read from the parsed document first; a document within it is validated once, then kept."""
    import contentapi.graphql.execute as execute

    validated: list[object] = []
    real = execute.validate
    monkeypatch.setattr(execute, "validate", lambda *a, **k: validated.append(a) or real(*a, **k))
    refused = await client.post("/graphql", json={"query": ALIASES}, headers=ADMIN)
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert validated == []
    for _ in range(2):
        await gql(client, "{ articles { data { id } } }")
    assert len(validated) == 1
    invalid = await client.post("/graphql", json={"query": "{ nope }"}, headers=ADMIN)
    assert invalid.json()["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_a_document_over_the_token_limit_is_refused_while_parsing(blog, client, statements):
    for query in (ISSUE_REQUEST, "{" + " ".join(f"t{n}: __typename" for n in range(5000)) + "}"):
        response, ran = await _statements_of(client, statements, {"query": query})
        assert response.status_code == 400
        assert ran == []
        [error] = response.json()["errors"]
        assert error["message"] == (
            "Syntax Error: Document contains more than 10000 tokens. Parsing aborted."
        )
        assert error["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"


async def test_the_token_limit_is_configurable(start_app):
    handle = await start_app(graphql_token_limit=0)
    over = "{" + " ".join(f"t{n}: __typename" for n in range(3334)) + "}"  # 10,004 tokens
    assert len((await gql(handle.client, over))["data"]) == 3334
    small = await start_app(graphql_token_limit=10)
    refused = await gql(small.client, "{ a: __typename b: __typename c: __typename }", status=400)
    assert "more than 10 tokens" in refused["errors"][0]["message"]


async def test_queries_within_the_budget_run(blog, client):
    body = await gql(client, "{ articles(pagination: {limit: 100}) { " + ARTICLE + " } }")
    assert len(body["data"]["articles"]["data"]) == 2


async def test_a_batch_of_more_operations_than_the_limit_is_refused(blog, client, statements):
    batch = [{"query": "{ articles { data { id } } }"}] * 11
    response, ran = await _statements_of(client, statements, batch)
    assert response.status_code == 400
    assert ran == []
    assert response.json() == {
        "errors": [
            {
                "message": "Too many operations in one batch: 11, at most 10.",
                "extensions": {"code": "BAD_REQUEST"},
            }
        ]
    }
    response, _ = await _statements_of(client, statements, batch[:10])
    assert response.status_code == 200
    assert len(response.json()) == 10


async def test_the_budget_applies_to_a_batch_as_a_whole(blog, client, statements):
    # each operation costs 40 x (1,000 + 102) = 44,080: alone within the budget, three not
    one = {
        "query": "{"
        + " ".join(
            f"a{n}: articles(pagination: {{limit: 100}}) {{ data {{ id }} }}" for n in range(40)
        )
        + "}"
    }
    assert (await client.post("/graphql", json=one, headers=ADMIN)).status_code == 200
    response, ran = await _statements_of(client, statements, [one, one, one])
    assert response.status_code == 400, response.text
    assert ran == []
    [error] = response.json()["errors"]
    assert error["message"].startswith("The batch of 3 operations costs 132240,")
    assert error["extensions"]["code"] == "BAD_USER_INPUT"


async def test_the_cost_is_reported_when_asked(blog, client):
    query = "{ articles { data { id } } }"
    plain = await client.post("/graphql", json={"query": query}, headers=ADMIN)
    assert "extensions" not in plain.json()
    asked = await client.post(
        "/graphql", json={"query": query, "extensions": {"cost": True}}, headers=ADMIN
    )
    assert asked.status_code == 200
    assert asked.json()["extensions"] == {
        "cost": {"requested": 1012, "values": 12, "reads": 1, "limit": 100_000}
    }
    assert asked.json()["data"]["articles"]["data"] == [{"id": "1"}, {"id": "2"}]


async def test_the_cost_is_reported_over_get_and_in_batches(blog, client):
    response = await client.get(
        "/graphql",
        params={"query": "{ __typename }", "extensions": '{"cost": true}'},
        headers=ADMIN,
    )
    assert response.json()["extensions"]["cost"]["requested"] == 1
    batch = [
        {"query": "{ __typename }", "extensions": {"cost": True}},
        {"query": "{ a: __typename b: __typename }"},
    ]
    answers = (await client.post("/graphql", json=batch, headers=ADMIN)).json()
    assert answers[0]["extensions"]["cost"] == {
        "requested": 1,
        "values": 1,
        "reads": 0,
        "limit": 100_000,
        "batch": 3,
    }
    assert "extensions" not in answers[1]


async def test_both_limits_are_configurable_and_typename_aliases_count(start_app):
    handle = await start_app(graphql_cost_limit=1000, graphql_batch_limit=2)
    under = "{" + " ".join(f"t{n}: __typename" for n in range(1000)) + "}"
    body = await gql(handle.client, under)
    assert len(body["data"]) == 1000
    over = "{" + " ".join(f"t{n}: __typename" for n in range(1001)) + "}"
    refused = await gql(handle.client, over, status=400)
    assert refused["errors"][0]["extensions"]["error"]["details"]["requested"] == 1001
    assert refused["errors"][0]["message"].startswith(
        "The query costs 1001, more than the limit of 1000"
    )
    batch = [{"query": "{ __typename }"}] * 3
    response = await handle.client.post("/graphql", json=batch, headers=ADMIN)
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"].endswith("at most 2.")


async def test_a_zero_limit_turns_the_budget_off(start_app):
    off = await start_app(graphql_cost_limit=0)
    query = (
        "{"
        + " ".join(
            f"a{n}: articles(pagination: {{limit: 100}}) {{ data {{ id }} }}" for n in range(100)
        )
        + "}"
    )
    answered = await off.client.post(
        "/graphql", json={"query": query, "extensions": {"cost": True}}, headers=ADMIN
    )
    assert answered.status_code == 200
    assert answered.json()["extensions"]["cost"] == {
        "requested": 110_200,
        "values": 10_200,
        "reads": 100,
        "limit": 0,
    }
