"""A database the real Strapi 4.25 wrote, served by contentapi unchanged (PostgreSQL).

``tests/fixtures/strapi-db/`` holds a plain ``pg_dump`` of a Strapi 4.25 database seeded through
Strapi's own APIs (``seed_strapi.py`` made it, see the README there), Strapi's recorded answers
to REST and GraphQL requests, and the settings to reproduce them (``API_TOKEN_SALT``, the JWT
secret, token secrets, user passwords). The dump is restored into a fresh database, contentapi
starts on it with the same models and secrets, and:

- every recorded answer is answered identically, ids and timestamps included — except where
  contentapi differs on purpose (docs/differences-from-strapi.md; ``expected.py`` derives those
  answers from Strapi's);
- the recorded users sign in with their passwords (Strapi's bcrypt hashes), the hashes stay;
- the three API tokens Strapi made work with their types;
- a write through contentapi is read back, next to Strapi's rows;
- start-up changed nothing Strapi made: every table, column, index and constraint of the dump
  is still there and the same, only contentapi's own objects were added, and the rows of
  Strapi's tables are byte-for-byte what they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from contentapi.app import create_app
from tests.api.strapi_db.expected import DELIBERATE, normalise
from tests.api.strapi_db.snapshot import Snapshot, read_users, take_snapshot
from tests.conftest import BACKENDS, MODELS, POSTGRES_ADMIN_URL, AppHandle, make_settings
from tests.support.pgdump import restored_database

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "strapi-db"
SETTINGS = json.loads((FIXTURE / "settings.json").read_text())
ANSWERS = json.loads((FIXTURE / "answers.json").read_text())

#: The tables contentapi adds to a Strapi database (nothing else is created there).
OWN_TABLES = {
    "alembic_version",
    "contentapi_rate_limits",
    "contentapi_events",
    "contentapi_webhook_deliveries",
}
#: The trigger functions contentapi adds (``db/notify.py``: LISTEN/NOTIFY of changes).
NOTIFY_FUNCTIONS = {
    "contentapi_auth_changed",
    "contentapi_content_changed",
    "contentapi_locales_changed",
}

# Strapi's generated JWT secret is 16 random bytes in base64 (24 characters): PyJWT finds it
# short, but it is the secret Strapi's users' tokens are signed with.
pytestmark = pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")


class StrapiDatabase:
    """The restored database, contentapi running on it, and the snapshots around start-up."""

    def __init__(
        self, handle: AppHandle, before: Snapshot, after: Snapshot, engine: AsyncEngine
    ) -> None:
        self.handle = handle
        self.before = before
        self.after = after
        self.engine = engine
        self.jwts: dict[str, str] = {}

    async def users(self) -> list[dict[str, Any]]:
        return await read_users(self.engine)

    async def headers(self, caller: str) -> dict[str, str]:
        if caller == "public":
            return {}
        if caller in SETTINGS["tokens"]:
            return {"Authorization": f"Bearer {SETTINGS['tokens'][caller]}"}
        if caller not in self.jwts:
            user = SETTINGS["users"][caller]
            signed = await self.handle.client.post(
                "/api/auth/local", json={"identifier": caller, "password": user["password"]}
            )
            assert signed.status_code == 200, signed.text
            self.jwts[caller] = signed.json()["jwt"]
        return {"Authorization": f"Bearer {self.jwts[caller]}"}


@pytest.fixture(scope="module")
async def strapi_db():
    """Not parametrized by ``backend``: the fixture exists for PostgreSQL only."""
    if "postgres" not in BACKENDS:
        pytest.skip("the fixture is a PostgreSQL database (CONTENTAPI_TEST_BACKENDS leaves it out)")
    async with restored_database(
        POSTGRES_ADMIN_URL, FIXTURE / "strapi.sql", "contentapi_test_strapi"
    ) as url:
        engine = create_async_engine(url)
        try:
            before = await take_snapshot(engine)
            settings = make_settings(
                url,
                MODELS,
                admin_token=None,
                api_token_salt=SETTINGS["api_token_salt"],
                jwt_secret=SETTINGS["jwt_secret"],
                locales=SETTINGS["locales"],
            )
            handle = AppHandle(create_app(settings))
            await handle.__aenter__()
            try:
                after = await take_snapshot(engine)
                yield StrapiDatabase(handle, before, after, engine)
            finally:
                await handle.__aexit__()
        finally:
            await engine.dispose()


def _label(answer: dict[str, Any]) -> str:
    return f"{answer['caller']} {answer['method']} {answer['path'][:80]}"


@pytest.mark.parametrize("recorded", ANSWERS, ids=_label)
async def test_every_recorded_answer(strapi_db: StrapiDatabase, recorded: dict[str, Any]):
    client = strapi_db.handle.client
    response = await client.request(
        recorded["method"],
        recorded["path"],
        json=recorded["body"],
        headers=await strapi_db.headers(recorded["caller"]),
    )
    deliberate = DELIBERATE.get((recorded["method"], recorded["path"]))
    if deliberate is not None:
        assert (response.status_code, response.json()["error"]["name"]) == deliberate
        return
    assert response.status_code == recorded["status"], response.text
    assert response.json() == normalise(recorded, recorded["answer"])


async def test_users_sign_in_with_their_strapi_passwords(strapi_db: StrapiDatabase):
    client = strapi_db.handle.client
    before = {row["username"]: row["password"] for row in strapi_db.before.users}
    for name, user in SETTINGS["users"].items():
        for identifier in (name, user["email"].upper()):
            response = await client.post(
                "/api/auth/local", json={"identifier": identifier, "password": user["password"]}
            )
            if name == "dave":  # blocked in Strapi
                assert response.status_code == 400
                assert response.json()["error"]["message"] == (
                    "Your account has been blocked by an administrator"
                )
                continue
            assert response.status_code == 200, response.text
            assert response.json()["user"]["id"] == SETTINGS["ids"][name]
            me = await client.get(
                "/api/users/me", headers={"Authorization": f"Bearer {response.json()['jwt']}"}
            )
            assert me.status_code == (403 if user["role"] == "public" else 200)
        wrong = await client.post(
            "/api/auth/local", json={"identifier": name, "password": user["password"] + "x"}
        )
        assert wrong.status_code == 400
    after = {row["username"]: row["password"] for row in (await strapi_db.users())}
    assert after == before  # Strapi's hashes are never rewritten


async def test_tokens_work_with_their_types(strapi_db: StrapiDatabase):
    client = strapi_db.handle.client
    tokens = {kind: await strapi_db.headers(kind) for kind in SETTINGS["tokens"]}
    body = {"data": {"name": "Token check", "slug": "token-check"}}
    assert (await client.get("/api/authors", headers=tokens["read-only"])).status_code == 200
    assert (
        await client.post("/api/categories", json=body, headers=tokens["read-only"])
    ).status_code == 403
    assert (await client.get("/api/articles", headers=tokens["custom"])).status_code == 200
    assert (await client.get("/api/profiles", headers=tokens["custom"])).status_code == 403
    assert (
        await client.post("/api/categories", json=body, headers=tokens["custom"])
    ).status_code == 403
    created = await client.post("/api/categories", json=body, headers=tokens["full-access"])
    assert created.status_code == 200, created.text
    deleted = await client.delete(
        f"/api/categories/{created.json()['data']['id']}", headers=tokens["full-access"]
    )
    assert deleted.status_code == 200
    forged = {"Authorization": "Bearer " + "0" * 256}
    assert (await client.get("/api/authors", headers=forged)).status_code == 401


async def test_a_write_is_read_back_beside_strapis_rows(strapi_db: StrapiDatabase):
    client = strapi_db.handle.client
    full = await strapi_db.headers("full-access")
    ids = SETTINGS["ids"]
    data = {
        "title": "Written by contentapi",
        "slug": "written-by-contentapi",
        "kind": "news",
        "views": "9007199254740995",
        "price": 1.25,
        "author": ids["a2"],
        "categories": {"connect": [ids["c3"], {"id": ids["c1"], "position": {"start": True}}]},
        "related": [ids["r1"]],
        "cover": ids["cover.png"],
        "seo": {"metaTitle": "Written", "keywords": [{"label": "k", "url": "/k"}]},
        "blocks": [
            {"__component": "blocks.quote", "body": "Quoted", "author": ids["a1"]},
            {"__component": "blocks.media", "file": ids["notes.txt"]},
        ],
    }
    created = await client.post("/api/articles?populate=*", json={"data": data}, headers=full)
    assert created.status_code == 200, created.text
    entry = created.json()["data"]
    assert entry["id"] > max(ids[key] for key in ("r1", "r2", "r3", "r4", "r5", "r1-fr"))
    populate = (
        "populate[author][fields][0]=name&populate[categories][fields][0]=name"
        "&populate[related][fields][0]=title&populate[cover][fields][0]=name"
        "&populate[seo][populate]=*&populate[blocks][populate]=*"
    )
    read = (await client.get(f"/api/articles/{entry['id']}?{populate}", headers=full)).json()
    attributes = read["data"]["attributes"]
    assert attributes["title"] == "Written by contentapi"
    assert attributes["views"] == "9007199254740995"
    assert attributes["author"]["data"]["attributes"]["name"] == "Alan Turing"
    names = [c["attributes"]["name"] for c in attributes["categories"]["data"]]
    assert names == ["Science", "History"]
    assert attributes["related"]["data"][0]["id"] == ids["r1"]
    assert attributes["cover"]["data"]["attributes"]["name"] == "cover.png"
    assert attributes["seo"]["keywords"][0]["label"] == "k"
    assert [b["__component"] for b in attributes["blocks"]] == ["blocks.quote", "blocks.media"]
    assert attributes["blocks"][0]["author"]["data"]["attributes"]["name"] == "Ada Lovelace"
    assert attributes["blocks"][1]["file"]["data"]["attributes"]["name"] == "notes.txt"
    # Strapi's side of the relation sees it too, in Strapi's link order
    category = await client.get(
        f"/api/categories/{ids['c3']}?populate[articles][fields][0]=title&populate[articles][sort]=id",
        headers=full,
    )
    titles = [
        a["attributes"]["title"] for a in category.json()["data"]["attributes"]["articles"]["data"]
    ]
    assert titles == ["Compilers for everyone", "Written by contentapi"]
    # an upload goes in Strapi's "API Uploads" folder, after the files Strapi put there
    uploaded = await client.post(
        "/api/upload", files={"files": ("more.txt", b"more", "text/plain")}, headers=full
    )
    assert uploaded.status_code == 200, uploaded.text
    file_id = uploaded.json()[0]["id"]
    async with strapi_db.engine.connect() as conn:
        filed = await conn.execute(
            text(
                "SELECT f.folder_path, l.folder_id, l.file_order FROM files f "
                "JOIN files_folder_links l ON l.file_id = f.id WHERE f.id = :id"
            ),
            {"id": file_id},
        )
        assert tuple(filed.one()) == ("/1", 1, 4.0)
    # a user registered here gets a hash Strapi verifies (bcrypt, cost 10)
    registered = await client.post(
        "/api/auth/local/register",
        json={"username": "frank", "email": "frank@example.com", "password": "Frank-Passw0rd"},
    )
    assert registered.status_code == 200, registered.text
    users = {row["username"]: row["password"] for row in await strapi_db.users()}
    assert users["frank"].startswith("$2a$10$")


async def test_start_up_changed_nothing_strapi_made(strapi_db: StrapiDatabase):
    before, after = strapi_db.before, strapi_db.after
    assert {"up_users", "articles", "admin_users", "strapi_api_tokens"} <= set(before.rows)
    kinds = ("tables", "columns", "indexes", "constraints", "sequences", "triggers", "functions")
    for kind in kinds:
        old, new = getattr(before, kind), getattr(after, kind)
        missing_or_changed = {key: value for key, value in old.items() if new.get(key) != value}
        assert not missing_or_changed, f"{kind} changed by start-up: {missing_or_changed}"
    added_tables = set(after.tables) - set(before.tables)
    assert added_tables == OWN_TABLES
    added_columns = {
        key for key in set(after.columns) - set(before.columns) if key[0] not in OWN_TABLES
    }
    assert not added_columns, f"columns added to Strapi's tables: {added_columns}"
    changed_rows = {
        table: digest for table, digest in before.rows.items() if after.rows.get(table) != digest
    }
    assert not changed_rows, f"start-up wrote to Strapi's tables: {sorted(changed_rows)}"
    # what may be added: contentapi's own tables with their indexes and keys, and the
    # statement-level triggers (and their three functions) that tell other workers of changes
    for kind in ("indexes", "constraints"):
        added = {key for key in set(getattr(after, kind)) - set(getattr(before, kind))}
        assert {table for table, _ in added} <= OWN_TABLES, added
    added_triggers = set(after.triggers) - set(before.triggers)
    assert added_triggers and {name for _, name in added_triggers} <= NOTIFY_FUNCTIONS
    assert set(after.functions) - set(before.functions) == NOTIFY_FUNCTIONS
