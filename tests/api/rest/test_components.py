"""Components and dynamic zones: create, update in place, replace, reorder, delete; media ids."""

from __future__ import annotations

from sqlalchemy import func, select

from tests.api.rest.helpers import create, nested


async def _rows(app, table_name: str) -> int:
    table = app.runtime.tables.metadata.tables[table_name]
    async with app.runtime.database.read() as conn:
        return int((await conn.execute(select(func.count()).select_from(table))).scalar_one())


async def _add_file(app, name: str = "a.png", mime: str = "image/png") -> int:
    files = app.runtime.tables.files
    async with app.runtime.database.write() as conn:
        result = await conn.execute(
            files.insert()
            .values(
                name=name,
                mime=mime,
                ext=".png",
                hash=name,
                url=f"/uploads/{name}",
                size=1.0,
                provider="local",
            )
            .returning(files.c.id)
        )
        return int(result.scalar_one())


FULL = {
    "title": "With components",
    "seo": {
        "metaTitle": "Meta",
        "keywords": [{"label": "k1", "url": "/k1"}, {"label": "k2", "url": "/k2"}],
    },
    "links": [{"label": "One", "url": "/1"}, {"label": "Two", "url": "/2", "newTab": True}],
    "blocks": [
        {"__component": "blocks.quote", "body": "Quoted", "title": "Q"},
        {"__component": "blocks.rich-text", "body": "# Rich"},
    ],
}


async def test_components_and_dynamic_zone_round_trip(app, client, admin):
    author = await create(client, admin, "authors")
    body = {**FULL, "blocks": [{**FULL["blocks"][0], "author": author}, FULL["blocks"][1]]}
    article = await create(client, admin, "articles", **body)
    state = await nested(app, "articles", article)
    assert state["seo"] == {
        "id": 1,
        "metaTitle": "Meta",
        "metaDescription": None,
        "shareImage": None,
        "keywords": [
            {"id": 1, "label": "k1", "url": "/k1", "newTab": False},
            {"id": 2, "label": "k2", "url": "/k2", "newTab": False},
        ],
    }
    assert state["links"] == [
        {"id": 3, "label": "One", "url": "/1", "newTab": False},
        {"id": 4, "label": "Two", "url": "/2", "newTab": True},
    ]
    assert state["blocks"] == [
        {"__component": "blocks.quote", "id": 1, "title": "Q", "body": "Quoted", "author": author},
        {"__component": "blocks.rich-text", "id": 1, "body": "# Rich"},
    ]


async def test_repeatable_update_keeps_ids_in_place_creates_new_and_deletes_omitted(
    app, client, admin
):
    article = await create(client, admin, "articles", **FULL)
    links = (await nested(app, "articles", article))["links"]
    response = await client.put(
        f"/api/articles/{article}",
        json={
            "data": {
                "links": [{"label": "New", "url": "/n"}, {"id": links[1]["id"], "label": "Two!"}]
            }
        },
        headers=admin,
    )
    assert response.status_code == 200, response.text
    after = (await nested(app, "articles", article))["links"]
    assert after[0]["label"] == "New" and after[0]["id"] not in (links[0]["id"], links[1]["id"])
    assert after[1] == {**links[1], "label": "Two!"}  # updated in place, other fields kept
    # "One" was omitted: its row is gone (two seo keywords + two links remain).
    assert await _rows(app, "components_shared_links") == 4


