"""Each validation rule: 400 ValidationError naming the path, Strapi's message, nothing written."""

from __future__ import annotations

import pytest


async def _count(client, admin, plural: str) -> int:
    response = await client.get(f"/api/{plural}", headers=admin)
    return response.json()["meta"]["pagination"]["total"]


def _error(response) -> dict:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["data"] is None
    assert body["error"]["status"] == 400
    assert body["error"]["name"] == "ValidationError"
    return body["error"]


ARTICLE_CASES = [
    ("missing required", {}, ["title"], "title must be defined."),
    (
        "required null",
        {"title": None},
        ["title"],
        "title must be a `string` type, but the final value was: `null`.",
    ),
    ("minLength", {"title": "ab"}, ["title"], "title must be at least 3 characters"),
    ("maxLength", {"title": "x" * 121}, ["title"], "title must be at most 120 characters"),
    (
        "min",
        {"title": "abc", "readingTime": 0},
        ["readingTime"],
        "readingTime must be greater than or equal to 1",
    ),
    (
        "max",
        {"title": "abc", "readingTime": 601},
        ["readingTime"],
        "readingTime must be less than or equal to 600",
    ),
    (
        "float max",
        {"title": "abc", "rating": 5.1},
        ["rating"],
        "rating must be less than or equal to 5",
    ),
    (
        "decimal min",
        {"title": "abc", "price": -1},
        ["price"],
        "price must be greater than or equal to 0",
    ),
    (
        "enum",
        {"title": "abc", "kind": "rumor"},
        ["kind"],
        "kind must be one of the following values: news, opinion, tutorial, ",
    ),
    (
        "email",
        {"title": "abc", "contactEmail": "not-an-email"},
        ["contactEmail"],
        "contactEmail must be a valid email",
    ),
    (
        "empty email",
        {"title": "abc", "contactEmail": ""},
        ["contactEmail"],
        "contactEmail cannot be empty",
    ),
    (
        "uid format",
        {"title": "abc", "slug": "Not A Slug!"},
        ["slug"],
        'slug must match the following: "/^[A-Za-z0-9-_.~]*$/"',
    ),
    (
        "string type",
        {"title": 123},
        ["title"],
        "title must be a `string` type, but the final value was: `123`.",
    ),
    (
        "integer type",
        {"title": "abc", "readingTime": "abc"},
        ["readingTime"],
        "readingTime must be a `number` type, but the final value was: `NaN` "
        '(cast from the value `"abc"`).',
    ),
    (
        "integer from boolean",
        {"title": "abc", "readingTime": True},
        ["readingTime"],
        "readingTime must be a `number` type, but the final value was: `NaN` "
        "(cast from the value `true`).",
    ),
    (
        "integer",
        {"title": "abc", "readingTime": 1.5},
        ["readingTime"],
        "readingTime must be an integer",
    ),
    (
        "integer range",
        {"title": "abc", "readingTime": 2**31},
        ["readingTime"],
        "readingTime is out of range",
    ),
    (
        "boolean type",
        {"title": "abc", "featured": "yes"},
        ["featured"],
        'featured must be a `boolean` type, but the final value was: `"yes"`.',
    ),
    (
        "string from object",
        {"title": "abc", "summary": {"a": 1}},
        ["summary"],
        'summary must be a `string` type, but the final value was: `{\n  "a": "1"\n}`.',
    ),
    (
        "date format",
        {"title": "abc", "eventDate": "2024/03/05"},
        ["eventDate"],
        "Invalid format, expected yyyy-MM-dd",
    ),
    ("impossible date", {"title": "abc", "eventDate": "2024-02-30"}, ["eventDate"], "Invalid date"),
    (
        "time format",
        {"title": "abc", "eventTime": "20:28"},
        ["eventTime"],
        "Invalid time format, expected HH:mm:ss.SSS",
    ),
    (
        "time out of range",
        {"title": "abc", "eventTime": "25:00:00"},
        ["eventTime"],
        "Invalid time format, expected HH:mm:ss.SSS",
    ),
    (
        "datetime format",
        {"title": "abc", "scheduledAt": "yesterday"},
        ["scheduledAt"],
        "Invalid format, expected a timestamp or an ISO date",
    ),
    (
        "biginteger",
        {"title": "abc", "views": "99999999999999999999"},
        ["views"],
        "views is out of range",
    ),
    (
        "biginteger type",
        {"title": "abc", "views": "abc"},
        ["views"],
        "views must be a `number` type, but the final value was: `NaN` "
        '(cast from the value `"abc"`).',
    ),
    (
        "decimal overflow",
        {"title": "abc", "price": 123456789.12},
        ["price"],
        "price is out of range",
    ),
    (
        "varchar limit",
        {"title": "abc", "contactEmail": "a@" + "b" * 260 + ".co"},
        ["contactEmail"],
        "contactEmail must be at most 255 characters",
    ),
    (
        "NUL character",
        {"title": "abc", "summary": "a\u0000b"},
        ["summary"],
        "summary must not contain NUL characters",
    ),
    (
        "NUL in json",
        {"title": "abc", "metadata": {"k": "a\u0000"}},
        ["metadata"],
        "metadata must not contain NUL characters",
    ),
    ("unknown locale", {"title": "abc", "locale": "xx"}, ["locale"], "This locale doesn't exist"),
    (
        "bad publishedAt",
        {"title": "abc", "publishedAt": "soon"},
        ["publishedAt"],
        "Invalid format, expected a timestamp or an ISO date",
    ),
]


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [case[1:] for case in ARTICLE_CASES],
    ids=[case[0] for case in ARTICLE_CASES],
)
async def test_invalid_article_is_rejected_with_path_and_nothing_is_written(
    client, admin, data, path, message
):
    error = _error(await client.post("/api/articles", json={"data": data}, headers=admin))
    assert error["message"] == message
    assert error["details"] == {
        "errors": [{"path": path, "message": message, "name": "ValidationError"}]
    }
    assert await _count(client, admin, "articles") == 0


