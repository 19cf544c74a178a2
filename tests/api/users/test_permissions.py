"""Roles and permissions: the public and authenticated roles, role updates applied to the
next request, populate and filters limited to what the role may find, the users routes."""

from __future__ import annotations

from typing import Any

import pytest

from contentapi.db.notify import AUTH_CHANNEL

PLUGIN = "plugin::users-permissions"


async def _role(client, admin, role_type: str) -> dict:
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    role_id = next(r["id"] for r in roles if r["type"] == role_type)
    return (await client.get(f"/api/users-permissions/roles/{role_id}", headers=admin)).json()[
        "role"
    ]


async def _set(client, admin, role: dict, api: str, controller: str, action: str, on: bool) -> None:
    permissions = role["permissions"]
    permissions[api]["controllers"][controller][action]["enabled"] = on
    response = await client.put(
        f"/api/users-permissions/roles/{role['id']}",
        json={"permissions": permissions},
        headers=admin,
    )
    assert response.json() == {"ok": True}


async def test_default_roles_and_their_permissions(client, admin):
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    assert {r["type"] for r in roles} == {"public", "authenticated"}
    assert set(roles[0]) == {
        "id",
        "name",
        "description",
        "type",
        "createdAt",
        "updatedAt",
        "nb_users",
    }
    public = await _role(client, admin, "public")
    auth = public["permissions"][PLUGIN]["controllers"]["auth"]
    assert auth["register"] == {"enabled": True, "policy": ""} and auth["callback"]["enabled"]
    assert not public["permissions"]["api::article"]["controllers"]["article"]["find"]["enabled"]
    authenticated = await _role(client, admin, "authenticated")
    plugin = authenticated["permissions"][PLUGIN]["controllers"]
    assert plugin["user"]["me"]["enabled"] and plugin["auth"]["changePassword"]["enabled"]
    assert "global" in str(authenticated["permissions"]["api::global"])
    everything = (await client.get("/api/users-permissions/permissions", headers=admin)).json()
    assert everything["permissions"]["api::article"]["controllers"]["article"]["create"] == {
        "enabled": False,
        "policy": "",
    }


#: The plugin sections of a role's tree as Strapi 4.25 answers ``GET .../roles/:id`` (the
#: reference's answer, in its order), every action disabled.
STRAPI_PLUGIN_SECTIONS = {
    "plugin::content-type-builder": {
        "components": ["getComponents", "getComponent"],
        "content-types": ["getContentTypes", "getContentType"],
    },
    "plugin::email": {"email": ["send"]},
    "plugin::upload": {"content-api": ["find", "findOne", "destroy", "upload"]},
    PLUGIN: {
        "auth": [
            "callback",
            "changePassword",
            "resetPassword",
            "connect",
            "forgotPassword",
            "register",
            "emailConfirmation",
            "sendEmailConfirmation",
        ],
        "user": ["create", "update", "find", "findOne", "count", "destroy", "me"],
        "role": ["createRole", "findOne", "find", "updateRole", "deleteRole"],
        "permissions": ["getPermissions"],
    },
    "plugin::i18n": {"locales": ["listLocales"]},
}


async def test_the_tree_has_strapis_plugin_sections_and_keeps_their_grants(client, admin):
    role = await _role(client, admin, "authenticated")
    plugins = {
        section: {name: list(actions) for name, actions in value["controllers"].items()}
        for section, value in role["permissions"].items()
        if section.startswith("plugin::")
    }
    assert plugins == STRAPI_PLUGIN_SECTIONS
    assert list(plugins) == list(STRAPI_PLUGIN_SECTIONS)  # and in Strapi's order
    await _set(client, admin, role, "plugin::email", "email", "send", True)
    await _set(
        client, admin, role, "plugin::content-type-builder", "components", "getComponent", True
    )
    again = (await _role(client, admin, "authenticated"))["permissions"]
    assert again["plugin::email"]["controllers"]["email"]["send"]["enabled"]
    builder = again["plugin::content-type-builder"]["controllers"]["components"]
    assert builder["getComponent"]["enabled"] and not builder["getComponents"]["enabled"]


