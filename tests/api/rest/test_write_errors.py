"""Invalid relation, component and dynamic-zone bodies: 400 naming the path, nothing changed."""

from __future__ import annotations

import pytest

from tests.api.rest.helpers import create, create_many, nested


async def _snapshot(app, client, admin, article: int) -> tuple:
    entry = (await client.get(f"/api/articles/{article}", headers=admin)).json()
    return entry, await nested(app, "articles", article)


INVALID = [
    ("set with connect", {"categories": {"set": [1], "connect": [2]}}, ["categories"]),
    ("set with disconnect", {"categories": {"set": [1], "disconnect": [2]}}, ["categories"]),
    ("duplicate connect", {"categories": {"connect": [1, 1]}}, ["categories", "connect", "1"]),
    (
        "duplicate longhand",
        {"categories": {"connect": [{"id": 2}, {"id": 2}]}},
        ["categories", "connect", "1"],
    ),
    ("duplicate bare array", {"categories": [2, 2]}, ["categories", "1"]),
    ("duplicate to-one connect", {"author": {"connect": [1, 1]}}, ["author", "connect", "1"]),
    ("missing id", {"categories": {"connect": [999]}}, ["categories"]),
    ("missing to-one id", {"author": 999}, ["author"]),
    ("malformed id", {"categories": {"connect": ["abc"]}}, ["categories", "connect", "0"]),
    ("negative id", {"categories": [-1]}, ["categories", "0"]),
    (
        "object without id",
        {"categories": {"connect": [{"name": "x"}]}},
        ["categories", "connect", "0"],
    ),
    ("unknown operator", {"categories": {"add": [1]}}, ["categories"]),
    ("operator not a list", {"categories": {"connect": 1}}, ["categories", "connect"]),
    (
        "anchor not related",
        {"categories": {"connect": [{"id": 2, "position": {"before": 3}}]}},
        ["categories", "connect", "0"],
    ),
    (
        "two position keys",
        {"categories": {"connect": [{"id": 2, "position": {"start": True, "end": True}}]}},
        ["categories", "connect", "0", "position"],
    ),
    (
        "unknown position key",
        {"categories": {"connect": [{"id": 2, "position": {"middle": True}}]}},
        ["categories", "connect", "0", "position"],
    ),
    (
        "position in set",
        {"categories": {"set": [{"id": 2, "position": {"start": True}}]}},
        ["categories", "set", "0"],
    ),
    ("connect on media", {"cover": {"connect": [1]}}, ["cover"]),
    ("missing file", {"cover": 999}, ["cover"]),
    ("component not an object", {"seo": "x"}, ["seo"]),
    ("component required field", {"seo": {"metaDescription": "d"}}, ["seo", "metaTitle"]),
    (
        "repeatable item field",
        {"links": [{"label": "a", "url": "/a"}, {"label": "b"}]},
        ["links", "1", "url"],
    ),
    ("repeatable not a list", {"links": {"label": "a"}}, ["links"]),
    ("repeatable max", {"links": [{"label": "l", "url": "/u"}] * 11}, ["links"]),
    ("component id of another entry", {"links": [{"id": 99, "label": "x"}]}, ["links", "0", "id"]),
    (
        "nested component field",
        {"seo": {"metaTitle": "t", "keywords": [{"label": "k"}]}},
        ["seo", "keywords", "0", "url"],
    ),
    (
        "unknown dynamic zone component",
        {"blocks": [{"__component": "shared.link", "label": "a", "url": "/"}]},
        ["blocks", "0", "__component"],
    ),
    (
        "dynamic zone item without component",
        {"blocks": [{"body": "x"}]},
        ["blocks", "0", "__component"],
    ),
    ("dynamic zone not a list", {"blocks": {"__component": "blocks.quote"}}, ["blocks"]),
    (
        "dynamic zone item field",
        {"blocks": [{"__component": "blocks.quote", "title": "no body"}]},
        ["blocks", "0", "body"],
    ),
    (
        "relation in dynamic zone item",
        {"blocks": [{"__component": "blocks.quote", "body": "b", "author": 999}]},
        ["blocks", "0", "author"],
    ),
]