async def test_regex_and_min_length_rules_on_authors(client, admin):
    error = _error(
        await client.post(
            "/api/authors",
            json={"data": {"name": "A", "email": "a@x.io", "handle": "Bob-X", "password": "short"}},
            headers=admin,
        )
    )
    assert error["message"] == "2 errors occurred"
    assert error["details"]["errors"] == [
        {
            "path": ["handle"],
            "message": 'handle must match the following: "/^[a-z0-9_]+$/"',
            "name": "ValidationError",
        },
        {
            "path": ["password"],
            "message": "password must be at least 8 characters",
            "name": "ValidationError",
        },
    ]


async def test_all_errors_are_listed_in_schema_order(client, admin):
    body = {
        "contactEmail": "bad",
        "readingTime": 0,
        "kind": "rumor",
        "rating": 9,
        "slug": "Bad Slug",
    }
    error = _error(await client.post("/api/articles", json={"data": body}, headers=admin))
    assert error["message"] == "6 errors occurred"
    assert [e["path"] for e in error["details"]["errors"]] == [
        ["title"],
        ["slug"],
        ["kind"],
        ["readingTime"],
        ["rating"],
        ["contactEmail"],
    ]


async def test_unique_attribute_rejects_a_duplicate_on_create_and_update(client, admin):
    first = {"name": "Ann", "email": "ann@example.com"}
    assert (
        await client.post("/api/authors", json={"data": first}, headers=admin)
    ).status_code == 200
    error = _error(await client.post("/api/authors", json={"data": first}, headers=admin))
    assert error["message"] == "2 errors occurred"
    assert error["details"]["errors"] == [
        {"path": ["name"], "message": "This attribute must be unique", "name": "ValidationError"},
        {"path": ["email"], "message": "This attribute must be unique", "name": "ValidationError"},
    ]
    second = {"name": "Bob", "email": "bob@example.com"}
    assert (
        await client.post("/api/authors", json={"data": second}, headers=admin)
    ).status_code == 200
    error = _error(
        await client.put("/api/authors/2", json={"data": {"name": "Ann"}}, headers=admin)
    )
    assert error["details"]["errors"][0]["path"] == ["name"]
    # Re-saving an entry's own value is not a duplicate.
    same = await client.put("/api/authors/1", json={"data": {"name": "Ann"}}, headers=admin)
    assert same.status_code == 200
    names = [
        e["attributes"]["name"]
        for e in (await client.get("/api/authors", headers=admin)).json()["data"]
    ]
    assert names == ["Ann", "Bob"]


