"""Role mutations over GraphQL read ``permissions``/``users`` ids as Strapi 4.25 does.

Strapi's ``createRole``/``updateRole`` resolvers pass ``data`` to the role service, which reads
``permissions`` as the nested tree: an ``[ID]`` list has no enabled action in it. So a create
grants nothing, an update leaves the role without permissions, and ``users`` is never read.
"""

from __future__ import annotations

from typing import Any

from tests.api.graphql.conftest import gql

CREATE = """
mutation Create($data: UsersPermissionsRoleInput!) {
  createUsersPermissionsRole(data: $data) { ok }
}
"""
UPDATE = """
mutation Update($id: ID!, $data: UsersPermissionsRoleInput!) {
  updateUsersPermissionsRole(id: $id, data: $data) { ok }
}
"""


async def _role(client, admin, role_type: str) -> dict[str, Any]:
    """The role with its permissions tree, as the REST route answers it."""
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    role_id = next(role["id"] for role in roles if role["type"] == role_type)
    answer = await client.get(f"/api/users-permissions/roles/{role_id}", headers=admin)
    return answer.json()["role"]


def _enabled(role: dict[str, Any]) -> set[str]:
    return {
        f"{type_name}.{controller}.{action}"
        for type_name, entry in role["permissions"].items()
        for controller, actions in entry["controllers"].items()
        for action, flags in actions.items()
        if flags["enabled"]
    }


async def _grant_find(client, admin, role: dict[str, Any]) -> None:
    tree = {"api::category": {"controllers": {"category": {"find": {"enabled": True}}}}}
    answer = await client.put(
        f"/api/users-permissions/roles/{role['id']}", json={"permissions": tree}, headers=admin
    )
    assert answer.status_code == 200, answer.text


async def _register(client) -> dict[str, Any]:
    answer = await client.post(
        "/api/auth/local/register",
        json={"username": "eddie", "email": "ed@x.io", "password": "secret12"},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_create_ignores_permission_and_user_ids(app, client, admin):
    user = await _register(client)
    data = {
        "name": "Editors",
        "description": "edit things",
        "permissions": ["1", "2"],
        "users": [str(user["user"]["id"])],
    }
    answer = await gql(client, CREATE, {"data": data})
    assert answer == {"data": {"createUsersPermissionsRole": {"ok": True}}}
    editors = await _role(client, admin, "editors")
    assert (editors["name"], editors["description"]) == ("Editors", "edit things")
    assert _enabled(editors) == set()
    read = await client.get(f"/api/users/{user['user']['id']}?populate=role", headers=admin)
    assert read.json()["role"]["type"] == "authenticated"


async def test_update_with_permission_ids_leaves_the_role_without_permissions(app, client, admin):
    user = await _register(client)
    authenticated = await _role(client, admin, "authenticated")
    await _grant_find(client, admin, authenticated)
    headers = {"Authorization": f"Bearer {user['jwt']}"}
    assert (await client.get("/api/categories", headers=headers)).status_code == 200
    data = {"name": "Members", "type": "ignored", "permissions": ["1"], "users": []}
    answer = await gql(client, UPDATE, {"id": str(authenticated["id"]), "data": data})
    assert answer == {"data": {"updateUsersPermissionsRole": {"ok": True}}}
    updated = await _role(client, admin, "authenticated")
    assert updated["name"] == "Members"
    assert _enabled(updated) == set()
    assert (await client.get("/api/categories", headers=headers)).status_code == 403


async def test_update_with_null_permissions_is_the_same_as_ids(app, client, admin):
    public = await _role(client, admin, "public")
    await _grant_find(client, admin, public)
    answer = await gql(client, UPDATE, {"id": str(public["id"]), "data": {"permissions": None}})
    assert answer == {"data": {"updateUsersPermissionsRole": {"ok": True}}}
    assert _enabled(await _role(client, admin, "public")) == set()


async def test_update_without_permissions_keeps_them_as_the_rest_route_does(app, client, admin):
    public = await _role(client, admin, "public")
    await _grant_find(client, admin, public)
    data = {"description": "anyone", "users": ["1"]}
    answer = await gql(client, UPDATE, {"id": str(public["id"]), "data": data})
    assert answer == {"data": {"updateUsersPermissionsRole": {"ok": True}}}
    updated = await _role(client, admin, "public")
    assert updated["description"] == "anyone"
    assert _enabled(updated) == {"api::category.category.find"}


async def test_the_rest_routes_rules_still_apply(app, client, admin):
    short = await gql(client, CREATE, {"data": {"name": "ab", "permissions": ["1"]}})
    assert short["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    missing = await gql(client, UPDATE, {"id": "999", "data": {"permissions": ["1"]}})
    assert missing["data"] == {"updateUsersPermissionsRole": None}
    assert missing["errors"][0]["message"] == "Role not found"


async def test_default_roles_sort_by_creation_as_strapi_made_them(app, client, admin):
    """Strapi creates ``authenticated`` before ``public``: a sort on ``createdAt`` says so even
    when a second key would order the two the other way round."""
    query = (
        '{ usersPermissionsRoles(sort: ["createdAt:asc", "type:desc"]) '
        "{ data { attributes { type } } } }"
    )
    answer = await gql(client, query)
    types = [role["attributes"]["type"] for role in answer["data"]["usersPermissionsRoles"]["data"]]
    assert types == ["authenticated", "public"]