async def test_single_component_with_id_updates_in_place_and_without_id_replaces(
    app, client, admin
):
    article = await create(client, admin, "articles", **FULL)
    seo = (await nested(app, "articles", article))["seo"]
    await client.put(
        f"/api/articles/{article}",
        json={"data": {"seo": {"id": seo["id"], "metaDescription": "d"}}},
        headers=admin,
    )
    updated = (await nested(app, "articles", article))["seo"]
    assert (
        updated["id"] == seo["id"]
        and updated["metaTitle"] == "Meta"
        and updated["metaDescription"] == "d"
    )
    assert len(updated["keywords"]) == 2  # nested components untouched by a partial update
    await client.put(
        f"/api/articles/{article}", json={"data": {"seo": {"metaTitle": "Fresh"}}}, headers=admin
    )
    replaced = (await nested(app, "articles", article))["seo"]
    assert (
        replaced["id"] != seo["id"]
        and replaced["metaTitle"] == "Fresh"
        and replaced["keywords"] == []
    )
    assert await _rows(app, "components_shared_seos") == 1
    assert await _rows(app, "components_shared_links") == 2  # the old seo's keywords went with it
    await client.put(f"/api/articles/{article}", json={"data": {"seo": None}}, headers=admin)
    assert (await nested(app, "articles", article))["seo"] is None
    assert await _rows(app, "components_shared_seos") == 0


async def test_dynamic_zone_is_replaced_in_the_given_order(app, client, admin):
    article = await create(client, admin, "articles", **FULL)
    blocks = (await nested(app, "articles", article))["blocks"]
    response = await client.put(
        f"/api/articles/{article}",
        json={
            "data": {
                "blocks": [
                    {"__component": "blocks.rich-text", "id": blocks[1]["id"], "body": "edited"},
                    {"__component": "blocks.quote", "body": "A new quote"},
                ]
            }
        },
        headers=admin,
    )
    assert response.status_code == 200, response.text
    after = (await nested(app, "articles", article))["blocks"]
    assert [(b["__component"], b["body"]) for b in after] == [
        ("blocks.rich-text", "edited"),
        ("blocks.quote", "A new quote"),
    ]
    assert after[0]["id"] == blocks[1]["id"]
    assert await _rows(app, "components_blocks_quotes") == 1  # the old quote is gone


async def test_media_ids_are_set_on_entries_and_inside_components(app, client, admin):
    image, other, text = (
        await _add_file(app, "a.png"),
        await _add_file(app, "b.png"),
        await _add_file(app, "c.txt", "text/plain"),
    )
    article = await create(
        client,
        admin,
        "articles",
        cover=image,
        gallery=[other, image],
        seo={"metaTitle": "M", "shareImage": other},
        blocks=[{"__component": "blocks.media", "file": text}],
    )
    state = await nested(app, "articles", article)
    assert (state["cover"], state["gallery"]) == (image, [other, image])
    assert state["seo"]["shareImage"] == other
    assert state["blocks"][0]["file"] == text
    await client.put(
        f"/api/articles/{article}",
        json={"data": {"gallery": [image], "cover": None}},
        headers=admin,
    )
    state = await nested(app, "articles", article)
    assert (state["cover"], state["gallery"]) == (None, [image])


async def test_deleting_an_entry_removes_what_it_owns_and_nothing_else(app, client, admin):
    author = await create(client, admin, "authors")
    category = await create(client, admin, "categories")
    image = await _add_file(app)
    body = {
        **FULL,
        "author": author,
        "categories": [category],
        "cover": image,
        "blocks": [{**FULL["blocks"][0], "author": author}],
    }
    keep = await create(client, admin, "articles", **body)
    gone = await create(client, admin, "articles", **body)
    counts = {
        name: await _rows(app, name)
        for name in (
            "components_shared_seos",
            "components_shared_links",
            "components_blocks_quotes",
            "components_blocks_quotes_author_links",
            "articles_components",
            "components_shared_seos_components",
            "articles_author_links",
            "articles_categories_links",
            "files_related_morphs",
        )
    }
    response = await client.delete(f"/api/articles/{gone}", headers=admin)
    assert response.status_code == 200
    for name, before in counts.items():
        assert await _rows(app, name) == before // 2, name
    assert (
        await _rows(app, "authors") == 1
        and await _rows(app, "categories") == 1
        and await _rows(app, "files") == 1
    )
    assert (await nested(app, "articles", keep))["seo"]["metaTitle"] == "Meta"
    assert (await nested(app, "authors", author))["articles"] == [keep]
