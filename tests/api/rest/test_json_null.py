"""A JSON attribute set to ``null`` holds SQL NULL, as in Strapi: ``$null`` and ``$notNull``
tell it from a JSON value (the reference answered ``$null=true`` with the entries created or
updated with ``"metadata": null`` and those created without it)."""

from __future__ import annotations

from sqlalchemy import text

from contentapi.app import create_app
from contentapi.db.sync import head_revision
from tests.conftest import ADMIN_TOKEN, AppHandle, make_settings

HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def _create(client, title: str, **data) -> int:
    body = {"data": {"title": title, **data}}
    response = await client.post("/api/articles", json=body, headers=HEADERS)
    assert response.status_code == 200, response.text
    return int(response.json()["data"]["id"])


async def _titles(client, query: str) -> list[str]:
    response = await client.get(f"/api/articles?{query}&fields[0]=title", headers=HEADERS)
    assert response.status_code == 200, response.text
    return [entry["attributes"]["title"] for entry in response.json()["data"]]


async def _sql_null(handle: AppHandle, entry_id: int) -> bool:
    async with handle.runtime.database.read() as conn:
        found = await conn.execute(
            text("SELECT metadata IS NULL FROM articles WHERE id = :id"), {"id": entry_id}
        )
        return bool(found.scalar_one())


async def test_json_attribute_set_to_null_is_found_by_null_filters(app, client, admin):
    sent_null = await _create(client, "sent null", metadata=None)
    await _create(client, "null inside", metadata={"a": None})
    await _create(client, "omitted")
    updated = await _create(client, "updated to null", metadata={"x": 1})
    response = await client.put(
        f"/api/articles/{updated}", json={"data": {"metadata": None}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["attributes"]["metadata"] is None

    assert await _sql_null(app, sent_null) and await _sql_null(app, updated)
    assert await _titles(client, "filters[metadata][$null]=true") == [
        "sent null",
        "omitted",
        "updated to null",
    ]
    assert await _titles(client, "filters[metadata][$notNull]=true") == ["null inside"]


async def test_json_null_copied_to_localizations_is_sql_null(app, client, admin):
    source = await _create(client, "Hello", metadata={"x": 1})
    french = await client.post(
        f"/api/articles/{source}/localizations",
        json={"locale": "fr", "title": "Bonjour"},
        headers=admin,
    )
    assert french.status_code == 200, french.text
    # copied to the localizations the answer populates (drafts included: a PUT's answer)
    await client.put(
        f"/api/articles/{source}?populate=localizations",
        json={"data": {"metadata": None}},
        headers=admin,
    )
    assert await _sql_null(app, french.json()["id"])

    german_source = await _create(client, "Unset", metadata=None)
    copied = await client.post(
        f"/api/articles/{german_source}/localizations",
        json={"locale": "fr", "title": "Pas défini"},
        headers=admin,
    )
    assert copied.status_code == 200, copied.text
    assert await _sql_null(app, copied.json()["id"])


async def test_migration_turns_stored_json_null_literals_into_sql_null(databases):
    url = await databases.new_url()
    async with AppHandle(create_app(make_settings(url))) as before:
        literal = await _create(before.client, "literal null", metadata={"x": 1})
        string = await _create(before.client, "string null", metadata="null")
        kept = await _create(before.client, "kept", metadata={"x": 1})
        async with before.runtime.database.write() as conn:
            # What earlier versions wrote for "metadata": null, and a database at 0002.
            await conn.execute(
                text("UPDATE articles SET metadata = 'null' WHERE id = :id"), {"id": literal}
            )
            await conn.execute(text("UPDATE alembic_version SET version_num = '0002'"))
        assert not await _sql_null(before, literal)

    async with AppHandle(create_app(make_settings(url))) as after:
        assert await _sql_null(after, literal)
        assert not await _sql_null(after, string) and not await _sql_null(after, kept)
        assert await _titles(after.client, "filters[metadata][$null]=true") == ["literal null"]
        fetched = await after.client.get(f"/api/articles/{string}", headers=HEADERS)
        assert fetched.json()["data"]["attributes"]["metadata"] == "null"
        async with after.runtime.database.read() as conn:
            version = await conn.execute(text("SELECT version_num FROM alembic_version"))
            assert version.scalar_one() == head_revision()  # 0003 and any later migration