@pytest.mark.parametrize(("data", "path"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
async def test_invalid_write_is_400_with_path_and_changes_nothing(app, client, admin, data, path):
    await create_many(client, admin, "categories", 3)
    await create(client, admin, "authors")
    files = app.runtime.tables.files
    async with app.runtime.database.write() as conn:
        await conn.execute(
            files.insert(),
            [
                {"name": "a.png", "mime": "image/png", "hash": "a", "url": "/uploads/a.png"},
                {"name": "b.pdf", "mime": "application/pdf", "hash": "b", "url": "/uploads/b.pdf"},
            ],
        )
    article = await create(
        client,
        admin,
        "articles",
        categories=[1],
        author=1,
        cover=1,
        seo={"metaTitle": "Kept"},
        links=[{"label": "Kept", "url": "/kept"}],
        blocks=[{"__component": "blocks.quote", "body": "Kept"}],
    )
    before = await _snapshot(app, client, admin, article)
    for method, url in (("PUT", f"/api/articles/{article}"), ("POST", "/api/articles")):
        response = await client.request(
            method, url, json={"data": {"title": "Changed", **data}}, headers=admin
        )
        assert response.status_code == 400, (method, response.text)
        error = response.json()["error"]
        assert error["name"] == "ValidationError"
        assert path in [e["path"] for e in error["details"]["errors"]], error
    assert await _snapshot(app, client, admin, article) == before
    listed = (await client.get("/api/articles", headers=admin)).json()
    assert listed["meta"]["pagination"]["total"] == 1


async def test_missing_relation_error_names_the_id(client, admin):
    response = await client.post(
        "/api/articles", json={"data": {"title": "abc", "categories": [12345]}}, headers=admin
    )
    assert response.status_code == 400
    assert "12345" in response.json()["error"]["message"]


async def test_component_messages_use_strapi_paths(client, admin):
    response = await client.post(
        "/api/articles", json={"data": {"title": "abc", "links": [{"label": "a"}]}}, headers=admin
    )
    assert response.json()["error"]["details"]["errors"] == [
        {
            "path": ["links", "0", "url"],
            "message": "links[0].url must be defined.",
            "name": "ValidationError",
        }
    ]
    response = await client.post(
        "/api/articles", json={"data": {"title": "abc", "seo": {}}}, headers=admin
    )
    assert response.json()["error"]["message"] == "seo.metaTitle must be defined."
    response = await client.post(
        "/api/articles",
        json={"data": {"title": "abc", "links": [{"label": "l", "url": "/u"}] * 11}},
        headers=admin,
    )
    assert (
        response.json()["error"]["message"]
        == "links field must have less than or equal to 10 items"
    )


async def test_min_and_required_on_repeatable_components_and_zones(start_app, tmp_path, admin):
    import json
    import shutil

    from tests.conftest import MODELS

    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    (models / "page.json").write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "collectionName": "pages",
                "info": {"singularName": "page", "pluralName": "pages"},
                "options": {"draftAndPublish": True},
                "attributes": {
                    "links": {
                        "type": "component",
                        "component": "shared.link",
                        "repeatable": True,
                        "min": 2,
                    },
                    "seo": {"type": "component", "component": "shared.seo", "required": True},
                    "blocks": {
                        "type": "dynamiczone",
                        "components": ["blocks.rich-text"],
                        "required": True,
                        "min": 1,
                    },
                },
            }
        )
    )
    handle = await start_app(models)
    seo = {"metaTitle": "t"}
    block = [{"__component": "blocks.rich-text", "body": "b"}]
    link = {"label": "l", "url": "/u"}

    async def post(data):
        return await handle.client.post("/api/pages", json={"data": data}, headers=admin)

    missing = (await post({})).json()["error"]["details"]["errors"]
    assert [e["path"] for e in missing] == [["seo"], ["blocks"]]
    too_few = (await post({"seo": seo, "blocks": block, "links": [link]})).json()["error"]
    assert too_few["message"] == "links field must have at least 2 items"
    empty_zone = (await post({"seo": seo, "blocks": []})).json()["error"]["details"]["errors"]
    assert ["blocks"] in [e["path"] for e in empty_zone]
    assert (
        await post({"seo": seo, "blocks": block})
    ).status_code == 200  # no links: min not applied
    assert (await post({"seo": seo, "blocks": block, "links": [link, link]})).status_code == 200
    assert (await post({"publishedAt": None})).status_code == 200  # drafts may be incomplete
