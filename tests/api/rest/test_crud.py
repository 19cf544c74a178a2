"""Collection-type CRUD: envelopes, partial updates, delete, draft & publish, default page."""

from __future__ import annotations


async def test_create_update_delete_round_trip(client, admin):
    created = await client.post(
        "/api/categories", json={"data": {"name": "News", "slug": "news"}}, headers=admin
    )
    assert created.status_code == 200
    entry = created.json()["data"]
    assert entry["attributes"]["name"] == "News"
    assert entry["attributes"]["createdAt"] == entry["attributes"]["updatedAt"]

    updated = await client.put(
        "/api/categories/1", json={"data": {"description": "All news"}}, headers=admin
    )
    assert updated.status_code == 200
    attributes = updated.json()["data"]["attributes"]
    assert attributes["name"] == "News"  # a PUT is partial
    assert attributes["description"] == "All news"
    assert attributes["createdAt"] == entry["attributes"]["createdAt"]
    assert attributes["updatedAt"] >= attributes["createdAt"]

    empty_update = await client.put("/api/categories/1", json={"data": {}}, headers=admin)
    assert empty_update.status_code == 200

    deleted = await client.delete("/api/categories/1", headers=admin)
    assert deleted.status_code == 200
    assert deleted.json()["data"]["attributes"]["description"] == "All news"
    assert deleted.json()["meta"] == {}
    assert (await client.get("/api/categories/1", headers=admin)).status_code == 404
    assert (await client.delete("/api/categories/1", headers=admin)).status_code == 404


async def test_deleted_ids_are_not_reused(client, admin):
    for name in ("a", "b"):
        await client.post(
            "/api/categories", json={"data": {"name": name, "slug": name}}, headers=admin
        )
    await client.delete("/api/categories/2", headers=admin)
    again = await client.post(
        "/api/categories", json={"data": {"name": "c", "slug": "c"}}, headers=admin
    )
    assert again.json()["data"]["id"] == 3


async def test_default_page_is_25_in_id_order_with_pagination_meta(client, admin):
    for index in range(30):
        response = await client.post(
            "/api/categories",
            json={"data": {"name": f"c{index}", "slug": f"c{index}"}},
            headers=admin,
        )
        assert response.status_code == 200
    await client.put("/api/categories/1", json={"data": {"description": "moved?"}}, headers=admin)
    listed = (await client.get("/api/categories", headers=admin)).json()
    assert [entry["id"] for entry in listed["data"]] == list(range(1, 26))
    assert listed["meta"] == {
        "pagination": {"page": 1, "pageSize": 25, "pageCount": 2, "total": 30}
    }


async def test_empty_list_meta(client, admin):
    listed = (await client.get("/api/categories", headers=admin)).json()
    assert listed == {
        "data": [],
        "meta": {"pagination": {"page": 1, "pageSize": 25, "pageCount": 0, "total": 0}},
    }


async def test_post_publishes_unless_published_at_is_null(client, admin):
    published = await client.post(
        "/api/articles", json={"data": {"title": "Live one"}}, headers=admin
    )
    assert published.json()["data"]["attributes"]["publishedAt"] is not None
    draft = await client.post(
        "/api/articles", json={"data": {"title": "Draft one", "publishedAt": None}}, headers=admin
    )
    assert draft.status_code == 200
    assert draft.json()["data"]["attributes"]["publishedAt"] is None
    listed = (await client.get("/api/articles", headers=admin)).json()
    assert [entry["id"] for entry in listed["data"]] == [1]
    assert listed["meta"]["pagination"]["total"] == 1
    # docs/differences-from-strapi.md: a draft is not found in the default `live` state.
    assert (await client.get("/api/articles/2", headers=admin)).status_code == 404
    published_later = await client.put(
        "/api/articles/2", json={"data": {"publishedAt": "2024-01-01T00:00:00Z"}}, headers=admin
    )
    assert published_later.json()["data"]["attributes"]["publishedAt"] == "2024-01-01T00:00:00.000Z"
    assert (await client.get("/api/articles/2", headers=admin)).status_code == 200
    unpublished = await client.put(
        "/api/articles/1", json={"data": {"publishedAt": None}}, headers=admin
    )
    assert unpublished.json()["data"]["attributes"]["publishedAt"] is None
    listed = (await client.get("/api/articles", headers=admin)).json()
    assert [entry["id"] for entry in listed["data"]] == [2]


async def test_localized_entries_default_to_the_default_locale(client, admin):
    english = await client.post("/api/articles", json={"data": {"title": "Hello"}}, headers=admin)
    assert english.json()["data"]["attributes"]["locale"] == "en"
    french = await client.post(
        "/api/articles", json={"data": {"title": "Bonjour", "locale": "fr"}}, headers=admin
    )
    assert french.json()["data"]["attributes"]["locale"] == "fr"
    kept = await client.put("/api/articles/2", json={"data": {"locale": "en"}}, headers=admin)
    assert kept.json()["data"]["attributes"]["locale"] == "fr"  # the locale is fixed at creation
    listed = (await client.get("/api/articles", headers=admin)).json()
    assert [entry["id"] for entry in listed["data"]] == [1]  # the default locale's entries


async def test_non_localized_types_have_no_locale_nor_published_at(client, admin):
    created = await client.post("/api/profiles", json={"data": {"headline": "Hi"}}, headers=admin)
    assert set(created.json()["data"]["attributes"]) == {
        "headline",
        "website",
        "createdAt",
        "updatedAt",
    }
