"""``JSONFilterInput`` filters and sorts on a JSON attribute, on both databases, as the reference
Strapi 4.25 answers them on PostgreSQL (``query/jsonb.py``): GraphQL's JSON values are
stringified as Strapi does, so a number finds a number and a string a string. The articles are
those of ``tests/api/query/test_json_filters.py``; every expected list is the reference's."""

from __future__ import annotations

import pytest

from contentapi.app import create_app
from tests.api.graphql.conftest import gql
from tests.api.query.test_json_filters import seed_metadata
from tests.conftest import AppHandle, make_settings

QUERY = """query($f: ArticleFiltersInput, $s: [String]) {
  articles(filters: $f, sort: $s, pagination: {limit: 100}) { data { id } }
}"""


@pytest.fixture(scope="module")
async def json_app(databases, test_models):
    handle = AppHandle(create_app(make_settings(await databases.new_url(), test_models)))
    await handle.__aenter__()
    await seed_metadata(handle)
    yield handle
    await handle.__aexit__()


async def _ids(app, filters: dict, sort: list[str] | None = None) -> list[int]:
    body = await gql(app.client, QUERY, {"f": filters, "s": sort or ["id"]})
    assert "errors" not in body, body
    return [int(entry["id"]) for entry in body["data"]["articles"]["data"]]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"eq": "text"}, [1]),
        ({"eq": 3}, [6]),
        ({"eq": 2.5}, [12]),
        ({"eq": True}, [7]),
        ({"eq": None}, [5]),
        ({"ne": None}, [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
        ({"in": ["text", 3, False]}, [1, 6, 13]),
        ({"gt": 3}, [2, 3, 4, 7, 10, 13, 15, 16, 17]),
        ({"lt": False}, [1, 6, 8, 9, 11, 12, 14]),
        ({"between": [2, 3]}, [6, 12]),
        ({"eqi": 3}, [6]),
        ({"containsi": 2.5}, [3, 12]),
        ({"containsi": "te"}, [1, 14]),
        # an object operand is left out, as Strapi's sanitizer removes it
        ({"eq": {"float": 3}, "ne": "text"}, [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
    ],
)
async def test_json_filters_match_the_reference(json_app, condition, expected):
    assert await _ids(json_app, {"metadata": condition}) == expected


async def test_json_sort_orders_by_jsonb(json_app):
    descending = [5, 15, 3, 4, 10, 17, 16, 2, 7, 13, 6, 12, 1, 14, 9, 8, 11]
    assert await _ids(json_app, {}, ["metadata:desc", "id"]) == descending


async def test_json_contains_is_a_bad_user_input(json_app):
    body = await gql(
        json_app.client, '{ articles(filters: {metadata: {contains: "t"}}) { data { id } } }'
    )
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert body["data"] == {"articles": None}