async def test_uid_is_unique_across_locales(client, admin):
    data = {"title": "First", "slug": "same"}
    assert (
        await client.post("/api/articles", json={"data": data}, headers=admin)
    ).status_code == 200
    error = _error(
        await client.post("/api/articles", json={"data": {**data, "locale": "fr"}}, headers=admin)
    )
    assert error["details"]["errors"][0] == {
        "path": ["slug"],
        "message": "This attribute must be unique",
        "name": "ValidationError",
    }


async def test_concurrent_duplicates_store_exactly_one(client, admin):
    import asyncio

    responses = await asyncio.gather(
        *(
            client.post(
                "/api/categories", json={"data": {"name": "Same", "slug": f"s-{i}"}}, headers=admin
            )
            for i in range(8)
        )
    )
    assert sorted(r.status_code for r in responses) == [200] + [400] * 7
    assert await _count(client, admin, "categories") == 1


async def test_update_rejects_null_for_required_but_allows_leaving_it_out(client, admin):
    await client.post("/api/articles", json={"data": {"title": "Keep me"}}, headers=admin)
    error = _error(
        await client.put("/api/articles/1", json={"data": {"title": None}}, headers=admin)
    )
    assert error["details"]["errors"][0]["path"] == ["title"]
    ok = await client.put("/api/articles/1", json={"data": {"summary": "s"}}, headers=admin)
    assert ok.status_code == 200
    assert ok.json()["data"]["attributes"]["title"] == "Keep me"


async def test_failed_update_changes_nothing(client, admin):
    await client.post(
        "/api/articles", json={"data": {"title": "Original", "readingTime": 5}}, headers=admin
    )
    before = (await client.get("/api/articles/1", headers=admin)).json()
    response = await client.put(
        "/api/articles/1", json={"data": {"title": "Changed", "readingTime": 0}}, headers=admin
    )
    _error(response)
    assert (await client.get("/api/articles/1", headers=admin)).json() == before


async def test_unknown_and_server_maintained_keys_are_ignored(client, admin):
    response = await client.post(
        "/api/articles",
        json={"data": {"title": "abc", "nope": 1, "id": 99, "createdAt": "2000-01-01T00:00:00Z"}},
        headers=admin,
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["id"] == 1
    assert "nope" not in data["attributes"]
    assert not data["attributes"]["createdAt"].startswith("2000")


async def test_required_string_accepts_empty_string(client, admin):
    response = await client.post(
        "/api/authors", json={"data": {"name": "", "email": "e@x.io"}}, headers=admin
    )
    assert response.status_code == 200


async def test_drafts_skip_required_and_min_length_but_publishing_enforces_them(client, admin):
    draft = await client.post(
        "/api/articles", json={"data": {"title": "ab", "publishedAt": None}}, headers=admin
    )
    assert draft.status_code == 200, draft.text
    untitled = await client.post(
        "/api/articles",
        json={"data": {"summary": "no title yet", "publishedAt": None}},
        headers=admin,
    )
    assert untitled.status_code == 200, untitled.text
    # Updating a draft keeps the leniency; other rules (max, types) still apply.
    still_draft = await client.put("/api/articles/2", json={"data": {"title": None}}, headers=admin)
    assert still_draft.status_code == 200
    too_long = await client.put(
        "/api/articles/2", json={"data": {"title": "x" * 121}}, headers=admin
    )
    assert too_long.status_code == 400
    # Creating a published entry enforces them.
    error = _error(
        await client.post("/api/articles", json={"data": {"title": "ab"}}, headers=admin)
    )
    assert error["message"] == "title must be at least 3 characters"


async def test_concurrent_first_puts_create_one_single_entry(client, admin):
    import asyncio

    responses = await asyncio.gather(
        *(
            client.put("/api/global", json={"data": {"siteName": f"site {i}"}}, headers=admin)
            for i in range(6)
        )
    )
    assert all(r.status_code == 200 for r in responses)
    assert {r.json()["data"]["id"] for r in responses} == {1}
