"""The case-insensitive text operators on numbers, dates and times read PostgreSQL's text of the
column, on both databases (db/pgtext.py).

What the reference Strapi 4.25 (PostgreSQL) answered over REST and GraphQL: a decimal reads
``10.00`` (``price[$eqi]=10`` matches nothing), a float as ``float8out`` prints it (``0``,
``4.5``, ``1e-05``), a datetime as its ``timestamp(6)`` text ``2024-04-10 03:30:00`` (no
``T``, no zone, fraction without trailing zeros), a time ``10:20:30.5``, a date ``YYYY-MM-DD``;
the case-sensitive forms are a 400 (a 500 there: ``LIKE`` on such a column). A GraphQL number
is compared as JavaScript prints it (``rating: {eqi: 0}`` is ``"0"``).
"""

from __future__ import annotations

import pytest

from tests.api.graphql.conftest import gql

ARTICLES = [
    {
        "title": "First",
        "price": 10,
        "rating": 0,
        "eventDate": "2024-04-10",
        "eventTime": "03:30:00",
        "scheduledAt": "2024-04-10T03:30:00.000Z",
    },
    {
        "title": "Second",
        "price": 8.25,
        "rating": 4.5,
        "eventDate": "1972-03-12",
        "eventTime": "10:20:30.500",
        "scheduledAt": "2024-01-10T04:00:00.120Z",
    },
    {"title": "Third", "price": 0, "rating": 1e-05},
    {"title": "Fourth"},
]

CASES = [
    ("price", "$eqi", "10", []),
    ("price", "$eqi", "10.00", ["First"]),
    ("price", "$containsi", ".25", ["Second"]),
    ("price", "$eqi", "0.00", ["Third"]),
    ("price", "$nei", "0.00", ["First", "Second"]),
    ("rating", "$eqi", "0", ["First"]),
    ("rating", "$eqi", "0.0", []),
    ("rating", "$eqi", "4.5", ["Second"]),
    ("rating", "$endsWithi", "E-05", ["Third"]),
    ("eventDate", "$startsWithi", "1972", ["Second"]),
    ("eventDate", "$endsWithi", "-10", ["First"]),
    ("eventDate", "$eqi", "2024-04-10", ["First"]),
    ("eventTime", "$eqi", "03:30:00", ["First"]),
    ("eventTime", "$eqi", "10:20:30.5", ["Second"]),
    ("eventTime", "$containsi", ".000", []),
    ("scheduledAt", "$containsi", "03:30", ["First"]),
    ("scheduledAt", "$containsi", "T03", []),
    ("scheduledAt", "$containsi", "Z", []),
    ("scheduledAt", "$eqi", "2024-01-10 04:00:00.12", ["Second"]),
    ("scheduledAt", "$notContainsi", "03:30", ["Second"]),
]


@pytest.fixture
async def articles(client, admin) -> None:
    for article in ARTICLES:
        created = await client.post("/api/articles", json={"data": article}, headers=admin)
        assert created.status_code == 200, created.json()


@pytest.mark.parametrize(
    ("name", "operator", "value", "expected"), CASES, ids=[f"{c[0]}{c[1]}={c[2]}" for c in CASES]
)
async def test_text_operators_read_postgresqls_text(
    client, admin, articles, name, operator, value, expected
):
    response = await client.get(
        "/api/articles",
        params={f"filters[{name}][{operator}]": value, "sort": "id", "publicationState": "preview"},
        headers=admin,
    )
    assert response.status_code == 200, response.json()
    assert [e["attributes"]["title"] for e in response.json()["data"]] == expected


@pytest.mark.parametrize("name", ["eventDate", "eventTime", "scheduledAt"])
async def test_case_sensitive_text_operators_on_dates_are_a_400(client, admin, name):
    response = await client.get(
        "/api/articles", params={f"filters[{name}][$contains]": "2"}, headers=admin
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("Operator $contains does not apply to")


async def test_graphql_numbers_are_compared_as_javascript_prints_them(client, articles):
    query = """query Q($f: ArticleFiltersInput) {
      articles(filters: $f, sort: "id", publicationState: PREVIEW) { data { attributes { title } } }
    }"""

    async def titles(filters: dict) -> list[str]:
        body = await gql(client, query, {"f": filters})
        assert "errors" not in body, body
        return [e["attributes"]["title"] for e in body["data"]["articles"]["data"]]

    assert await titles({"rating": {"eqi": 0.0}}) == ["First"]
    assert await titles({"price": {"eqi": 0}}) == []
    assert await titles({"price": {"containsi": 0}}) == ["First", "Third"]
    assert await titles({"eventDate": {"containsi": "1972-03-12"}}) == ["Second"]
    assert await titles({"scheduledAt": {"containsi": "2024-04-10T03:30:00Z"}}) == []
