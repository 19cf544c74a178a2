"""i18n writes as the reference Strapi 4.25.24 answered them (its i18n plugin's
``createCreateLocalizationHandler``, ``syncNonLocalizedAttributes`` and the core single-type
``createOrUpdate``), on models of this file: a localized single type and collection type with
localized ``title`` and non-localized ``slug``, ``views`` and private ``secret``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

_ATTRIBUTES = {
    "title": {"type": "string", "required": True, "pluginOptions": {"i18n": {"localized": True}}},
    "slug": {"type": "string", "pluginOptions": {"i18n": {"localized": False}}},
    "views": {"type": "integer", "pluginOptions": {"i18n": {"localized": False}}},
    "secret": {"type": "string", "private": True, "pluginOptions": {"i18n": {"localized": False}}},
}


def _model(kind: str, singular: str, plural: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "collectionName": plural,
        "info": {"singularName": singular, "pluralName": plural, "displayName": singular},
        "options": {"draftAndPublish": True},
        "pluginOptions": {"i18n": {"localized": True}},
        "attributes": _ATTRIBUTES,
    }


@pytest.fixture
async def handle(start_app, tmp_path: Path):
    folder = tmp_path / "content-types"
    folder.mkdir()
    (folder / "home.json").write_text(json.dumps(_model("singleType", "home", "homes")))
    (folder / "page.json").write_text(json.dumps(_model("collectionType", "page", "pages")))
    return await start_app(folder, locales="en,fr,de")


async def _rows(handle, table: str) -> list[tuple]:
    async with handle.runtime.database.read() as conn:
        found = await conn.execute(
            text(f"SELECT id, locale, slug, views, secret FROM {table} ORDER BY id")
        )
        return [tuple(row) for row in found]


def _error(status: int, name: str, message: str, details: Any = None) -> dict:
    return {
        "data": None,
        "error": {"status": status, "name": name, "message": message, "details": details or {}},
    }


async def test_single_type_localization_route(handle):
    client = handle.client
    url = "/api/home/localizations"
    nothing = await client.post(url, json={"locale": "fr", "title": "x"}, headers=ADMIN)
    assert nothing.status_code == 404
    assert nothing.json() == _error(404, "NotFoundError", "Entity not found")
    english = await client.put(
        "/api/home",
        json={"data": {"title": "Home", "slug": "a", "views": 1, "secret": "s"}},
        headers=ADMIN,
    )
    en_id = english.json()["data"]["id"]
    created = await client.post(url, json={"locale": "fr", "title": "Accueil", "slug": "b"})
    assert created.status_code == 403  # the public role may not
    created = await client.post(
        url, json={"locale": "fr", "title": "Accueil", "slug": "b"}, headers=ADMIN
    )
    assert created.status_code == 200, created.text
    french = created.json()
    assert {k: v for k, v in french.items() if k not in ("createdAt", "updatedAt")} == {
        "id": french["id"],
        "locale": "fr",
        "title": "Accueil",
        "slug": "b",  # the body's
        "views": 1,  # the source's
        "publishedAt": None,
        "localizations": [
            {
                "id": en_id,
                "locale": "en",
                "title": "Home",
                "slug": "a",  # read before the copy
                "views": 1,
                "publishedAt": english.json()["data"]["attributes"]["publishedAt"],
                "createdAt": english.json()["data"]["attributes"]["createdAt"],
                "updatedAt": english.json()["data"]["attributes"]["updatedAt"],
            }
        ],
    }
    # the new entry's non-localized values (the private one too) copied onto the group
    assert await _rows(handle, "homes") == [
        (en_id, "en", "b", 1, "s"),
        (french["id"], "fr", "b", 1, "s"),
    ]
    cases = [
        ({"locale": "fr", "title": "Encore"}, "locale is already used"),
        ({"locale": "en", "title": "Encore"}, "locale is already used"),
        ({"locale": "xx", "title": "Encore"}, "locale is invalid"),
        ({"title": "Encore"}, "locale is missing"),
        ({"data": {"locale": "de"}}, "locale is missing"),  # the body itself, not under data
    ]
    for body, message in cases:
        refused = await client.post(url, json=body, headers=ADMIN)
        assert refused.status_code == 400
        assert refused.json() == _error(400, "ApplicationError", message), body
    # Validated as an entity-service create: as published (title required), stored a draft.
    invalid = await client.post(url, json={"locale": "de", "views": "abc"}, headers=ADMIN)
    assert invalid.status_code == 400
    assert invalid.json()["error"]["message"] == "2 errors occurred"
    assert [e["path"] for e in invalid.json()["error"]["details"]["errors"]] == [
        ["title"],
        ["views"],
    ]
    assert invalid.json()["error"]["details"]["errors"][0]["message"] == "title must be defined."
    # a draft: absent in live, present in preview with its group
    assert (await client.get("/api/home?locale=fr", headers=ADMIN)).status_code == 404
    preview = await client.get(
        "/api/home?locale=fr&publicationState=preview&populate=localizations", headers=ADMIN
    )
    linked = preview.json()["data"]["attributes"]["localizations"]["data"]
    assert [(loc["id"], loc["attributes"]["slug"]) for loc in linked] == [(en_id, "b")]
    # publishedAt in the body publishes it; unknown keys, id and localizations are ignored
    german = await client.post(
        url,
        json={
            "locale": "de",
            "title": "Hallo",
            "views": 9,
            "publishedAt": "2024-01-01T00:00:00.000Z",
            "localizations": [],
            "id": 77,
        },
        headers=ADMIN,
    )
    assert german.status_code == 200, german.text
    body = german.json()
    assert body["publishedAt"] == "2024-01-01T00:00:00.000Z" and body["id"] != 77
    assert sorted(loc["locale"] for loc in body["localizations"]) == ["en", "fr"]
    assert [row[3] for row in await _rows(handle, "homes")] == [9, 9, 9]


async def test_single_type_put_in_a_locale_it_lacks(handle):
    client = handle.client
    # no entry at all: made in the default locale whatever the query's locale
    first = await client.put("/api/home?locale=fr", json={"data": {"title": "A"}}, headers=ADMIN)
    assert first.status_code == 200, first.text
    assert first.json()["data"]["attributes"]["locale"] == "en"
    for locale in ("fr", "xx"):
        refused = await client.put(
            f"/api/home?locale={locale}", json={"data": {"title": "B"}}, headers=ADMIN
        )
        assert refused.status_code == 400
        assert refused.json() == _error(400, "ValidationError", "singleType.alreadyExists")
    assert len(await _rows(handle, "homes")) == 1
    # the body's locale is the first entry's
    await client.delete("/api/home", headers=ADMIN)
    french = await client.put(
        "/api/home", json={"data": {"title": "C", "locale": "fr"}}, headers=ADMIN
    )
    assert french.json()["data"]["attributes"]["locale"] == "fr"


async def test_put_copies_to_the_localizations_its_answer_populates(handle):
    client = handle.client
    source = await client.post(
        "/api/pages",
        json={"data": {"title": "A", "slug": "a", "views": 1, "secret": "s"}},
        headers=ADMIN,
    )
    en = source.json()["data"]["id"]
    fr = (
        await client.post(
            f"/api/pages/{en}/localizations", json={"locale": "fr", "title": "B"}, headers=ADMIN
        )
    ).json()["id"]
    de = (
        await client.post(
            f"/api/pages/{en}/localizations",
            json={"locale": "de", "title": "C", "views": 3},
            headers=ADMIN,
        )
    ).json()["id"]
    assert await _rows(handle, "pages") == [
        (en, "en", "a", 3, "s"),
        (fr, "fr", "a", 3, "s"),
        (de, "de", "a", 3, "s"),
    ]

    async def put(entry: int, query: str, data: dict) -> dict:
        response = await client.put(
            f"/api/pages/{entry}?{query}", json={"data": data}, headers=ADMIN
        )
        assert response.status_code == 200, response.text
        return response.json()["data"]["attributes"]

    await put(en, "", {"slug": "c"})  # nothing copied
    assert [row[2] for row in await _rows(handle, "pages")] == ["c", "a", "a"]
    # populated → copied to them, drafts too whatever publicationState (Strapi's update reads
    # its answer with fields and populate only); the answer itself leaves drafts out in live
    # (docs/differences-from-strapi.md)
    answer = await put(en, "populate=localizations&publicationState=live", {"slug": "d"})
    assert answer["localizations"]["data"] == []
    assert [row[2] for row in await _rows(handle, "pages")] == ["d", "d", "d"]
    await put(fr, "populate=*", {"slug": "e"})
    assert [row[2] for row in await _rows(handle, "pages")] == ["e", "e", "e"]
    # only what the answer selects: fields=title copies neither slug nor views
    await put(fr, "populate=localizations&fields[0]=title", {"slug": "f", "views": 5})
    assert [row[2:4] for row in await _rows(handle, "pages")] == [("e", 3), ("f", 5), ("e", 3)]
    await put(fr, "populate=localizations&fields[0]=views", {"slug": "g", "views": 6})
    assert [row[2:4] for row in await _rows(handle, "pages")] == [("e", 6), ("g", 6), ("e", 6)]
    # the private value too, when fields are not restricted
    await put(fr, "populate[localizations][fields][0]=locale", {"slug": "h", "secret": "t"})
    assert [row[2:] for row in await _rows(handle, "pages")] == [("h", 6, "t")] * 3
    # only to the localizations populated
    await put(fr, "populate[localizations][filters][locale][$eq]=de", {"slug": "i"})
    assert [row[2] for row in await _rows(handle, "pages")] == ["h", "i", "i"]
    # a single type's PUT alike
    await client.put("/api/home", json={"data": {"title": "H", "slug": "x"}}, headers=ADMIN)
    await client.post("/api/home/localizations", json={"locale": "fr", "title": "F"}, headers=ADMIN)
    await client.put("/api/home?locale=fr", json={"data": {"slug": "y"}}, headers=ADMIN)
    assert [row[2] for row in await _rows(handle, "homes")] == ["x", "y"]
    await client.put(
        "/api/home?locale=fr&populate=localizations", json={"data": {"slug": "z"}}, headers=ADMIN
    )
    assert [row[2] for row in await _rows(handle, "homes")] == ["z", "z"]


async def test_graphql_localizations(handle):
    client = handle.client

    async def gql(query: str) -> dict:
        response = await client.post("/graphql", json={"query": query}, headers=ADMIN)
        return response.json()

    await client.put("/api/home", json={"data": {"title": "H", "slug": "x"}}, headers=ADMIN)
    made = await gql(
        'mutation { createHomeLocalization(data: {title: "F", slug: "y"}, locale: "fr") '
        "{ data { attributes { locale slug localizations { data { attributes { locale } } } } } } }"
    )
    assert made["data"]["createHomeLocalization"]["data"]["attributes"] == {
        "locale": "fr",
        "slug": "y",
        "localizations": {"data": [{"attributes": {"locale": "en"}}]},
    }
    assert [row[2] for row in await _rows(handle, "homes")] == ["y", "y"]
    again = await gql(
        'mutation { createHomeLocalization(data: {title: "F"}, locale: "fr") { data { id } } }'
    )
    assert again["data"] == {"createHomeLocalization": None}
    assert again["errors"][0]["message"] == "locale is already used"
    assert again["errors"][0]["extensions"]["error"]["name"] == "ApplicationError"
    # GraphQL's update copies nothing (Strapi's resolver passes no populate)
    page = await client.post(
        "/api/pages", json={"data": {"title": "A", "slug": "a", "views": 1}}, headers=ADMIN
    )
    en = page.json()["data"]["id"]
    await client.post(
        f"/api/pages/{en}/localizations", json={"locale": "fr", "title": "B"}, headers=ADMIN
    )
    await gql(
        f'mutation {{ updatePage(id: {en}, data: {{slug: "gql"}}) '
        "{ data { attributes { localizations(publicationState: PREVIEW) { data { id } } } } } }"
    )
    assert [row[2] for row in await _rows(handle, "pages")] == ["gql", "a"]


async def test_the_single_types_localization_route_is_documented(handle):
    document = (await handle.client.get("/documentation/openapi.json")).json()
    item = document["paths"]["/api/home/localizations"]
    assert set(item) == {"post"}
    assert item["post"]["operationId"] == "home.createLocalization"
    assert "/api/pages/{id}/localizations" in document["paths"]


async def test_each_members_localizations_start_with_the_newest(handle):
    """Strapi's ``syncLocalizations`` sets each member's list to the new entry first, then the
    source and its localizations: after fr then de from en, en lists de before fr."""
    client = handle.client
    en = (
        await client.post("/api/pages", json={"data": {"title": "A", "views": 1}}, headers=ADMIN)
    ).json()["data"]["id"]
    url = f"/api/pages/{en}/localizations"
    fr = (await client.post(url, json={"locale": "fr", "title": "B"}, headers=ADMIN)).json()
    de = (await client.post(url, json={"locale": "de", "title": "C"}, headers=ADMIN)).json()
    assert [loc["id"] for loc in de["localizations"]] == [en, fr["id"]]

    async def listed(entry: int) -> list[int]:
        query = "populate=localizations&publicationState=preview"
        body = (await client.get(f"/api/pages/{entry}?{query}", headers=ADMIN)).json()
        return [loc["id"] for loc in body["data"]["attributes"]["localizations"]["data"]]

    assert await listed(en) == [de["id"], fr["id"]]
    assert await listed(fr["id"]) == [de["id"], en]
    assert await listed(de["id"]) == [en, fr["id"]]
