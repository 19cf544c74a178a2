"""`make diff DIFF_ARGS=--roundtrip`: the way back — Strapi started again after contentapi wrote.

1. The Strapi-database fixture (``tests/fixtures/strapi-db/strapi.sql``, a database the real
   Strapi 4.25 wrote) is restored into a fresh PostgreSQL database ``strapi_roundtrip``.
2. contentapi starts on it (in-process, the fixture's ``API_TOKEN_SALT`` and JWT secret) and
   writes through its public API: an article with relations, components, a dynamic zone and
   media, an update that reorders a relation, a French localization, an upload, a registered
   user, a changed role, the single type, a deletion.
3. contentapi's answers to a set of reads (the fixture's recorded requests plus reads of what
   it wrote) are kept; contentapi stops.
4. The reference Strapi starts on the same database (same salt and JWT secret). It must start;
   then it gets the same reads, and every answer is compared with contentapi's (Strapi's side
   normalised where contentapi differs on purpose — docs/differences-from-strapi.md,
   ``tests/api/strapi_db/expected.py``);
   the fixture's users and the user contentapi registered sign in to Strapi with their
   passwords, a JWT contentapi issued is accepted by Strapi, and the three API tokens work
   there.

The result is printed and written to ``diff/results/roundtrip.json``; the exit status is 1 when
anything differs. Needs the reference Strapi as ``make diff`` does.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import tempfile
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from bench.servers import recreate_database
from PIL import Image
from tests.api.strapi_db.expected import DELIBERATE, normalise
from tests.support.pgdump import restore_plain_dump

from contentapi.app import create_app
from contentapi.config import Settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "strapi-db"
RESULTS = Path(__file__).resolve().parent / "results"
# Strapi's generated JWT secret (24 characters) is short for PyJWT's taste; it is the database's.
warnings.filterwarnings("ignore", message="The HMAC key is")
PG_ADMIN = os.environ.get("DIFF_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
DATABASE = "strapi_roundtrip"

Request = dict[str, Any]


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (20, 10), (10, 120, 10)).save(out, format="PNG")
    return out.getvalue()


class Caller:
    """Headers per caller on one server: API tokens by type, users signed in there."""

    def __init__(self, client: httpx.AsyncClient, settings: dict[str, Any]) -> None:
        self.client = client
        self.settings = settings
        self.jwts: dict[str, str] = {}

    async def headers(self, caller: str) -> dict[str, str]:
        if caller == "public":
            return {}
        if caller in self.settings["tokens"]:
            return {"Authorization": f"Bearer {self.settings['tokens'][caller]}"}
        if caller not in self.jwts:
            password = self.settings["users"][caller]["password"]
            signed = await self.client.post(
                "/api/auth/local", json={"identifier": caller, "password": password}
            )
            signed.raise_for_status()
            self.jwts[caller] = signed.json()["jwt"]
        return {"Authorization": f"Bearer {self.jwts[caller]}"}

    async def ask(self, request: Request) -> tuple[int, Any]:
        response = await self.client.request(
            request["method"],
            request["path"],
            json=request["body"],
            headers=await self.headers(request["caller"]),
        )
        return response.status_code, response.json() if response.content else None


async def write_through_contentapi(caller: Caller, ids: dict[str, int]) -> dict[str, int]:
    """The writes of step 2; returns the ids they made."""
    client = caller.client
    full = await caller.headers("full-access")

    async def ok(response: httpx.Response) -> Any:
        if response.status_code >= 300:
            raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text}")
        return response.json()

    made: dict[str, int] = {}
    uploaded = await ok(
        await client.post(
            "/api/upload", files={"files": ("roundtrip.png", _png(), "image/png")}, headers=full
        )
    )
    made["file"] = uploaded[0]["id"]
    article = {
        "title": "Written by contentapi",
        "slug": "written-by-contentapi",
        "kind": "opinion",
        "views": "9007199254740995",
        "rating": 2.5,
        "price": 3.75,
        "eventDate": "2025-01-02",
        "eventTime": "08:15:00.000",
        "metadata": {"from": "contentapi", "list": [1, 2]},
        "author": ids["a2"],
        "categories": {"connect": [ids["c3"], {"id": ids["c1"], "position": {"start": True}}]},
        "related": [ids["r1"], ids["r4"]],
        "cover": made["file"],
        "gallery": [made["file"], ids["cover.png"]],
        "seo": {"metaTitle": "Written", "keywords": [{"label": "k", "url": "/k"}]},
        "links": [{"label": "One", "url": "/one"}],
        "blocks": [
            {"__component": "blocks.quote", "body": "Quoted", "author": ids["a1"]},
            {"__component": "blocks.rich-text", "body": "Rich"},
            {"__component": "blocks.media", "file": ids["notes.txt"]},
        ],
    }
    created = await ok(await client.post("/api/articles", json={"data": article}, headers=full))
    made["article"] = created["data"]["id"]
    french = await ok(
        await client.post(
            f"/api/articles/{made['article']}/localizations",
            json={"locale": "fr", "title": "Écrit par contentapi", "slug": "ecrit"},
            headers=full,
        )
    )
    made["article-fr"] = french["id"]
    update = {
        "title": "On Computable Numbers (revised)",
        "categories": {"connect": [{"id": ids["c1"], "position": {"before": ids["c2"]}}]},
        "links": [{"label": "Added", "url": "/added", "newTab": True}],
    }
    await ok(await client.put(f"/api/articles/{ids['r2']}", json={"data": update}, headers=full))
    await ok(
        await client.put(
            "/api/global",
            json={"data": {"siteName": "Fixture (contentapi)", "defaultSeo": {"metaTitle": "X"}}},
            headers=full,
        )
    )
    await ok(await client.delete(f"/api/profiles/{ids['p2']}", headers=full))
    registered = await ok(
        await client.post(
            "/api/auth/local/register",
            json={
                "username": "roundtrip",
                "email": "roundtrip@example.com",
                "password": "Round-Trip-1",
            },
        )
    )
    made["user"] = registered["user"]["id"]
    caller.jwts["contentapi-issued"] = registered["jwt"]
    roles = await ok(await client.get("/api/users-permissions/roles", headers=full))
    authenticated = next(r["id"] for r in roles["roles"] if r["type"] == "authenticated")
    role = (
        await ok(await client.get(f"/api/users-permissions/roles/{authenticated}", headers=full))
    )["role"]
    role["permissions"]["api::category"]["controllers"]["category"]["find"]["enabled"] = True
    await ok(
        await client.put(
            f"/api/users-permissions/roles/{authenticated}",
            json={
                "name": role["name"],
                "description": role["description"],
                "permissions": role["permissions"],
            },
            headers=full,
        )
    )
    return made


def reads(recorded: list[Request], made: dict[str, int]) -> list[Request]:
    """The fixture's recorded reads (no writes) and reads of what contentapi wrote."""
    kept = [r for r in recorded if r["method"] == "GET" or r["path"] == "/graphql"]
    article = made["article"]
    extra = [
        f"/api/articles/{article}?populate[seo][populate]=*&populate[links]=*"
        "&populate[blocks][populate]=*&populate[cover]=*&populate[gallery]=*"
        "&populate[author]=*&populate[categories]=*&populate[related]=*&populate[localizations]=*",
        "/api/articles?publicationState=preview&locale=all&sort=id&populate=*",
        "/api/articles/2?populate[categories][fields][0]=name&populate[links]=*",
        "/api/categories/1?populate[articles][fields][0]=title&populate[articles][fields][1]=publishedAt",
        "/api/categories?sort=id&populate=*",
        "/api/authors?sort=id&populate[profile]=*&populate[articles][sort]=id",
        "/api/profiles?sort=id&populate=*",
        "/api/global?populate=*",
        "/api/upload/files?sort=id",
        "/api/users?sort=id&populate=role",
    ]
    return (
        kept
        + [{"caller": "full-access", "method": "GET", "path": path, "body": None} for path in extra]
        + [
            {
                "caller": "alice",
                "method": "GET",
                "path": "/api/categories?sort=id&fields[0]=name",
                "body": None,
            }
        ]
    )


