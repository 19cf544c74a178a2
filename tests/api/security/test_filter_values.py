"""Query values that used to answer 500: each is now an answer (400 ValidationError in the
contract's shape, or Strapi's own result where Strapi has one), on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.api.graphql.conftest import gql


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["data"]]


def _validation_error(response, message: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json() == {
        "data": None,
        "error": {"status": 400, "name": "ValidationError", "message": message, "details": {}},
    }


@pytest.fixture
async def featured(client, admin) -> dict[str, int]:
    """An author with a featured article and a plain one (and an article without author)."""
    author = await client.post(
        "/api/authors", json={"data": {"name": "Ada", "email": "ada@example.com"}}, headers=admin
    )
    ids = {"author": author.json()["data"]["id"]}
    for name, flag in (("yes", True), ("no", False)):
        created = await client.post(
            "/api/articles",
            json={"data": {"title": f"Featured {name}", "featured": flag, "author": ids["author"]}},
            headers=admin,
        )
        assert created.status_code == 200, created.text
        ids[name] = created.json()["data"]["id"]
    return ids


# Strapi casts the value to a boolean and lets PostgreSQL compare (false < true): no error.
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("filters[featured][$gte]=false", ["yes", "no"]),
        ("filters[featured][$gt]=false", ["yes"]),
        ("filters[featured][$lt]=true", ["no"]),
        ("filters[featured][$lte]=false", ["no"]),
        ("filters[featured][$between][0]=false&filters[featured][$between][1]=true", ["yes", "no"]),
        ("filters[featured][$between][0]=true&filters[featured][$between][1]=true", ["yes"]),
    ],
)
async def test_range_operators_order_booleans_false_before_true(
    client, admin, featured, query, expected
):
    response = await client.get(f"/api/articles?{query}", headers=admin)
    assert sorted(_ids(response)) == sorted(featured[name] for name in expected)


async def test_range_operator_on_a_boolean_through_a_relation(client, admin, featured):
    found = await client.get("/api/authors?filters[articles][featured][$gt]=false", headers=admin)
    assert _ids(found) == [featured["author"]]
    none = await client.get("/api/authors?filters[articles][featured][$gt]=true", headers=admin)
    assert _ids(none) == []


async def test_graphql_boolean_range_filter(client, featured):
    body = await gql(client, "{ articles(filters: {featured: {lt: true}}) { data { id } } }")
    assert [int(item["id"]) for item in body["data"]["articles"]["data"]] == [featured["no"]]


async def test_sort_on_a_boolean_through_relations(client, admin, featured):
    # PostgreSQL has no min/max(boolean); a second author without featured articles.
    other = await client.post(
        "/api/authors", json={"data": {"name": "Bo", "email": "bo@example.com"}}, headers=admin
    )
    plain = await client.post(
        "/api/articles",
        json={
            "data": {"title": "Plain one", "featured": False, "author": other.json()["data"]["id"]}
        },
        headers=admin,
    )
    assert plain.status_code == 200
    bo = other.json()["data"]["id"]
    descending = await client.get("/api/authors?sort=articles.featured:desc", headers=admin)
    assert _ids(descending) == [featured["author"], bo]
    ascending = await client.get("/api/authors?sort[0][articles][featured]=asc", headers=admin)
    assert _ids(ascending) == [featured["author"], bo]  # both have a false one: id decides
    body = await gql(client, '{ authors(sort: "articles.featured:desc") { data { id } } }')
    assert [int(item["id"]) for item in body["data"]["authors"]["data"]] == [featured["author"], bo]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "/api/articles?filters[title][$containsi]=a%00b",
            "Invalid value for filters.title.$containsi: NUL characters are not allowed",
        ),
        (
            "/api/articles?filters[title][$eq]=a%00b",
            "Invalid value for filters.title.$eq: NUL characters are not allowed",
        ),
        (
            "/api/articles?filters[title][$in][0]=ok&filters[title][$in][1]=a%00b",
            "Invalid value for filters.title.$in: NUL characters are not allowed",
        ),
        (
            "/api/articles?filters[seo][metaTitle][$startsWith]=%00",
            "Invalid value for filters.seo.metaTitle.$startsWith: NUL characters are not allowed",
        ),
        (
            "/api/articles?filters[author][name][$eq]=a%00b",
            "Invalid value for filters.author.name.$eq: NUL characters are not allowed",
        ),
        (
            "/api/articles?populate[author][filters][name][$eq]=a%00b",
            "Invalid value for populate.filters.name.$eq: NUL characters are not allowed",
        ),
        (
            "/api/articles?filters[readingTime][$containsi]=1%00",
            "Invalid value for filters.readingTime.$containsi: NUL characters are not allowed",
        ),
        (
            "/api/users?filters[username][$eq]=a%00b",
            "Invalid value for filters.username.$eq: NUL characters are not allowed",
        ),
        (
            "/api/upload/files?filters[name][$endsWith]=a%00b",
            "Invalid value for filters.name.$endsWith: NUL characters are not allowed",
        ),
        ("/api/articles?locale=e%00n", "Invalid locale parameter: NUL characters are not allowed"),
    ],
)
async def test_nul_in_a_text_value_is_a_validation_error(client, admin, featured, path, message):
    _validation_error(await client.get(path, headers=admin), message)


async def test_graphql_nul_in_a_string_filter_is_bad_user_input(client, featured):
    body = await gql(
        client, '{ articles(filters: {title: {containsi: "a\\u0000b"}}) { data { id } } }'
    )
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    "query",
    ["filters[price][$eq]=1e400", "filters[price][$gt]=-1e400", "filters[rating][$lt]=1e400"],
)
async def test_a_number_too_large_for_a_double_is_a_validation_error(client, admin, query):
    _validation_error(
        await client.get(f"/api/articles?{query}", headers=admin),
        "Invalid format, expected a number",
    )


async def test_a_decimal_beyond_its_column_is_still_compared(client, admin):
    created = await client.post(
        "/api/articles", json={"data": {"title": "Priced", "price": 12.5}}, headers=admin
    )
    entry = created.json()["data"]["id"]
    below = await client.get("/api/articles?filters[price][$lt]=1e30", headers=admin)
    assert _ids(below) == [entry]
    above = await client.get("/api/articles?filters[price][$gte]=1e30", headers=admin)
    assert _ids(above) == []
    equal = await client.get("/api/articles?filters[price][$eq]=123456789012", headers=admin)
    assert _ids(equal) == []


@pytest.mark.parametrize(
    "query",
    [
        # qs keeps 1,000 parameters: an array given to a non-array operator is the OR of them.
        "&".join(f"filters[title][$containsi][{i}]=x{i}" for i in range(1000)),
        "&".join(f"filters[$or][{i}][title][$eq]=x{i}" for i in range(1000)),
        "&".join(f"filters[$and][{i}][title][$notContains]=x{i}" for i in range(1000)),
    ],
    ids=["array to a scalar operator", "$or", "$and"],
)
async def test_a_thousand_conditions_are_answered(client, admin, featured, query):
    # SQLite parsed `a OR b OR …` 1,000 deep and refused it ("Expression tree is too large"): 500.
    response = await client.get(f"/api/articles?{query}", headers=admin)
    assert response.status_code == 200, response.text
