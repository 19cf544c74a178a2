"""Additive schema sync: restarting with a changed model adds, and never drops."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import create_async_engine

from contentapi.app import create_app
from tests.conftest import ADMIN_TOKEN, MODELS, AppHandle, make_settings

HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def _columns(handle: AppHandle, table: str) -> set[str]:
    async with handle.runtime.database.read() as conn:
        return await conn.run_sync(
            lambda sync: {c["name"] for c in inspect(sync).get_columns(table)}
        )


async def test_restart_with_new_attribute_keeps_rows_and_adds_column(databases, tmp_path: Path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    url = await databases.new_url()

    async with AppHandle(create_app(make_settings(url, models))) as first:
        created = await first.client.post(
            "/api/profiles", json={"data": {"headline": "Kept", "website": "w"}}, headers=HEADERS
        )
        assert created.status_code == 200

    model_path = models / "profile.json"
    model = json.loads(model_path.read_text())
    model["attributes"]["followers"] = {"type": "integer", "default": 0}
    del model["attributes"]["website"]
    model_path.write_text(json.dumps(model))

    async with AppHandle(create_app(make_settings(url, models))) as second:
        report = second.runtime.sync_report
        assert report.added_columns == ["profiles.followers"]
        assert report.orphan_columns == ["profiles.website"]
        assert report.created_tables == []
        columns = await _columns(second, "profiles")
        assert {"followers", "website", "headline"} <= columns
        listed = (await second.client.get("/api/profiles", headers=HEADERS)).json()["data"]
        assert listed == [
            {
                "id": 1,
                "attributes": {
                    "headline": "Kept",
                    "followers": None,
                    "createdAt": listed[0]["attributes"]["createdAt"],
                    "updatedAt": listed[0]["attributes"]["updatedAt"],
                },
            }
        ]
        updated = await second.client.put(
            "/api/profiles/1", json={"data": {"followers": 3}}, headers=HEADERS
        )
        assert updated.json()["data"]["attributes"]["followers"] == 3
        table = second.runtime.tables.entity("api::profile.profile")
        async with second.runtime.database.read() as conn:
            from sqlalchemy import text

            kept = (await conn.execute(text(f"SELECT website FROM {table.name}"))).scalar()
        assert kept == "w"  # the removed attribute's data is still there


async def test_restart_with_new_content_type_creates_its_tables(databases, tmp_path: Path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    url = await databases.new_url()
    async with AppHandle(create_app(make_settings(url, models))):
        pass
    (models / "tag.json").write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "collectionName": "tags",
                "info": {"singularName": "tag", "pluralName": "tags"},
                "options": {"draftAndPublish": False},
                "attributes": {
                    "label": {"type": "string"},
                    "articles": {
                        "type": "relation",
                        "relation": "manyToMany",
                        "target": "api::article.article",
                    },
                },
            }
        )
    )
    async with AppHandle(create_app(make_settings(url, models))) as second:
        assert sorted(second.runtime.sync_report.created_tables) == ["tags", "tags_articles_links"]
        response = await second.client.post(
            "/api/tags", json={"data": {"label": "x"}}, headers=HEADERS
        )
        assert response.status_code == 200


async def test_storage_layout_matches_strapi_names(app):
    expected = {
        "articles": {
            "id",
            "title",
            "slug",
            "reading_time",
            "views",
            "event_date",
            "event_time",
            "scheduled_at",
            "reviewed_at",
            "contact_email",
            "editor_notes",
            "created_at",
            "updated_at",
            "published_at",
            "created_by_id",
            "updated_by_id",
            "locale",
        },
        "articles_author_links": {"id", "article_id", "author_id", "article_order"},
        "articles_categories_links": {
            "id",
            "article_id",
            "category_id",
            "category_order",
            "article_order",
        },
        "articles_related_links": {"id", "article_id", "inv_article_id", "article_order"},
        "articles_localizations_links": {"id", "article_id", "inv_article_id", "article_order"},
        "authors_profile_links": {"id", "author_id", "profile_id"},
        "categories_parent_links": {"id", "category_id", "inv_category_id", "category_order"},
        "categories_featured_links": {"id", "category_id", "article_id"},
        "components_blocks_quotes_author_links": {"id", "quote_id", "author_id"},
        "articles_components": {
            "id",
            "entity_id",
            "component_id",
            "component_type",
            "field",
            "order",
        },
        "components_shared_seos_components": {
            "id",
            "entity_id",
            "component_id",
            "component_type",
            "field",
            "order",
        },
        "components_shared_seos": {"id", "meta_title", "meta_description"},
        "files_related_morphs": {"id", "file_id", "related_id", "related_type", "field", "order"},
        "strapi_api_tokens": {
            "id",
            "name",
            "description",
            "type",
            "access_key",
            "last_used_at",
            "expires_at",
            "lifespan",
            "created_at",
            "updated_at",
            "created_by_id",
            "updated_by_id",
        },
        "strapi_core_store_settings": {"id", "key", "value", "type", "environment", "tag"},
    }
    for table, columns in expected.items():
        found = await _columns(app, table)
        assert columns <= found, (table, columns - found)
    assert "password" not in await _columns(app, "articles")
    assert "published_at" not in await _columns(app, "authors")


async def test_link_tables_have_strapi_constraints_and_indexes(app):
    async with app.runtime.database.read() as conn:

        def read(sync):
            inspector = inspect(sync)
            return (
                {
                    tuple(u["column_names"])
                    for u in inspector.get_unique_constraints("articles_categories_links")
                },
                {i["name"] for i in inspector.get_indexes("articles_categories_links")},
                {tuple(u["column_names"]) for u in inspector.get_unique_constraints("articles")},
            )

        uniques, indexes, article_uniques = await conn.run_sync(read)
    assert ("article_id", "category_id") in uniques
    assert {
        "articles_categories_links_fk",
        "articles_categories_links_inv_fk",
        "articles_categories_links_order_fk",
        "articles_categories_links_order_inv_fk",
    } <= indexes
    assert ("slug",) in article_uniques  # every uid is backed by a unique constraint


async def _indexes(handle: AppHandle, table: str) -> dict[str, list[str]]:
    async with handle.runtime.database.read() as conn:
        return await conn.run_sync(
            lambda sync: {
                str(index["name"]): list(index["column_names"])
                for index in inspect(sync).get_indexes(table)
            }
        )


async def _a_profile_stored(databases, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the example models and a database holding one profile (``Kept``), the app
    stopped: the models can then change before the next start."""
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    url = await databases.new_url()
    async with AppHandle(create_app(make_settings(url, models))) as first:
        created = await first.client.post(
            "/api/profiles", json={"data": {"headline": "Kept"}}, headers=HEADERS
        )
        assert created.status_code == 200
        assert "profiles_headline_index" not in await _indexes(first, "profiles")
    return models, url


