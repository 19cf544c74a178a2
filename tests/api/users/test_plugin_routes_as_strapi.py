"""The plugin routes that answer plain objects, as the reference Strapi 4.25 answered `make
diff`'s queries: `GET /api/users` and `GET /api/upload/files` page with top-level
`start`/`limit` (the entity service's parameters; `pagination[...]` is not read, `page` and
`pageSize` are checked, not applied), `GET /api/upload/files/:id` checks its query and reads
the populate alone, and its missing file and `me` without a user answer Strapi's messages."""

from __future__ import annotations

import io

import pytest
from PIL import Image


async def _users(client, admin, *names: str) -> None:
    for name in names:
        body = {"username": name, "email": f"{name}@example.com", "password": "Passw0rd!"}
        response = await client.post("/api/auth/local/register", json=body)
        assert response.status_code == 200, response.text


async def _files(client, admin, *names: str) -> list[int]:
    parts = [("files", (name, name.encode(), "text/plain")) for name in names]
    response = await client.post("/api/upload", files=parts, headers=admin)
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()]


def _names(response, key: str) -> list[str]:
    assert response.status_code == 200, response.text
    return [item[key] for item in response.json()]


async def test_users_page_with_top_level_start_and_limit(client, admin):
    await _users(client, admin, "ann", "ben", "cid")

    async def listed(query: str) -> list[str]:
        return _names(await client.get(f"/api/users?sort=id&{query}", headers=admin), "username")

    assert await listed("start=1&limit=1") == ["ben"]
    assert await listed("start=1") == ["ben", "cid"]
    assert await listed("limit=2") == ["ann", "ben"]
    assert await listed("start=1&limit=-1") == ["ben", "cid"]
    assert await listed("limit=0") == ["ann", "ben", "cid"]  # 0: no limit, as Strapi
    # not read by Strapi's users controller: every user
    assert await listed("pagination[start]=1&pagination[limit]=1") == ["ann", "ben", "cid"]
    assert await listed("pagination[page]=abc") == ["ann", "ben", "cid"]
    # checked, then not applied (the entity service's findMany has no pages)
    assert await listed("page=2&pageSize=1") == ["ann", "ben", "cid"]


PAGE = "Invalid 'page' parameter. Expected an integer > 0, received: "
#: Strapi's message prints `page` here, not `pageSize`
PAGE_SIZE = "Invalid 'pageSize' parameter. Expected an integer > 0, received: undefined"
MIXED = "Invalid pagination attributes. You cannot use page and offset pagination in the same query"
START = "Invalid 'start' parameter. Expected an integer >= 0, received: -1"
LIMIT = "Invalid 'limit' parameter. Expected an integer >= -1, received: abc"


@pytest.mark.parametrize(
    ("query", "name", "message"),
    [
        ("page=0", "PaginationError", PAGE + "0"),
        ("pageSize=x", "PaginationError", PAGE_SIZE),
        ("page=1&start=1", "PaginationError", MIXED),
        # 500 in Strapi (a plain Error of its parameter conversion)
        ("start=-1", "ValidationError", START),
        ("limit=abc", "ValidationError", LIMIT),
    ],
)
async def test_bad_paging_of_the_plugin_lists(client, admin, query, name, message):
    for path in ("/api/users", "/api/upload/files"):
        response = await client.get(f"{path}?{query}", headers=admin)
        assert response.status_code == 400, (path, response.text)
        assert response.json()["error"]["name"] == name
        assert response.json()["error"]["message"] == message


async def test_files_page_with_top_level_start_and_limit(client, admin):
    await _files(client, admin, "a.txt", "b.txt", "c.txt")

    async def listed(query: str) -> list[str]:
        path = f"/api/upload/files?sort=name&{query}"
        return _names(await client.get(path, headers=admin), "name")

    assert await listed("start=2") == ["c.txt"]
    assert await listed("limit=1&populate=*") == ["a.txt"]
    assert await listed("pagination[limit]=1") == ["a.txt", "b.txt", "c.txt"]