def start_strapi(reference: Path, reference_dir: Path, port: int, settings: dict[str, Any]) -> None:
    env = {
        **os.environ,
        "REFERENCE_DIR": str(reference_dir),
        "PORT": str(port),
        "MODELS_DIR": str(ROOT / "content-types"),
        # the database's secrets: Strapi's own .env yields to the environment
        "API_TOKEN_SALT": settings["api_token_salt"],
        "JWT_SECRET": settings["jwt_secret"],
    }
    if not (reference_dir / "node_modules" / "@strapi" / "strapi").is_dir():
        subprocess.run(["bash", str(reference / "setup.sh")], cwd=ROOT, env=env, check=True)
    subprocess.run(["bash", str(reference / "start.sh"), DATABASE], cwd=ROOT, env=env, check=True)


def stop_strapi(reference: Path, reference_dir: Path) -> None:
    env = {**os.environ, "REFERENCE_DIR": str(reference_dir)}
    subprocess.run(["bash", str(reference / "stop.sh")], env=env, check=False)


async def run(reference: Path, reference_dir: Path, port: int) -> int:
    settings = json.loads((FIXTURE / "settings.json").read_text())
    recorded = json.loads((FIXTURE / "answers.json").read_text())
    url = await recreate_database(DATABASE, PG_ADMIN)
    await restore_plain_dump(url, FIXTURE / "strapi.sql")
    app = create_app(
        Settings(
            database_url=url.replace("postgresql://", "postgresql+asyncpg://"),
            content_types_dir=ROOT / "content-types",
            api_token_salt=settings["api_token_salt"],
            jwt_secret=settings["jwt_secret"],
            locales=settings["locales"],
            uploads_dir=Path(tempfile.mkdtemp(prefix="roundtrip-uploads-")),
            auth_rate_limit_max=10_000,
        )
    )
    ours: list[tuple[Request, int, Any]] = []
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://contentapi"
        ) as client,
    ):
        caller = Caller(client, settings)
        made = await write_through_contentapi(caller, settings["ids"])
        issued_jwt = caller.jwts["contentapi-issued"]
        requests = reads(recorded, made)
        for request in requests:
            ours.append((request, *await caller.ask(request)))
    print(f"contentapi wrote {made}; {len(ours)} reads kept; starting Strapi on {DATABASE}")
    start_strapi(reference, reference_dir, port, settings)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "made": made,
        "reads": len(ours),
        "differences": [],
        "sign_ins": {},
    }
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as strapi:
            caller = Caller(strapi, settings)
            for request, status, answer in ours:
                their_status, theirs = await caller.ask(request)
                deliberate = DELIBERATE.get((request["method"], request["path"]))
                if deliberate is not None:
                    same = status == deliberate[0]
                else:
                    same = (status, answer) == (their_status, normalise(request, theirs))
                if not same:
                    results["differences"].append(
                        {
                            "request": request,
                            "contentapi": [status, answer],
                            "strapi": [their_status, theirs],
                        }
                    )
            users = {**settings["users"], "roundtrip": {"password": "Round-Trip-1"}}
            for name, user in users.items():
                if name in caller.jwts:  # signed in for the reads already
                    results["sign_ins"][name] = 200
                    continue
                signed = await strapi.post(
                    "/api/auth/local", json={"identifier": name, "password": user["password"]}
                )
                results["sign_ins"][name] = signed.status_code
            # a JWT contentapi issued (same secret, Strapi's payload) is a session Strapi accepts
            me = await strapi.get(
                "/api/users/me", headers={"Authorization": f"Bearer {issued_jwt}"}
            )
            results["contentapi_jwt"] = [me.status_code, me.json().get("username")]
            results["tokens"] = {
                kind: (
                    await strapi.get("/api/articles", headers=await caller.headers(kind))
                ).status_code
                for kind in settings["tokens"]
            }
    finally:
        stop_strapi(reference, reference_dir)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "roundtrip.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    expected_sign_ins = {name: 400 if name == "dave" else 200 for name in results["sign_ins"]}
    failed = (
        bool(results["differences"])
        or results["sign_ins"] != expected_sign_ins
        or results["contentapi_jwt"] != [200, "roundtrip"]
        or any(code != 200 for code in results["tokens"].values())
    )
    print(
        f"Strapi started on the database contentapi wrote; {len(ours)} reads, "
        f"{len(results['differences'])} differ; sign-ins {results['sign_ins']}; "
        f"tokens {results['tokens']}; a contentapi JWT on Strapi: {results['contentapi_jwt']}"
    )
    for difference in results["differences"]:
        print("  differs:", difference["request"]["caller"], difference["request"]["path"][:120])
    return 1 if failed else 0
