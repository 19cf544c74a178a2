"""users-permissions over GraphQL: register → login → me → changePassword, and the rest."""

from __future__ import annotations

from tests.api.graphql.conftest import gql

REGISTER = """
mutation Register($input: UsersPermissionsRegisterInput!) {
  register(input: $input) { jwt user { id username email confirmed blocked role { name type } } }
}
"""
LOGIN = """
mutation Login($identifier: String!, $password: String!) {
  login(input: {identifier: $identifier, password: $password}) { jwt user { id username } }
}
"""


async def _allow_public(client, admin, *actions: str) -> None:
    """Give the public role the users-permissions auth actions (register, callback)."""
    roles = (await client.get("/api/users-permissions/roles", headers=admin)).json()["roles"]
    public = next(role for role in roles if role["type"] == "public")
    controllers: dict = {}
    for action in actions:
        controller, name = action.split(".")
        controllers.setdefault(controller, {})[name] = {"enabled": True}
    body = {"permissions": {"plugin::users-permissions": {"controllers": controllers}}}
    response = await client.put(
        f"/api/users-permissions/roles/{public['id']}", json=body, headers=admin
    )
    assert response.status_code == 200, response.text


async def test_register_login_me_change_password(app, client):
    registered = await gql(
        client,
        REGISTER,
        {"input": {"username": "neo", "email": "Neo@Matrix.io", "password": "redpill1"}},
        headers=None,
    )
    assert "errors" not in registered, registered
    payload = registered["data"]["register"]
    assert payload["user"] == {
        "id": "1",
        "username": "neo",
        "email": "neo@matrix.io",
        "confirmed": True,
        "blocked": False,
        "role": {"name": "Authenticated", "type": "authenticated"},
    }
    assert payload["jwt"].count(".") == 2
    logged = await gql(
        client, LOGIN, {"identifier": "neo@matrix.io", "password": "redpill1"}, headers=None
    )
    jwt = logged["data"]["login"]["jwt"]
    assert logged["data"]["login"]["user"] == {"id": "1", "username": "neo"}
    bearer = {"Authorization": f"Bearer {jwt}"}
    me = await gql(client, "{ me { id username email role { type } } }", headers=bearer)
    assert me == {
        "data": {
            "me": {
                "id": "1",
                "username": "neo",
                "email": "neo@matrix.io",
                "role": {"type": "authenticated"},
            }
        }
    }
    changed = await gql(
        client,
        'mutation { changePassword(currentPassword: "redpill1", password: "bluepill2", '
        'passwordConfirmation: "bluepill2") { jwt user { username } } }',
        headers=bearer,
    )
    assert "errors" not in changed, changed
    assert changed["data"]["changePassword"]["user"] == {"username": "neo"}
    old = await gql(client, LOGIN, {"identifier": "neo", "password": "redpill1"}, headers=None)
    assert old["data"] is None or old["data"]["login"] is None
    assert old["errors"][0]["message"] == "Invalid identifier or password"
    assert old["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    new = await gql(client, LOGIN, {"identifier": "neo", "password": "bluepill2"}, headers=None)
    assert new["data"]["login"]["user"]["username"] == "neo"


async def test_blocked_user_login_is_strapis_application_error(app, client, admin):
    """Recorded from the reference Strapi 4.25: STRAPI_APPLICATION_ERROR, HTTP 200."""
    await gql(
        client,
        REGISTER,
        {"input": {"username": "blk", "email": "blk@x.io", "password": "Passw0rd!"}},
        headers=None,
    )
    await client.put("/api/users/1", json={"blocked": True}, headers=admin)
    blocked = await gql(client, LOGIN, {"identifier": "blk", "password": "Passw0rd!"}, headers=None)
    message = "Your account has been blocked by an administrator"
    assert blocked == {
        "errors": [
            {
                "message": message,
                "extensions": {
                    "error": {"name": "ApplicationError", "message": message, "details": {}},
                    "code": "STRAPI_APPLICATION_ERROR",
                },
            }
        ],
        "data": None,
    }
    wrong = await gql(client, LOGIN, {"identifier": "blk", "password": "wrong"}, headers=None)
    message = "Invalid identifier or password"
    assert wrong == {
        "errors": [
            {
                "message": message,
                "extensions": {
                    "error": {"name": "ValidationError", "message": message, "details": {}},
                    "code": "BAD_USER_INPUT",
                },
            }
        ],
        "data": None,
    }


async def test_me_without_a_user(app, client, admin):
    public = await gql(client, "{ me { id } }", headers=None)
    assert public["data"] == {"me": None}
    assert public["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    token = await gql(client, "{ me { id } }", headers=admin)
    assert token["data"] == {"me": None}
    assert token["errors"][0]["message"] == "Authentication requested"
    assert token["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"


async def test_forgot_password_answers_ok_for_any_address(app, client):
    body = await gql(client, 'mutation { forgotPassword(email: "a@b.io") { ok } }', headers=None)
    assert body == {"data": {"forgotPassword": {"ok": True}}}


async def _authenticated_role(client) -> str:
    roles = await gql(
        client, '{ usersPermissionsRoles(filters: {type: {eq: "authenticated"}}) { data { id } } }'
    )
    return roles["data"]["usersPermissionsRoles"]["data"][0]["id"]


async def test_create_user_needs_a_role_as_strapi_says(app, client):
    body = await gql(
        client,
        'mutation { createUsersPermissionsUser(data: {username: "trin", email: "t@x.io", '
        'password: "secret123"}) { data { id } } }',
    )
    assert body["data"] is None
    assert body["errors"][0]["message"] == "role is a required field"
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_user_and_role_crud(app, client, admin):
    role_id = await _authenticated_role(client)
    created = await gql(
        client,
        'mutation { createUsersPermissionsUser(data: {username: "trin", email: "t@x.io", '
        f'password: "secret123", confirmed: true, role: "{role_id}"}}) '
        "{ data { id attributes { username email "
        "confirmed role { data { attributes { type } } } } } } }",
    )
    assert created["data"]["createUsersPermissionsUser"]["data"] == {
        "id": "1",
        "attributes": {
            "username": "trin",
            "email": "t@x.io",
            "confirmed": True,
            "role": {"data": {"attributes": {"type": "authenticated"}}},
        },
    }
    users = await gql(
        client,
        '{ usersPermissionsUsers(filters: {username: {eq: "trin"}}) { data { id } } }',
    )
    assert users["data"]["usersPermissionsUsers"]["data"] == [{"id": "1"}]
    hidden = await gql(
        client,
        '{ usersPermissionsUsers(filters: {password: {startsWith: "$"}}) { data { id } } }',
        status=400,
    )
    assert hidden["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    role = await gql(
        client,
        'mutation { createUsersPermissionsRole(data: {name: "Editors", description: "e"}) { ok } }',
    )
    assert role == {"data": {"createUsersPermissionsRole": {"ok": True}}}
    roles = await gql(
        client,
        '{ usersPermissionsRoles(filters: {name: {eq: "Editors"}}) '
        "{ data { id attributes { name } } } }",
    )
    (editors,) = roles["data"]["usersPermissionsRoles"]["data"]
    deleted = await gql(
        client, f'mutation {{ deleteUsersPermissionsRole(id: "{editors["id"]}") {{ ok }} }}'
    )
    assert deleted == {"data": {"deleteUsersPermissionsRole": {"ok": True}}}
    removed = await gql(
        client,
        'mutation { deleteUsersPermissionsUser(id: "1") { data { attributes { username } } } }',
    )
    assert removed["data"]["deleteUsersPermissionsUser"]["data"]["attributes"] == {
        "username": "trin"
    }