async def test_one_file_checks_its_query_and_reads_no_fields(client, admin):
    (file_id,) = await _files(client, admin, "one.txt")
    whole = await client.get(f"/api/upload/files/{file_id}", headers=admin)
    assert whole.status_code == 200
    # Strapi reads the file with the populate alone: `fields` are checked, not applied
    narrowed = await client.get(f"/api/upload/files/{file_id}?fields[0]=name", headers=admin)
    assert narrowed.json() == whole.json()
    for query in ("fields[0]=folderPath", "fields[0]=nosuch", "filters[hash2][$eq]=x"):
        refused = await client.get(f"/api/upload/files/{file_id}?{query}", headers=admin)
        assert refused.status_code == 400, query
        assert refused.json()["error"]["name"] == "ValidationError"
    for method in ("GET", "DELETE"):
        missing = await client.request(method, "/api/upload/files/9999", headers=admin)
        assert missing.status_code == 404
        assert missing.json()["error"] == {
            "status": 404,
            "name": "NotFoundError",
            "message": "file.notFound",
            "details": {},
        }


async def test_me_with_an_api_token_is_strapis_unauthorized(client, admin):
    response = await client.get("/api/users/me", headers=admin)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "Unauthorized"


@pytest.mark.parametrize("user_id", ["abc", "9999", "1"])
async def test_one_user_checks_its_query_before_its_id(client, admin, user_id):
    """Strapi's findOne validates the query string first: a private field is a 400 whatever
    the id — not the 404 of an id that names no user (make diff:
    `/api/users/abc?fields[0]=password`)."""
    await _users(client, admin, "ann")
    response = await client.get(f"/api/users/{user_id}?fields[0]=password", headers=admin)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["name"] == "ValidationError"
    assert response.json()["error"]["message"] == "Invalid parameter password"


async def test_a_roles_users_are_never_answered(client, admin):
    """Strapi's users-permissions output sanitizer removes them from every answer; a filter
    through them still applies."""
    await _users(client, admin, "ann", "ben")
    for populate in ("populate[role][populate]=users", "populate[role][populate]=*"):
        response = await client.get(f"/api/users?sort=id&{populate}", headers=admin)
        assert response.status_code == 200, response.text
        assert [set(user["role"]) & {"users"} for user in response.json()] == [set(), set()]
    through = "/api/users?filters[role][users][username][$eq]=ben&fields[0]=username"
    assert _names(await client.get(through, headers=admin), "username") == ["ann", "ben"]


async def test_files_populate_what_they_are_attached_to(client, admin):
    """`populate=related` (or `*`): the entries and components a file is attached to, each
    after its `__type`, as Strapi's upload routes answer (private attributes left out)."""
    image = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(image, format="PNG")
    parts = [("files", ("pic.png", image.getvalue(), "image/png"))]
    file_id = (await client.post("/api/upload", files=parts, headers=admin)).json()[0]["id"]
    body = {
        "title": "Attached",
        "editorNotes": "secret",
        "gallery": [file_id],
        "blocks": [{"__component": "blocks.media", "file": file_id}],
    }
    created = await client.post("/api/articles", json={"data": body}, headers=admin)
    assert created.status_code == 200, created.text
    for query in (
        "populate=related",
        "populate=*",
        "populate[0]=related",
        "populate[related]=true",
    ):
        one = await client.get(f"/api/upload/files/{file_id}?{query}", headers=admin)
        assert one.status_code == 200, one.text
        related = one.json()["related"]
        assert sorted(item["__type"] for item in related) == [
            "api::article.article",
            "blocks.media",
        ]
        article = next(item for item in related if item["__type"] == "api::article.article")
        assert list(article)[:3] == ["__type", "id", "title"] and "editorNotes" not in article
        listed = await client.get(f"/api/upload/files?{query}&fields[0]=name", headers=admin)
        assert listed.json()[0]["related"] == related
    assert "related" not in (await client.get(f"/api/upload/files/{file_id}", headers=admin)).json()