async def test_an_index_asked_for_by_the_model_is_added_to_an_existing_table(
    databases, tmp_path: Path
):
    """``pluginOptions.contentapi.index`` on an attribute: the column gets an index, also on a
    table that already holds rows (additively, as Strapi's own databases need)."""
    models, url = await _a_profile_stored(databases, tmp_path)
    model_path = models / "profile.json"
    model = json.loads(model_path.read_text())
    model["attributes"]["headline"]["pluginOptions"] = {"contentapi": {"index": True}}
    model_path.write_text(json.dumps(model))

    async with AppHandle(create_app(make_settings(url, models))) as second:
        assert second.runtime.sync_report.created_indexes == ["profiles_headline_index"]
        assert (await _indexes(second, "profiles"))["profiles_headline_index"] == ["headline"]
        listed = await second.client.get(
            "/api/profiles?filters[headline][$eq]=Kept&sort=headline", headers=HEADERS
        )
        assert [entry["id"] for entry in listed.json()["data"]] == [1]


async def test_indexes_asked_for_by_a_content_type_are_built_on_an_existing_table(
    databases, tmp_path: Path
):
    """``pluginOptions.contentapi.indexes`` on a content type: multi-column indexes, added to
    a table that already holds rows — on PostgreSQL with ``CREATE INDEX CONCURRENTLY`` after
    the sync's transaction (db/sync.py), an invalid one a failed build left rebuilt."""
    models, url = await _a_profile_stored(databases, tmp_path)
    postgresql = url.startswith("postgresql")
    if postgresql:  # what an interrupted CONCURRENTLY build leaves: an invalid index
        engine = create_async_engine(url)
        async with engine.begin() as conn:
            await conn.execute(
                text("CREATE INDEX profiles_headline_created_at_index ON profiles (id)")
            )
            await conn.execute(
                text(
                    "UPDATE pg_index SET indisvalid = false WHERE indexrelid = "
                    "'profiles_headline_created_at_index'::regclass"
                )
            )
        await engine.dispose()

    model_path = models / "profile.json"
    model = json.loads(model_path.read_text())
    model["pluginOptions"] = {"contentapi": {"indexes": [["headline", "createdAt"]]}}
    model_path.write_text(json.dumps(model))

    statements: list[str] = []
    engine_events = "before_cursor_execute"

    def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(Engine, engine_events, record)
    try:
        async with AppHandle(create_app(make_settings(url, models))) as second:
            report = second.runtime.sync_report
            assert report.created_indexes == ["profiles_headline_created_at_index"]
            indexes = await _indexes(second, "profiles")
            assert indexes["profiles_headline_created_at_index"] == ["headline", "created_at"]
            listed = await second.client.get(
                "/api/profiles?filters[headline][$eq]=Kept&sort=createdAt", headers=HEADERS
            )
            assert [entry["id"] for entry in listed.json()["data"]] == [1]
            if postgresql:
                async with second.runtime.database.read() as conn:
                    valid = await conn.scalar(
                        text(
                            "SELECT indisvalid FROM pg_index WHERE indexrelid = "
                            "'profiles_headline_created_at_index'::regclass"
                        )
                    )
                assert valid is True
    finally:
        event.remove(Engine, engine_events, record)
    creates = [s for s in statements if "profiles_headline_created_at_index" in s]
    if postgresql:
        assert any(s.startswith("DROP INDEX CONCURRENTLY") for s in creates), creates
        assert any(s.startswith("CREATE INDEX CONCURRENTLY") for s in creates), creates
    else:
        assert any(s.startswith("CREATE INDEX profiles_headline") for s in creates), creates


def test_the_head_revision_read_from_the_files_is_alembics():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from contentapi.db.sync import MIGRATIONS_DIR, head_revision

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_heads() == [head_revision()]


_START_AND_REPORT = """
import asyncio, sys
from contentapi.config import Settings
from contentapi.runtime import Runtime

async def main():
    runtime = Runtime.build(Settings())
    await runtime.start()
    await runtime.stop()
    print("alembic imported" if "alembic" in sys.modules else "alembic not imported")

asyncio.run(main())
"""


async def test_a_worker_on_an_up_to_date_database_does_not_load_alembic(databases):
    """Each worker process runs the start-up sync; when the database is already at the newest
    migration it must not import alembic at all (about 12 MB of memory per worker)."""
    url = await databases.new_url()
    environment = {
        **os.environ,
        "CONTENTAPI_DATABASE_URL": url,
        "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", _START_AND_REPORT],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    assert [run.stdout.strip().splitlines()[-1] for run in runs] == [
        "alembic imported",  # the first start migrates
        "alembic not imported",
    ], [run.stderr[-2000:] for run in runs]
