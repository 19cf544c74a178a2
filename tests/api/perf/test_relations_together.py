"""The populated relations of a level read in one statement on PostgreSQL (a ``UNION ALL`` of
each relation's own join, order and conditions, rows as ``jsonb_build_object``;
query/populate/batched.py ``_relations_together``): answers exactly as one statement per relation —
every attribute type of the related entries, drafts per publication state, fields, filters
and sort on populated relations, nested populate inside them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.perf.test_kept_statements import ARTICLE

QUERIES = [
    "/api/categories?populate=*",
    "/api/categories/1?populate=*",
    "/api/categories?populate[articles]=true&populate[featured]=true&publicationState=preview",
    "/api/categories?populate[articles][fields][0]=price&populate[articles][fields][1]=eventTime"
    "&populate[parent][fields][0]=name&populate[children]=true",
    "/api/categories?populate[articles][filters][title][$containsi]=type"
    "&populate[articles][sort]=price:desc&populate[parent]=true",
    "/api/categories?populate[articles][populate][author]=true"
    "&populate[articles][populate][categories]=true&populate[featured][populate]=*",
    # the same relations again, now with populates inside them (the kept statement is shared)
    "/api/categories?populate[articles]=true&populate[parent]=true",
    "/api/categories?populate[articles][populate][author]=true&populate[parent][populate]=*",
    "/api/authors?populate[articles]=true&populate[profile]=true",
    "/api/articles?populate[author]=true&populate[categories]=true&populate[related]=true"
    "&publicationState=preview",
]


#: per-parent pages of a to-many relation (GraphQL's relation pagination) beside a to-one
GRAPHQL = """{ categories(sort: "id") { data { id attributes {
  articles(pagination: {start: 1, limit: 1}, sort: "id") { data { id attributes { title } } }
  children(pagination: {limit: 1}) { data { id } }
  parent { data { id attributes { name } } }
} } } }"""


async def _answers(client: Any, admin: dict[str, str]) -> list[Any]:
    answers = []
    for query in QUERIES:
        response = await client.get(query, headers=admin)
        assert response.status_code == 200, (query, response.text)
        answers.append(response.json())
    response = await client.post("/graphql", json={"query": GRAPHQL}, headers=admin)
    assert response.status_code == 200 and "errors" not in response.json(), response.text
    answers.append(response.json())
    return answers


async def test_relations_read_together_answer_as_one_statement_each(
    app, client, admin, backend, monkeypatch, statements
):
    if backend != "postgres":
        pytest.skip("one statement per relations level on PostgreSQL only")
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "ann@example.com"})
    await entries.create("api::category.category", {"name": "Top", "slug": "top"})
    await entries.create("api::category.category", {"name": "Sub", "slug": "sub", "parent": 1})
    await entries.create("api::article.article", {**ARTICLE, "author": 1, "categories": [1, 2]})
    await entries.create(
        "api::article.article",
        {"title": "Second type", "slug": "second", "price": 0.1, "rating": 0.30000000000000004},
    )
    await entries.create(
        "api::article.article",
        {"title": "A draft type", "slug": "draft", "categories": [1], "rating": 2.0},
    )
    await entries.update("api::article.article", 3, {"publishedAt": None})
    await entries.update("api::category.category", 1, {"featured": 2, "articles": [1, 2, 3]})
    populator = app.runtime.entries.populator

    async with statements.recording() as recorded:
        together = await _answers(client, admin)
    monkeypatch.setattr(populator, "_relations_together", lambda *args: None)
    async with statements.recording() as apart_recorded:
        apart = await _answers(client, admin)

    assert together == apart
    assert len(recorded) < len(apart_recorded)
    featured = together[1]["data"]["attributes"]["featured"]["data"]["attributes"]
    assert featured["rating"] == 0.30000000000000004 and featured["price"] == 0.1
    listed = together[1]["data"]["attributes"]["articles"]["data"]
    assert [article["id"] for article in listed] == [1, 2]  # the draft: left out in live
    assert listed[0]["attributes"]["views"] == "9007199254740993"
    assert listed[0]["attributes"]["scheduledAt"] == "2026-11-24T09:30:15.250Z"
    paged = together[-1]["data"]["categories"]["data"][0]["attributes"]["articles"]["data"]
    assert [article["id"] for article in paged] == ["2"]