async def test_granting_and_revoking_find_applies_to_the_next_request(client, admin):
    await client.post("/api/articles", json={"data": {"title": "Visible"}}, headers=admin)
    assert (await client.get("/api/articles")).status_code == 403
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::article", "article", "find", True)
    granted = await client.get("/api/articles")
    assert granted.status_code == 200 and granted.json()["meta"]["pagination"]["total"] == 1
    assert (await client.get("/api/articles/1")).status_code == 403  # findOne not granted
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::article", "article", "find", False)
    assert (await client.get("/api/articles")).status_code == 403
    # The rest of the role is untouched: visitors may still register.
    response = await client.post(
        "/api/auth/local/register",
        json={"username": "zed", "email": "z@x.io", "password": "secret12"},
    )
    assert response.status_code == 200


async def test_authenticated_role_applies_to_users_and_populate_hides_unreadable_types(
    client, admin
):
    author = await client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=admin
    )
    await client.post(
        "/api/articles",
        json={"data": {"title": "Mine", "author": author.json()["data"]["id"]}},
        headers=admin,
    )
    token = (
        await client.post(
            "/api/auth/local/register",
            json={"username": "reader", "email": "r@x.io", "password": "secret12"},
        )
    ).json()["jwt"]
    user = {"Authorization": f"Bearer {token}"}
    assert (await client.get("/api/articles", headers=user)).status_code == 403
    role = await _role(client, admin, "authenticated")
    await _set(client, admin, role, "api::article", "article", "find", True)
    body = (await client.get("/api/articles?populate=*", headers=user)).json()
    assert "author" not in body["data"][0]["attributes"]  # authors: no find for this role
    assert "categories" not in body["data"][0]["attributes"]
    filtered = await client.get("/api/articles?filters[author][name][$eq]=Ann", headers=user)
    assert filtered.status_code == 400  # never a silent strip that returns more rows
    role = await _role(client, admin, "authenticated")
    await _set(client, admin, role, "api::author", "author", "find", True)
    body = (await client.get("/api/articles?populate=author", headers=user)).json()
    assert body["data"][0]["attributes"]["author"]["data"]["attributes"]["name"] == "Ann"
    assert (
        await client.get("/api/articles?filters[author][name][$eq]=Ann", headers=user)
    ).status_code == 200


async def test_users_routes_shapes(client, admin):
    for name in ("ann", "bob"):
        await client.post(
            "/api/auth/local/register",
            json={"username": name, "email": f"{name}@x.io", "password": "secret12"},
        )
    listed = await client.get("/api/users", headers=admin)
    assert isinstance(listed.json(), list) and [u["username"] for u in listed.json()] == [
        "ann",
        "bob",
    ]
    assert set(listed.json()[0]) == {
        "id",
        "username",
        "email",
        "provider",
        "confirmed",
        "blocked",
        "createdAt",
        "updatedAt",
    }
    assert (await client.get("/api/users/count", headers=admin)).json() == 2
    assert (await client.get("/api/users/count?filters[username]=ann", headers=admin)).json() == 1
    assert (
        await client.get("/api/users?filters[password][$null]=false", headers=admin)
    ).status_code == 400
    assert (await client.get("/api/users?sort=password", headers=admin)).status_code == 400
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    role = next(r["id"] for r in roles if r["type"] == "authenticated")
    created = await client.post(
        "/api/users",
        headers=admin,
        json={"username": "cyd", "email": "CY@x.io", "password": "secret12", "role": role},
    )
    assert created.status_code == 201, created.text
    assert created.json()["email"] == "cy@x.io"
    taken = await client.post(
        "/api/users",
        headers=admin,
        json={"username": "cyd", "email": "c2@x.io", "password": "secret12", "role": role},
    )
    assert taken.json()["error"]["message"] == "Username already taken"
    updated = await client.put(
        f"/api/users/{created.json()['id']}", json={"username": "cyrus"}, headers=admin
    )
    assert updated.json()["username"] == "cyrus"
    assert (await client.get("/api/users")).status_code == 403  # public may not find users
    deleted = await client.delete(f"/api/users/{created.json()['id']}", headers=admin)
    assert deleted.json()["username"] == "cyrus"
    assert (
        await client.get(f"/api/users/{created.json()['id']}", headers=admin)
    ).status_code == 404


