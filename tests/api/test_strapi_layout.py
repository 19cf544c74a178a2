"""A Strapi project's folder served as it is: its models (custom fields included) read from
``src/api/*/content-types/*/schema.json`` and ``src/components``, each custom field stored,
validated, filtered, answered and typed (GraphQL, OpenAPI) as its underlying type — on SQLite
and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect

from tests.api.graphql.conftest import gql
from tests.conftest import AppHandle

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "strapi-project"
EXTENSION = "tests.support.custom_fields_extension"

RESTAURANT = {
    "name": "Chez Paul",
    "description": "<p>Bistro <strong>classics</strong></p>",
    "brandColor": "#AA3300",
    "cuisines": ["french", "italian"],
    "country": "FR",
    "stars": 4,
    "blocks": [
        {"__component": "blocks.hero", "title": "Welcome", "background": "#FFFFFF"},
        {"__component": "blocks.text", "content": "## Menu"},
    ],
    "seo": {"metaTitle": "Chez Paul", "keywords": ["food"]},
}


@pytest.fixture
async def project(reused_app, admin) -> AppHandle:
    """The fixture project, from its root, the rating plugin's field declared by setting."""
    return await reused_app(PROJECT, custom_fields="plugin::rating.stars=integer")


async def _create(handle: AppHandle, admin: dict[str, str], data: dict[str, Any]) -> dict:
    response = await handle.client.post("/api/restaurants", json={"data": data}, headers=admin)
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_custom_fields_round_trip_as_their_underlying_types(project, admin):
    created = await _create(project, admin, RESTAURANT)
    attributes = created["attributes"]
    assert {name: attributes[name] for name in ("description", "brandColor", "country")} == {
        "description": RESTAURANT["description"],
        "brandColor": "#AA3300",
        "country": "FR",
    }
    assert (attributes["cuisines"], attributes["stars"]) == (["french", "italian"], 4)
    read = await project.client.get(
        f"/api/restaurants/{created['id']}",
        params={"populate": "blocks,seo"},
        headers=admin,
    )
    body = read.json()["data"]["attributes"]
    assert [item.get("background", item.get("content")) for item in body["blocks"]] == [
        "#FFFFFF",
        "## Menu",
    ]
    assert body["seo"]["keywords"] == ["food"]
    # the columns are the underlying types' (Strapi's PostgreSQL types: text, integer, jsonb)
    async with project.runtime.database.read() as conn:
        columns = await conn.run_sync(
            lambda sync: {c["name"]: c["type"] for c in inspect(sync).get_columns("restaurants")}
        )
    assert str(columns["stars"]).upper() == "INTEGER"
    assert str(columns["description"]).upper() == "TEXT"
    assert str(columns["brand_color"]).upper().startswith("VARCHAR")


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"stars": 6}, ["stars"], "stars must be less than or equal to 5"),
        ({"stars": "many"}, ["stars"], "stars must be a `number` type"),
        ({"brandColor": "red"}, ["brandColor"], "brandColor must match the following"),
        ({"cuisines": 3}, None, None),  # a JSON value: any JSON is accepted, as Strapi does
    ],
)
async def test_custom_fields_are_validated_as_their_underlying_types(
    project, admin, data, path, message
):
    response = await project.client.post(
        "/api/restaurants", json={"data": {"name": "X", **data}}, headers=admin
    )
    if path is None:
        assert response.status_code == 200, response.text
        return
    assert response.status_code == 400, response.text
    error = response.json()["error"]["details"]["errors"][0]
    assert error["path"] == path and error["message"].startswith(message), error


async def test_custom_fields_filter_and_sort_as_their_underlying_types(project, admin):
    for name, stars, color in (("A", 2, "#000001"), ("B", 4, "#000002"), ("C", 5, "#000003")):
        await _create(project, admin, {"name": name, "stars": stars, "brandColor": color})

    async def names(**params: str) -> list[str]:
        response = await project.client.get("/api/restaurants", params=params, headers=admin)
        assert response.status_code == 200, response.text
        return [entry["attributes"]["name"] for entry in response.json()["data"]]

    assert await names(**{"filters[stars][$gte]": "4", "sort": "stars:desc"}) == ["C", "B"]
    assert await names(**{"filters[brandColor][$endsWith]": "2"}) == ["B"]
    assert await names(**{"filters[stars][$in][0]": "2", "filters[stars][$in][1]": "5"}) == [
        "A",
        "C",
    ]
    bad = await project.client.get(
        "/api/restaurants", params={"filters[stars][$eq]": "many"}, headers=admin
    )
    assert bad.status_code == 400


