"""Filters and sorts on a JSON attribute (REST), on both databases, as the reference Strapi 4.25
answers on PostgreSQL: the value is compared as ``jsonb`` after ``JSON.stringify``, the
case-insensitive operators read ``jsonb``'s text, a sort orders by ``jsonb``
(``query/jsonb.py``). Every expected list below is the reference's answer on the same values.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contentapi.app import create_app
from tests.conftest import AppHandle, Databases, make_settings

#: ``metadata`` of the articles ``jt-1`` … ``jt-17`` (ids 1 … 17), as created on the reference
METADATA = [
    "text",
    [1, 2],
    {"a": 1, "b": [1, 2.5, "x"]},
    {"float": 3},
    None,
    3,
    True,
    "Zeta",
    "apple",
    {"b": 1},
    [],
    2.5,
    False,
    "te%t",
    {"zz": 1, "a": 2},
    [1, 3],
    [0, 5, 6],
]


async def seed_metadata(handle: AppHandle) -> None:
    for index, value in enumerate(METADATA, start=1):
        await handle.runtime.entries.create(
            "api::article.article", {"title": f"jt-{index}", "metadata": value}
        )
    # for a sort through a to-many relation: "text" and [1, 2]; an object
    await handle.runtime.entries.create(
        "api::category.category", {"name": "A", "slug": "a", "articles": [1, 2]}
    )
    await handle.runtime.entries.create(
        "api::category.category", {"name": "B", "slug": "b", "articles": [3]}
    )


@pytest.fixture(scope="module")
async def json_app(databases: Databases, test_models) -> AsyncIterator[AppHandle]:
    handle = AppHandle(create_app(make_settings(await databases.new_url(), test_models)))
    await handle.__aenter__()
    await seed_metadata(handle)
    yield handle
    await handle.__aexit__()


async def _get(app: AppHandle, query: str) -> tuple[int, dict]:
    response = await app.client.get(
        f"/api/articles?pagination[pageSize]=100&{query}",
        headers={"Authorization": "Bearer test-admin-token"},
    )
    return response.status_code, response.json()


async def _ids(app: AppHandle, query: str) -> list[int]:
    status, body = await _get(app, query)
    assert status == 200, body
    return [entry["id"] for entry in body["data"]]


MATCHES = [
    ("filters[metadata][$eq]=text", [1]),
    ("filters[metadata]=text", [1]),
    ('filters[metadata][$eq]="text"', []),  # the JSON string "\"text\""
    ("filters[metadata][$eq]=3", []),  # the string "3", not the number
    ("filters[metadata][$eq]=true", []),
    ("filters[metadata][$eq]=TEXT", []),
    ("filters[metadata][$eq]=", []),
    ("filters[metadata]=", []),
    ("filters[metadata][$eq][0]=1&filters[metadata][$eq][1]=2", []),
    ("filters[metadata][$in][0]=text&filters[metadata][$in][1]=x", [1]),
    ("filters[metadata][$in]=", []),
    ("filters[metadata][$notIn][0]=text", [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$ne]=", [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$ne]=text", [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$not][$eq]=text", [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    # jsonb's order: [] < strings < numbers < booleans < arrays < objects
    ("filters[metadata][$lt]=b", [8, 9, 11]),
    ("filters[metadata][$gt]=Zeta", [1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$gte]=", [1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$lte]=a", [8, 11]),
    (
        "filters[metadata][$between][0]=a&filters[metadata][$between][1]=z",
        [1, 9, 14],
    ),
    # the case-insensitive operators read jsonb's text (`{"a": 1}`, strings quoted)
    ("filters[metadata][$containsi]=TE", [1, 14]),
    ("filters[metadata][$containsi]=%22zz%22", [15]),
    ("filters[metadata][$containsi]=%22:%201", [3, 10, 15]),
    ("filters[metadata][$eqi]=%7B%22a%22:%202,%20%22zz%22:%201%7D", [15]),
    ("filters[metadata][$eqi]=2.5", [12]),
    ("filters[metadata][$eqi]=TRUE", [7]),
    ("filters[metadata][$eqi]=text", []),
    ('filters[metadata][$eqi]="TEXT"', [1]),
    ("filters[metadata][$eqi]=[1,%202]", [2]),
    ("filters[metadata][$nei]=3", [1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    ("filters[metadata][$notContainsi]=1", [1, 4, 6, 7, 8, 9, 11, 12, 13, 14, 17]),
    ('filters[metadata][$startsWithi]="t', [1, 14]),
    ('filters[metadata][$endsWithi]=t"', [1, 14]),
    ("filters[metadata][$null]=true", [5]),
    ("filters[metadata][$notNull]=false", [5]),
]


@pytest.mark.parametrize(("query", "expected"), MATCHES)
async def test_json_filters_match_the_reference(json_app, query, expected):
    assert await _ids(json_app, f"{query}&sort=id") == expected


async def test_json_sort_orders_by_jsonb(json_app):
    ascending = [11, 8, 9, 14, 1, 12, 6, 13, 7, 2, 16, 17, 10, 4, 3, 15, 5]
    assert await _ids(json_app, "sort=metadata") == ascending
    assert await _ids(json_app, "sort[0]=metadata:asc&sort[1]=id") == ascending
    # descending: NULL first, as every descending sort
    assert await _ids(json_app, "sort=metadata:desc") == [5, *reversed(ascending[:-1])]


@pytest.mark.parametrize(
    "query",
    [
        "filters[metadata][$contains]=te",
        "filters[metadata][$notContains]=t",
        "filters[metadata][$startsWith]=t",
        "filters[metadata][$endsWith]=t",
        "filters[metadata][$between][0]=a",
        "filters[metadata][$eq]=a%00b",
    ],
)
async def test_json_filters_strapi_answers_with_a_500_are_a_400(json_app, query):
    status, body = await _get(json_app, query)
    assert status == 400, body
    assert body["error"]["name"] == "ValidationError"


async def test_json_sort_through_a_to_many_relation(json_app):
    """Each category once, by its articles' smallest ``metadata`` ascending (a string before
    an object) and largest descending (an object above an array), on both databases."""
    for sort, expected in (("articles.metadata:asc", [1, 2]), ("articles.metadata:desc", [2, 1])):
        response = await json_app.client.get(
            f"/api/categories?sort={sort}", headers={"Authorization": "Bearer test-admin-token"}
        )
        assert response.status_code == 200, response.text
        assert [entry["id"] for entry in response.json()["data"]] == expected
