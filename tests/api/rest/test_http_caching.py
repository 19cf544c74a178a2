"""HTTP validators and ``Cache-Control`` on the REST content routes (``http/conditional.py``):
ETag and 304 for the public role, API tokens and signed-in users; HEAD; ``If-None-Match`` lists
and ``*``; the configured and per-type lifetimes; writes and errors ``no-store``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from xxhash import xxh3_128_hexdigest

from contentapi.config import Settings
from tests.api.rest.helpers import create
from tests.api.users.test_permissions import _role, _set

NO_CACHE_PUBLIC = "public, no-cache"
NO_CACHE_PRIVATE = "private, no-cache"
#: ours, then the CORS middleware's (which adds ``Origin`` to every answer)
VARY = "Authorization, Origin"


def _tag(body: bytes) -> str:
    return '"' + xxh3_128_hexdigest(body) + '"'


async def _public_may_find_authors(client, admin) -> None:
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::author", "author", "find", True)
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::author", "author", "findOne", True)


async def _user(client, admin) -> dict[str, str]:
    """A signed-in user whose role (authenticated) may find authors; its JWT's headers."""
    role = await _role(client, admin, "authenticated")
    await _set(client, admin, role, "api::author", "author", "find", True)
    registered = await client.post(
        "/api/auth/local/register",
        json={"username": "reader", "email": "reader@example.com", "password": "Secret-123"},
    )
    assert registered.status_code == 200, registered.text
    return {"Authorization": f"Bearer {registered.json()['jwt']}"}


async def test_a_public_list_carries_etag_public_cache_control_and_vary(client, admin):
    await create(client, admin, "authors")
    await _public_may_find_authors(client, admin)
    response = await client.get("/api/authors")
    assert response.status_code == 200
    assert response.headers["etag"] == _tag(response.content)
    assert response.headers["cache-control"] == NO_CACHE_PUBLIC
    assert response.headers["vary"] == VARY