async def test_graphql_types_custom_fields_as_their_underlying_types(project, admin):
    await _create(project, admin, RESTAURANT)
    body = await gql(
        project.client,
        """{
          restaurants(filters: {stars: {gte: 3}, country: {eq: "FR"}}) {
            data { attributes { description brandColor cuisines country stars } }
          }
          __type(name: "Restaurant") { fields { name type { name } } }
        }""",
    )
    assert "errors" not in body, body
    assert body["data"]["restaurants"]["data"] == [
        {
            "attributes": {
                "description": RESTAURANT["description"],
                "brandColor": "#AA3300",
                "cuisines": ["french", "italian"],
                "country": "FR",
                "stars": 4,
            }
        }
    ]
    types = {field["name"]: field["type"]["name"] for field in body["data"]["__type"]["fields"]}
    assert {name: types[name] for name in ("description", "brandColor", "cuisines", "stars")} == {
        "description": "String",
        "brandColor": "String",
        "cuisines": "JSON",
        "stars": "Int",
    }


async def test_openapi_types_custom_fields_as_their_underlying_types(start_app):
    handle = await start_app(
        PROJECT, custom_fields="plugin::rating.stars=integer", documentation=True
    )
    document = (await handle.client.get("/documentation/openapi.json")).json()
    schemas = document["components"]["schemas"]
    request = schemas["RestaurantRequest"]["properties"]["data"]
    request = schemas[request["$ref"].rsplit("/", 1)[1]] if "$ref" in request else request
    properties = request["properties"]
    assert properties["stars"]["type"] == ["integer", "null"]
    assert (properties["stars"]["minimum"], properties["stars"]["maximum"]) == (1, 5)
    assert properties["brandColor"]["type"] == ["string", "null"]
    assert properties["brandColor"]["pattern"] == "^#([0-9A-Fa-f]{6})$"
    assert properties["description"]["type"] == ["string", "null"]
    answer = schemas["RestaurantAttributes"]["properties"]
    assert answer["stars"]["type"] == ["integer", "null"]


async def test_an_api_folder_gives_the_uid_and_the_permission_names(start_app, admin):
    # api/blog/content-types/article: uid api::blog.article, served at /api/articles, its
    # actions api::blog.article.*, its permissions under api::blog, controller article
    handle = await start_app(PROJECT / "src", extensions=EXTENSION)
    client = handle.client
    created = await client.post(
        "/api/articles",
        json={"data": {"title": "Hello", "body": "<p>Hi</p>", "publishedAt": "2024-01-01"}},
        headers=admin,
    )
    assert created.status_code == 200, created.text
    assert (await client.get("/api/articles")).status_code == 403
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    public_id = next(role["id"] for role in roles if role["type"] == "public")
    role = (await client.get(f"/api/users-permissions/roles/{public_id}", headers=admin)).json()
    permissions = role["role"]["permissions"]
    assert set(permissions["api::blog"]["controllers"]) == {"article"}
    permissions["api::blog"]["controllers"]["article"]["find"]["enabled"] = True
    updated = await client.put(
        f"/api/users-permissions/roles/{public_id}",
        json={"permissions": permissions},
        headers=admin,
    )
    assert updated.json() == {"ok": True}
    listed = await client.get("/api/articles")
    assert listed.status_code == 200, listed.text
    assert [entry["attributes"]["body"] for entry in listed.json()["data"]] == ["<p>Hi</p>"]


async def test_the_extensions_declaration_serves_the_custom_field(start_app, admin):
    handle = await start_app(PROJECT, extensions=EXTENSION)
    created = await _create(handle, admin, {"name": "Y", "stars": 3})
    assert created["attributes"]["stars"] == 3
