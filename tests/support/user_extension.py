"""The FoodAdvisor-like models of ``tests/fixtures/user-extension/models`` (the users-permissions
user extended with ``job``, ``picture``, ``reviews``, ``articles``, ``favorites``, a repeatable
component ``socials`` holding media, and a private ``phone``), an app on them and a small data
set, shared by the REST, GraphQL and OpenAPI tests.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from contentapi.app import create_app
from tests.conftest import ADMIN_TOKEN, AppHandle, Databases, make_settings

__all__ = ["ADMIN", "BOB", "MODELS", "seed", "start_foodie"]

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "user-extension" / "models"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
BOB = {"username": "bob", "email": "bob@example.com", "password": "Secret123", "job": "chef"}
#: a one-pixel PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944"
    "4154789c63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


async def start_foodie(databases: Databases, **overrides: object) -> AppHandle:
    """A started app on the models (a fresh database); the caller stops it."""
    url = await databases.new_url()
    handle = AppHandle(create_app(make_settings(url, MODELS, **overrides)))
    await handle.__aenter__()
    return handle


async def _ok(response: httpx.Response) -> dict:
    assert response.status_code < 300, response.text
    return response.json()


async def seed(http: httpx.AsyncClient) -> dict[str, int]:
    """Bob (registered, with a picture, a favorite article and two socials, the first with an
    icon), two reviews (notes 4 and 2) and an article by him; their ids by name."""
    user = (await _ok(await http.post("/api/auth/local/register", json=BOB)))["user"]
    upload = await http.post("/api/upload", files=[("files", ("p.png", PNG))], headers=ADMIN)
    file = (await _ok(upload))[0]
    ids = {"user": user["id"], "file": file["id"]}
    for key, note in (("good", 4), ("bad", 2)):
        body = {"data": {"content": key, "note": note, "author": user["id"]}}
        created = await _ok(await http.post("/api/reviews", json=body, headers=ADMIN))
        ids[key] = created["data"]["id"]
    body = {"data": {"title": "A1", "author": user["id"]}}
    created = await _ok(await http.post("/api/articles", json=body, headers=ADMIN))
    ids["article"] = created["data"]["id"]
    update = {
        "picture": file["id"],
        "favorites": [ids["article"]],
        "phone": "555",
        "socials": [{"network": "x", "icon": file["id"]}, {"network": "y"}],
    }
    await _ok(await http.put(f"/api/users/{user['id']}", json=update, headers=ADMIN))
    return ids