async def test_the_public_role_gets_304_for_its_etag(client, admin):
    await create(client, admin, "authors")
    await _public_may_find_authors(client, admin)
    first = await client.get("/api/authors")
    again = await client.get("/api/authors", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["cache-control"] == NO_CACHE_PUBLIC
    assert again.headers["vary"] == VARY
    assert "content-length" not in again.headers or again.headers["content-length"] == "0"


@pytest.mark.parametrize("token_type", ["read-only", "full-access"])
async def test_an_api_token_gets_private_answers_and_304(client, admin, make_token, token_type):
    entry_id = await create(client, admin, "authors")
    token = await make_token(token_type)
    for path in ("/api/authors", f"/api/authors/{entry_id}"):
        first = await client.get(path, headers=token)
        assert first.status_code == 200
        assert first.headers["etag"] == _tag(first.content)
        assert first.headers["cache-control"] == NO_CACHE_PRIVATE
        assert first.headers["vary"] == VARY
        again = await client.get(path, headers={**token, "If-None-Match": first.headers["etag"]})
        assert again.status_code == 304
        assert again.headers["cache-control"] == NO_CACHE_PRIVATE


async def test_a_signed_in_user_gets_private_answers_and_304(client, admin):
    await create(client, admin, "authors")
    user = await _user(client, admin)
    first = await client.get("/api/authors", headers=user)
    assert first.status_code == 200
    assert first.headers["cache-control"] == NO_CACHE_PRIVATE
    again = await client.get(
        "/api/authors", headers={**user, "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["cache-control"] == NO_CACHE_PRIVATE
    assert again.headers["etag"] == first.headers["etag"]


async def test_the_etag_changes_when_the_content_changes(client, admin):
    entry_id = await create(client, admin, "authors", name="Before")
    listed = await client.get("/api/authors", headers=admin)
    one = await client.get(f"/api/authors/{entry_id}", headers=admin)
    updated = await client.put(
        f"/api/authors/{entry_id}", json={"data": {"name": "After"}}, headers=admin
    )
    assert updated.status_code == 200
    for path, before in (("/api/authors", listed), (f"/api/authors/{entry_id}", one)):
        stale = await client.get(path, headers={**admin, "If-None-Match": before.headers["etag"]})
        assert stale.status_code == 200
        assert stale.headers["etag"] != before.headers["etag"]
        assert stale.headers["etag"] == _tag(stale.content)
        assert "After" in stale.text


async def test_different_queries_with_different_bodies_have_different_etags(client, admin):
    await create(client, admin, "authors")
    whole = await client.get("/api/authors", headers=admin)
    names = await client.get("/api/authors?fields[0]=name", headers=admin)
    assert whole.headers["etag"] != names.headers["etag"]
    refused = await client.get(
        "/api/authors?fields[0]=name", headers={**admin, "If-None-Match": whole.headers["etag"]}
    )
    assert refused.status_code == 200


@pytest.mark.parametrize(
    "condition",
    ['"other", {tag}', '{tag}, "other"', "W/{tag}", '"a",W/{tag} ,"b"', "*"],
)
async def test_if_none_match_lists_weak_tags_and_star_give_304(client, admin, condition):
    await create(client, admin, "authors")
    tag = (await client.get("/api/authors", headers=admin)).headers["etag"]
    response = await client.get(
        "/api/authors", headers={**admin, "If-None-Match": condition.format(tag=tag)}
    )
    assert response.status_code == 304
    assert response.headers["etag"] == tag


@pytest.mark.parametrize("condition", ['"other"', '"a", "b"', "{bare}"])
async def test_if_none_match_naming_another_body_answers_200(client, admin, condition):
    await create(client, admin, "authors")
    tag = (await client.get("/api/authors", headers=admin)).headers["etag"]
    response = await client.get(
        "/api/authors", headers={**admin, "If-None-Match": condition.format(bare=tag.strip('"'))}
    )
    assert response.status_code == 200
    assert response.headers["etag"] == tag


async def test_a_requests_no_cache_is_still_validated(client, admin):
    """``Cache-Control: no-cache`` binds caches, not the origin, which answers from the
    database either way: its ``If-None-Match`` still gets the 304."""
    await create(client, admin, "authors")
    tag = (await client.get("/api/authors", headers=admin)).headers["etag"]
    response = await client.get(
        "/api/authors",
        headers={**admin, "If-None-Match": tag, "Cache-Control": "no-cache"},
    )
    assert response.status_code == 304


async def test_head_answers_as_get_without_the_body(client, admin):
    entry_id = await create(client, admin, "authors")
    for path in ("/api/authors", f"/api/authors/{entry_id}"):
        got = await client.get(path, headers=admin)
        head = await client.head(path, headers=admin)
        assert head.status_code == 200
        assert head.content == b""
        assert head.headers["etag"] == got.headers["etag"]
        assert head.headers["content-length"] == str(len(got.content))
        assert head.headers["content-type"] == "application/json; charset=utf-8"
        assert head.headers["cache-control"] == NO_CACHE_PRIVATE
        conditional = await client.head(
            path, headers={**admin, "If-None-Match": got.headers["etag"]}
        )
        assert conditional.status_code == 304


async def test_head_of_a_single_type_and_of_what_is_not_read_is_refused_as_before(client, admin):
    put = await client.put("/api/global", json={"data": {"siteName": "Site"}}, headers=admin)
    assert put.status_code == 200
    head = await client.head("/api/global", headers=admin)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == (await client.get("/api/global", headers=admin)).headers["etag"]
    # the localizations path takes only POST; the event stream is no HEAD
    assert (await client.head("/api/articles/1/localizations", headers=admin)).status_code == 405
    assert (await client.head("/api/authors/events", headers=admin)).status_code == 405


async def test_a_single_type_read_is_validated(client, admin):
    await client.put("/api/global", json={"data": {"siteName": "Site"}}, headers=admin)
    first = await client.get("/api/global", headers=admin)
    assert first.headers["etag"] == _tag(first.content)
    again = await client.get(
        "/api/global", headers={**admin, "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/authors", {"data": {"name": "New", "email": "new@example.com"}}),
        ("PUT", "/api/authors/{id}", {"data": {"name": "Changed"}}),
        ("DELETE", "/api/authors/{id}", None),
        ("PUT", "/api/global", {"data": {"siteName": "Site"}}),
    ],
)
async def test_writes_are_no_store_and_carry_no_etag(client, admin, method, path, body):
    entry_id = await create(client, admin, "authors")
    response = await client.request(method, path.format(id=entry_id), json=body, headers=admin)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers


@pytest.mark.parametrize(
    ("headers", "path", "status"),
    [
        ({}, "/api/authors", 403),  # the public role may not find authors
        ({"Authorization": "Bearer not-a-token"}, "/api/authors", 401),
        (None, "/api/authors/999", 404),
        (None, "/api/authors?filters[nosuch][$eq]=1", 400),
        (None, "/api/nosuch", 404),
    ],
)
async def test_error_answers_are_no_store_without_etag(client, admin, headers, path, status):
    response = await client.get(path, headers=admin if headers is None else headers)
    assert response.status_code == status
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers


async def test_a_wrong_method_is_no_store(client, admin):
    response = await client.patch("/api/authors", json={}, headers=admin)
    assert response.status_code == 405
    assert response.headers["cache-control"] == "no-store"


# ------------------------------------------------------------------ configured lifetimes


@pytest.fixture(scope="session")
def cached_models(test_models: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test models, articles with ``pluginOptions.contentapi.cache`` of their own."""
    folder = tmp_path_factory.mktemp("cached") / "content-types"
    shutil.copytree(test_models, folder)
    article = json.loads((folder / "article.json").read_text())
    article["pluginOptions"]["contentapi"] = {"cache": {"maxAge": 5, "sMaxAge": None}}
    (folder / "article.json").write_text(json.dumps(article))
    return folder


LIFETIMES = {
    "cache_control_max_age": 60,
    "cache_control_s_maxage": 300,
    "cache_control_stale_while_revalidate": 30,
}


async def test_configured_lifetimes_public_and_private(reused_app, cached_models):
    handle = await reused_app(cached_models, **LIFETIMES)
    client = handle.client
    admin = {"Authorization": "Bearer " + handle.runtime.settings.admin_token}
    await create(client, admin, "authors")
    await _public_may_find_authors(client, admin)
    public = await client.get("/api/authors")
    assert public.status_code == 200
    assert (
        public.headers["cache-control"]
        == "public, max-age=60, s-maxage=300, stale-while-revalidate=30"
    )
    private = await client.get("/api/authors", headers=admin)
    assert private.headers["cache-control"] == "private, max-age=60, stale-while-revalidate=30"
    revalidated = await client.get(
        "/api/authors", headers={"If-None-Match": public.headers["etag"]}
    )
    assert revalidated.status_code == 304
    assert (
        revalidated.headers["cache-control"]
        == "public, max-age=60, s-maxage=300, stale-while-revalidate=30"
    )


async def test_a_types_own_lifetimes_override_the_configured_ones(reused_app, cached_models):
    """articles: ``{"maxAge": 5, "sMaxAge": null}`` — max-age replaced, s-maxage not sent,
    stale-while-revalidate kept from the settings."""
    handle = await reused_app(cached_models, **LIFETIMES)
    client = handle.client
    admin = {"Authorization": "Bearer " + handle.runtime.settings.admin_token}
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::article", "article", "find", True)
    answer = await client.get("/api/articles")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "public, max-age=5, stale-while-revalidate=30"
    private = await client.get("/api/articles", headers=admin)
    assert private.headers["cache-control"] == "private, max-age=5, stale-while-revalidate=30"
    # writes stay no-store whatever the type's lifetimes
    created = await client.post("/api/articles", json={"data": {"title": "Hello"}}, headers=admin)
    assert created.headers["cache-control"] == "no-store"


def test_lifetimes_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CONTENTAPI_CACHE_CONTROL_MAX_AGE", "60")
    monkeypatch.setenv("CONTENTAPI_CACHE_CONTROL_S_MAXAGE", "300")
    monkeypatch.setenv("CONTENTAPI_CACHE_CONTROL_STALE_WHILE_REVALIDATE", "30")
    settings = Settings()
    assert (
        settings.cache_control_max_age,
        settings.cache_control_s_maxage,
        settings.cache_control_stale_while_revalidate,
    ) == (60, 300, 30)


def test_negative_lifetimes_are_refused(monkeypatch):
    monkeypatch.setenv("CONTENTAPI_CACHE_CONTROL_MAX_AGE", "-1")
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        Settings()


def test_lifetimes_are_read_from_contentapi_toml(monkeypatch, tmp_path):
    (tmp_path / "contentapi.toml").write_text(
        "cache_control_max_age = 10\ncache_control_s_maxage = 20\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CACHE_CONTROL_S_MAXAGE", "40")  # the environment wins
    settings = Settings()
    assert (settings.cache_control_max_age, settings.cache_control_s_maxage) == (10, 40)
    assert settings.cache_control_stale_while_revalidate is None
