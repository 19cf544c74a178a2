"""Every attribute type round-trips POST → GET in Strapi v4's exact REST JSON format.

Expected values are what the reference Strapi 4.25 answered for the same requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FULL_ARTICLE = {
    "title": "Full article",
    "slug": "full-article",
    "summary": "A summary",
    "body": "# Body\n\ntext",
    "kind": "opinion",
    "readingTime": 7,
    "views": "9007199254740993",
    "rating": 4.5,
    "price": 8.25,
    "featured": True,
    "eventDate": "2024-03-05",
    "eventTime": "20:28:00",
    "scheduledAt": "2020-02-10T04:00:00Z",
    "reviewedAt": "2020-02-10T06:00:00+02:00",
    "metadata": {"a": [1, 2]},
    "contactEmail": "a@b.co",
    "editorNotes": "secret notes",
}

EXPECTED_ATTRIBUTES = {
    "title": "Full article",
    "slug": "full-article",
    "summary": "A summary",
    "body": "# Body\n\ntext",
    "kind": "opinion",
    "readingTime": 7,
    "views": "9007199254740993",
    "rating": 4.5,
    "price": 8.25,
    "featured": True,
    "eventDate": "2024-03-05",
    "eventTime": "20:28:00",
    "scheduledAt": "2020-02-10T04:00:00.000Z",
    "reviewedAt": "1581307200000",
    "metadata": {"a": [1, 2]},
    "contactEmail": "a@b.co",
}


def _without_timestamps(attributes: dict) -> dict:
    return {
        k: v for k, v in attributes.items() if k not in ("createdAt", "updatedAt", "publishedAt")
    }


async def test_every_scalar_type_round_trips_in_strapi_format(client, admin):
    created = await client.post("/api/articles", json={"data": FULL_ARTICLE}, headers=admin)
    assert created.status_code == 200, created.text
    body = created.json()
    assert body["meta"] == {}
    assert body["data"]["id"] == 1
    attributes = body["data"]["attributes"]
    assert _without_timestamps(attributes) == {**EXPECTED_ATTRIBUTES, "locale": "en"}
    # Strapi's key order: schema order, then the system attributes.
    assert list(attributes)[-4:] == ["createdAt", "updatedAt", "publishedAt", "locale"]
    assert list(attributes)[:3] == ["title", "slug", "summary"]

    fetched = await client.get("/api/articles/1", headers=admin)
    assert fetched.status_code == 200
    assert fetched.json() == body

    listed = await client.get("/api/articles", headers=admin)
    assert listed.json() == {
        "data": [body["data"]],
        "meta": {"pagination": {"page": 1, "pageSize": 25, "pageCount": 1, "total": 1}},
    }


@pytest.mark.parametrize(
    ("field", "sent", "returned"),
    [
        ("views", 42, "42"),
        ("views", "-42", "-42"),
        ("price", "8.25", 8.25),
        ("price", 8.255, 8.26),
        ("price", 10, 10),
        ("price", "1e3", 1000),
        ("rating", "3.5", 3.5),
        ("rating", 1.0000001, 1.0000001),
        ("readingTime", "12", 12),
        ("readingTime", "1e2", 100),
        ("featured", "true", True),
        ("featured", 1, True),
        ("featured", "false", False),
        ("eventTime", "08:15:30.250", "08:15:30.25"),
        ("eventTime", "08:15:30.1", "08:15:30.1"),
        ("eventTime", "20:28:00.000", "20:28:00"),
        ("scheduledAt", "2020-02-10T06:00:00+02:00", "2020-02-10T04:00:00.000Z"),
        ("scheduledAt", "2020-02-10T04:00:00.123456Z", "2020-02-10T04:00:00.123Z"),
        ("scheduledAt", "2020-02-10", "2020-02-10T00:00:00.000Z"),
        ("scheduledAt", "2020-02-10 04:00:00", "2020-02-10T04:00:00.000Z"),
        ("scheduledAt", 1581307200000, "2020-02-10T04:00:00.000Z"),
        ("reviewedAt", "2020-02-10T04:00:00.500Z", "1581307200500"),
        ("reviewedAt", 1581307200123, "1581307200123"),
        ("reviewedAt", "1581307200000", "1581307200000"),
        ("eventDate", "2024-03-05T10:00:00Z", "2024-03-05"),
        ("metadata", "just a string", "just a string"),
        ("metadata", [1, "two", None], [1, "two", None]),
        ("metadata", 3, 3),
        ("contactEmail", "A@B.CO", "A@B.CO"),
        ("summary", "emoji 😀 and ünïcode", "emoji 😀 and ünïcode"),
    ],
)
async def test_value_is_cast_and_rendered_as_strapi_does(client, admin, field, sent, returned):
    response = await client.post(
        "/api/articles", json={"data": {"title": "Casting", field: sent}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["attributes"][field] == returned
    again = await client.get("/api/articles/1", headers=admin)
    assert again.json()["data"]["attributes"][field] == returned


async def test_defaults_apply_on_create_when_omitted_but_not_when_null(client, admin):
    omitted = await client.post(
        "/api/articles", json={"data": {"title": "Defaults"}}, headers=admin
    )
    attributes = omitted.json()["data"]["attributes"]
    assert (attributes["kind"], attributes["featured"], attributes["views"]) == ("news", False, "0")
    assert attributes["slug"] is None  # uids are not generated on REST create

    nulls = await client.post(
        "/api/articles",
        json={"data": {"title": "Nulls", "kind": None, "featured": None, "views": None}},
        headers=admin,
    )
    attributes = nulls.json()["data"]["attributes"]
    assert (attributes["kind"], attributes["featured"], attributes["views"]) == (None, None, None)


async def test_private_and_password_attributes_are_never_returned(client, admin):
    created = await client.post(
        "/api/authors",
        json={"data": {"name": "Ann", "email": "ann@example.com", "password": "correct horse"}},
        headers=admin,
    )
    assert created.status_code == 200, created.text
    for response in (
        created,
        await client.get("/api/authors/1", headers=admin),
        await client.get("/api/authors", headers=admin),
        await client.put("/api/authors/1", json={"data": {"age": 3}}, headers=admin),
    ):
        text = response.text
        assert "ann@example.com" not in text
        assert "password" not in text
        assert "correct horse" not in text
        assert "argon2" not in text


async def test_password_is_stored_as_a_slow_salted_hash(app, client, admin):
    await client.post(
        "/api/authors",
        json={"data": {"name": "Bo", "email": "bo@example.com", "password": "correct horse"}},
        headers=admin,
    )
    table = app.runtime.tables.entity("api::author.author")
    async with app.runtime.database.read() as conn:
        stored = (await conn.execute(table.select())).mappings().one()["password"]
    # bcrypt at cost 10, as Strapi hashes password attributes, so Strapi can verify it too
    assert stored.startswith("$2a$10$")
    assert "correct horse" not in stored


ARRAY_MODEL = {
    "kind": "collectionType",
    "collectionName": "things",
    "info": {"singularName": "thing", "pluralName": "things", "displayName": "Thing"},
    "options": {"draftAndPublish": False},
    "attributes": {"tags": {"type": "array"}, "blob": {"type": "JSON"}},
}


async def test_array_type_round_trips_as_a_json_array(start_app, tmp_path: Path, admin):
    # Strapi 4.25 refuses to start with an `array` attribute; the spec lists the type, so
    # contentapi stores it as a JSON array.
    (tmp_path / "thing.json").write_text(json.dumps(ARRAY_MODEL))
    handle = await start_app(tmp_path)
    created = await handle.client.post(
        "/api/things",
        json={"data": {"tags": ["a", 1, {"b": True}], "blob": {"x": 1}}},
        headers=admin,
    )
    assert created.status_code == 200, created.text
    assert created.json()["data"]["attributes"] == {
        "tags": ["a", 1, {"b": True}],
        "blob": {"x": 1},
        "createdAt": created.json()["data"]["attributes"]["createdAt"],
        "updatedAt": created.json()["data"]["attributes"]["updatedAt"],
    }
    wrong = await handle.client.post("/api/things", json={"data": {"tags": "a"}}, headers=admin)
    assert wrong.status_code == 400
    assert wrong.json()["error"]["details"]["errors"][0]["path"] == ["tags"]


#: A JSON attribute's numbers as the reference Strapi 4.25 answered them (it parses JSON into
#: JavaScript doubles): integral floats lose their ``.0``, -0 is 0, integers beyond 2**53 are
#: rounded to the nearest double, big integral doubles are written in plain digits.
JSON_NUMBERS_SENT = {
    "float": 3.0,
    "half": 3.5,
    "negz": -0.0,
    "big": 9007199254740993,
    "bigf": 1234567890123456789.0,
    "e20": 1e20,
    "e21": 1e21,
    "exp": 1e-7,
    "small": 0.00001,
    "nested": [1.0, [2.0, {"x": 4.0}], {"y": [5.0, 6.5]}],
    "text": "3.0",
    "flag": True,
    "none": None,
}
JSON_NUMBERS_ANSWERED = {
    "float": 3,
    "half": 3.5,
    "negz": 0,
    "big": 9007199254740992,
    "bigf": 1234567890123456800,
    # Strapi writes 100000000000000000000, beyond what orjson writes as an integer: 1e+20 is
    # the same double for a JavaScript client.
    "e20": 1e20,
    "e21": 1e21,
    "exp": 1e-7,
    "small": 0.00001,
    "nested": [1, [2, {"x": 4}], {"y": [5, 6.5]}],
    "text": "3.0",
    "flag": True,
    "none": None,
}


def _exactly(value):
    """A JSON value with each number tagged by its Python type, so 3 and 3.0 differ."""
    if isinstance(value, dict):
        return {key: _exactly(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exactly(item) for item in value]
    return (type(value).__name__, value)


async def test_json_attribute_numbers_are_answered_as_javascript_reads_them(client, admin):
    body = {"data": {"title": "JSON numbers", "metadata": JSON_NUMBERS_SENT}}
    created = await client.post("/api/articles", json=body, headers=admin)
    assert created.status_code == 200, created.text
    entry_id = created.json()["data"]["id"]
    fetched = await client.get(f"/api/articles/{entry_id}", headers=admin)
    for answer in (created, fetched):
        assert _exactly(answer.json()["data"]["attributes"]["metadata"]) == _exactly(
            JSON_NUMBERS_ANSWERED
        )


@pytest.mark.parametrize(("sent", "answered"), [(3.0, 3), (2.5, 2.5), ([4.0, "4.0"], [4, "4.0"])])
async def test_json_attribute_of_a_top_level_number_or_array(client, admin, sent, answered):
    body = {"data": {"title": "JSON scalar", "metadata": sent}}
    created = await client.post("/api/articles", json=body, headers=admin)
    assert created.status_code == 200, created.text
    assert _exactly(created.json()["data"]["attributes"]["metadata"]) == _exactly(answered)