async def test_role_create_update_delete(client, admin):
    created = await client.post(
        "/api/users-permissions/roles",
        headers=admin,
        json={"name": "Editors", "description": "edit things"},
    )
    assert created.json() == {"ok": True}
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    editors = next(r for r in roles if r["type"] == "editors")
    assert editors["nb_users"] == 0
    user = (
        await client.post(
            "/api/auth/local/register",
            json={"username": "eddie", "email": "ed@x.io", "password": "secret12"},
        )
    ).json()
    await client.put(
        f"/api/users/{user['user']['id']}", json={"role": editors["id"]}, headers=admin
    )
    role = (
        await client.get(f"/api/users-permissions/roles/{editors['id']}", headers=admin)
    ).json()["role"]
    await _set(client, admin, role, "api::category", "category", "find", True)
    headers = {"Authorization": f"Bearer {user['jwt']}"}
    assert (await client.get("/api/categories", headers=headers)).status_code == 200
    deleted = await client.delete(f"/api/users-permissions/roles/{editors['id']}", headers=admin)
    assert deleted.json() == {"ok": True}
    assert (
        await client.get("/api/categories", headers=headers)
    ).status_code == 403  # back to authenticated
    public = next(r for r in roles if r["type"] == "public")
    refused = await client.delete(f"/api/users-permissions/roles/{public['id']}", headers=admin)
    assert refused.status_code == 400
    unknown = await client.put(
        f"/api/users-permissions/roles/{editors['id']}", json={}, headers=admin
    )
    assert unknown.status_code == 404
    bad = await client.put(
        f"/api/users-permissions/roles/{public['id']}",
        json={"permissions": {"api::nope": {"controllers": {"nope": {"find": {"enabled": True}}}}}},
        headers=admin,
    )
    assert bad.status_code == 400


async def test_a_role_change_applies_to_this_process_without_waiting_for_its_notification(
    app, client, admin
):
    """The process that commits a role change empties its own caller cache at the commit: the
    very next request must not depend on the notification having arrived yet."""
    listener = app.runtime.change_listener
    if listener is None:
        pytest.skip("the caller cache exists on PostgreSQL only")
    # notifications empty nothing during this test: only the commit itself may
    listener.unsubscribe(AUTH_CHANNEL, app.runtime.caller_cache.changed)
    try:
        await client.post("/api/articles", json={"data": {"title": "Visible"}}, headers=admin)
        assert (await client.get("/api/articles")).status_code == 403  # the public caller kept
        public = await _role(client, admin, "public")
        await _set(client, admin, public, "api::article", "article", "find", True)
        assert (await client.get("/api/articles")).status_code == 200
        public = await _role(client, admin, "public")
        await _set(client, admin, public, "api::article", "article", "find", False)
        assert (await client.get("/api/articles")).status_code == 403
    finally:
        listener.subscribe(AUTH_CHANNEL, app.runtime.caller_cache.changed)


async def test_one_query_string_is_read_with_each_callers_rights(app, client, admin):
    """Parsed query strings are kept per worker (rest/parsed_queries.py): the same string asked
    by callers with different rights, and by one caller before and after a grant, is read with
    the rights of the moment."""
    author = await client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=admin
    )
    await client.post(
        "/api/articles",
        json={"data": {"title": "Mine", "author": author.json()["data"]["id"]}},
        headers=admin,
    )
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::article", "article", "find", True)
    query = "/api/articles?populate=author"

    def author_of(response: Any) -> Any:
        assert response.status_code == 200, response.text
        return response.json()["data"][0]["attributes"].get("author")

    assert author_of(await client.get(query)) is None  # populate of unreadable authors: dropped
    assert author_of(await client.get(query, headers=admin))["data"]["id"] == 1
    assert author_of(await client.get(query)) is None
    public = await _role(client, admin, "public")
    await _set(client, admin, public, "api::author", "author", "find", True)
    assert author_of(await client.get(query))["data"]["attributes"]["name"] == "Ann"
    bad = "/api/articles?populate[author][fields][0]=nosuchfield"
    assert (await client.get(bad)).status_code == 400
    assert (await client.get(bad)).status_code == 400  # a failed parse is not kept
