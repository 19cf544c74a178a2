"""i18n: locales, localizations linked as a group, shared non-localized fields, locale reads."""

from __future__ import annotations

from datetime import datetime

from contentapi.db.system import core_store, i18n_locales
from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def test_locales_list(client, admin):
    response = await client.get("/api/i18n/locales", headers=admin)
    locales = response.json()
    assert [(loc["code"], loc["name"], loc["isDefault"]) for loc in locales] == [
        ("en", "English (en)", True),
        ("fr", "French (fr)", False),
    ]
    assert set(locales[0]) == {"id", "name", "code", "createdAt", "updatedAt", "isDefault"}


async def test_locales_are_the_tables_rows_and_the_configuration_only_adds(
    databases, start_app, caplog
):
    """Strapi's ``i18n_locale`` rows (ids, names, timestamps) and its default-locale setting are
    served as they are; ``CONTENTAPI_LOCALES`` adds the codes the table lacks at start-up, and
    neither removes a locale nor moves the default."""
    url = await databases.new_url()
    first = await start_app(database_url=url, locales="en,fr")
    seeded = (await first.client.get("/api/i18n/locales", headers=ADMIN)).json()
    assert [(loc["id"], loc["code"], loc["isDefault"]) for loc in seeded] == [
        (1, "en", True),
        (2, "fr", False),
    ]
    async with first.runtime.database.write() as conn:
        await conn.execute(i18n_locales.delete().where(i18n_locales.c.code == "en"))
        await conn.execute(
            i18n_locales.insert().values(
                id=7,
                name="Deutsch",
                code="de",
                created_at=datetime(2024, 1, 2, 3, 4, 5, 678000),
                updated_at=datetime(2024, 2, 3, 4, 5, 6, 789000),
            )
        )
        await conn.execute(
            core_store.update()
            .where(core_store.c.key == "plugin_i18n_default_locale")
            .values(value='"de"')
        )
    expected = [
        {
            "id": 2,
            "name": "French (fr)",
            "code": "fr",
            "createdAt": seeded[1]["createdAt"],
            "updatedAt": seeded[1]["updatedAt"],
            "isDefault": False,
        },
        {
            "id": 7,
            "name": "Deutsch",
            "code": "de",
            "createdAt": "2024-01-02T03:04:05.678Z",
            "updatedAt": "2024-02-03T04:05:06.789Z",
            "isDefault": True,
        },
    ]
    assert (await first.client.get("/api/i18n/locales", headers=ADMIN)).json() == expected
    # a later start with other settings adds what the table lacks; nothing else changes
    caplog.set_level("WARNING", logger="contentapi")
    second = await start_app(database_url=url, locales="en,es")
    assert "locales" not in caplog.text  # nothing to warn about: the table is the truth
    served = (await second.client.get("/api/i18n/locales", headers=ADMIN)).json()
    assert [loc for loc in served if loc["code"] in ("fr", "de")] == expected
    added = [
        (loc["code"], loc["name"], loc["isDefault"])
        for loc in served
        if loc["code"] not in ("fr", "de")
    ]
    assert sorted(added) == [("en", "English (en)", False), ("es", "Spanish (es)", False)]
    query = '{ i18NLocales(sort: "id:desc") { data { id attributes { code name } } } }'
    answer = await second.client.post("/graphql", json={"query": query}, headers=ADMIN)
    codes = [item["attributes"]["code"] for item in answer.json()["data"]["i18NLocales"]["data"]]
    assert sorted(codes) == ["de", "en", "es", "fr"]


async def test_localization_is_created_linked_and_shares_non_localized_fields(client, admin):
    """As the reference Strapi 4.25 did: the source's non-localized values fill those the body
    lacks, the body's win, and the new entry's are then copied onto the group (the answer's
    ``localizations`` show the group as it was before that copy)."""
    source = (
        await client.post(
            "/api/articles",
            json={"data": {"title": "Hello", "readingTime": 5, "featured": True}},
            headers=admin,
        )
    ).json()["data"]
    created = await client.post(
        f"/api/articles/{source['id']}/localizations",
        json={"locale": "fr", "title": "Bonjour", "readingTime": 99},
        headers=admin,
    )
    assert created.status_code == 200, created.text
    french = created.json()
    assert (french["locale"], french["title"], french["publishedAt"]) == ("fr", "Bonjour", None)
    assert french["readingTime"] == 99  # the body's
    assert french["featured"] is True  # the source's
    assert [(loc["id"], loc["locale"], loc["readingTime"]) for loc in french["localizations"]] == [
        (source["id"], "en", 5)
    ]
    english = (await client.get(f"/api/articles/{source['id']}", headers=admin)).json()["data"]
    assert english["attributes"]["readingTime"] == 99  # the new entry's, copied
    assert english["attributes"]["updatedAt"] > source["attributes"]["updatedAt"]

    # A plain PUT copies nothing; one whose answer populates localizations copies to them.
    await client.put(
        f"/api/articles/{french['id']}",
        json={"data": {"readingTime": 12, "title": "Salut"}},
        headers=admin,
    )
    english = (await client.get(f"/api/articles/{source['id']}", headers=admin)).json()["data"]
    assert english["attributes"]["readingTime"] == 99
    answer = await client.put(
        f"/api/articles/{french['id']}?populate=localizations",
        json={"data": {"readingTime": 13}},
        headers=admin,
    )
    linked = answer.json()["data"]["attributes"]["localizations"]["data"]
    assert [loc["attributes"]["readingTime"] for loc in linked] == [99]  # read before the copy
    english = (await client.get(f"/api/articles/{source['id']}", headers=admin)).json()["data"]
    assert english["attributes"]["readingTime"] == 13
    assert english["attributes"]["title"] == "Hello"  # localized: untouched

    # Reads by locale.
    await client.put(
        f"/api/articles/{french['id']}",
        json={"data": {"publishedAt": "2024-01-01T00:00:00Z"}},
        headers=admin,
    )
    assert [e["id"] for e in (await client.get("/api/articles", headers=admin)).json()["data"]] == [
        source["id"]
    ]
    assert [
        e["id"] for e in (await client.get("/api/articles?locale=fr", headers=admin)).json()["data"]
    ] == [french["id"]]
    both = (await client.get("/api/articles?locale=all", headers=admin)).json()["data"]
    assert {e["id"] for e in both} == {source["id"], french["id"]}
    populated = (
        await client.get(f"/api/articles/{source['id']}?populate=localizations", headers=admin)
    ).json()
    linked = populated["data"]["attributes"]["localizations"]["data"]
    assert [(loc["id"], loc["attributes"]["locale"]) for loc in linked] == [(french["id"], "fr")]


async def test_third_localization_links_to_the_whole_group(start_app, admin):
    handle = await start_app(locales="en,fr,de")
    client = handle.client
    source = (
        await client.post("/api/articles", json={"data": {"title": "Hello"}}, headers=admin)
    ).json()["data"]
    french = (
        await client.post(
            f"/api/articles/{source['id']}/localizations",
            json={"locale": "fr", "title": "Bonjour"},
            headers=admin,
        )
    ).json()
    german = (
        await client.post(
            f"/api/articles/{french['id']}/localizations",
            json={"locale": "de", "title": "Hallo"},
            headers=admin,
        )
    ).json()
    assert {loc["locale"] for loc in german["localizations"]} == {"en", "fr"}
    body = (
        await client.get(
            f"/api/articles/{source['id']}?populate=localizations&publicationState=preview",
            headers=admin,
        )
    ).json()
    assert {
        loc["attributes"]["locale"] for loc in body["data"]["attributes"]["localizations"]["data"]
    } == {"fr", "de"}


def _error(status: int, name: str, message: str) -> dict:
    return {
        "data": None,
        "error": {"status": status, "name": name, "message": message, "details": {}},
    }


async def test_localization_errors(client, admin):
    """As the reference Strapi 4.25 answered: the entry first (404), then the locale (400
    ``ApplicationError``), whether it is the source's own or another member's."""
    source = (
        await client.post("/api/articles", json={"data": {"title": "Hello"}}, headers=admin)
    ).json()["data"]
    url = f"/api/articles/{source['id']}/localizations"
    french = await client.post(url, json={"locale": "fr", "title": "Bonjour"}, headers=admin)
    assert french.status_code == 200, french.text
    cases = [
        (url, {"locale": "fr", "title": "Encore"}, 400, "locale is already used"),
        (url, {"locale": "en", "title": "Same"}, 400, "locale is already used"),
        (url, {"locale": "xx", "title": "?"}, 400, "locale is invalid"),
        (url, {"locale": None, "title": "?"}, 400, "locale is missing"),
        (url, {"title": "No locale"}, 400, "locale is missing"),
        ("/api/articles/999/localizations", {"locale": "xx", "title": "x"}, 404, None),
    ]
    for path, body, status, message in cases:
        response = await client.post(path, json=body, headers=admin)
        expected = (
            _error(404, "NotFoundError", "Entity not found")
            if status == 404
            else _error(400, "ApplicationError", message)
        )
        assert response.json() == expected, body
        assert response.status_code == status
    # The French localization's own group: English is used there too.
    from_french = await client.post(
        f"/api/articles/{french.json()['id']}/localizations",
        json={"locale": "en", "title": "Back"},
        headers=admin,
    )
    assert from_french.json() == _error(400, "ApplicationError", "locale is already used")
    other = (
        await client.post("/api/articles", json={"data": {"title": "Other"}}, headers=admin)
    ).json()["data"]
    invalid = await client.post(
        f"/api/articles/{other['id']}/localizations",
        json={"locale": "fr", "title": "ab", "publishedAt": "2024-01-01"},
        headers=admin,
    )
    assert invalid.status_code == 400  # localized fields are validated like a create
    assert invalid.json()["error"]["name"] == "ValidationError"
    # An unknown locale on a read is only a filter value (docs/differences-from-strapi.md, "kept").
    listed = await client.get("/api/articles?locale=xx", headers=admin)
    assert listed.status_code == 200 and listed.json()["data"] == []
    # Not a localized type: the route does not exist.
    assert (
        await client.post("/api/authors/1/localizations", json={}, headers=admin)
    ).status_code == 404
