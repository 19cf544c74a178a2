"""The OpenAPI document of the extended users-permissions user
(``tests/support/user_extension.py``): the plain user answer has the extension's public
attributes, register's body the ones ``register.allowedFields`` allows (required ones
required), the administrator's body all of them."""

from __future__ import annotations

from openapi_spec_validator import validate

from tests.support.user_extension import start_foodie


async def _document(databases, **overrides) -> dict:
    handle = await start_foodie(databases, **overrides)
    try:
        response = await handle.client.get("/documentation/openapi.json")
        assert response.status_code == 200, response.text
        return response.json()
    finally:
        await handle.__aexit__()


async def test_user_schemas_carry_the_extension(databases):
    document = await _document(databases)
    validate(document)
    schemas = document["components"]["schemas"]
    user = schemas["UsersPermissionsUser"]["properties"]
    assert {"job", "picture", "reviews", "articles", "favorites"} <= set(user)
    assert "phone" not in user and "password" not in user
    register = schemas["RegisterRequest"]
    assert register["required"] == ["username", "email", "password", "job"]
    assert {"job", "picture", "reviews", "favorites"} <= set(register["properties"])
    assert "phone" not in register["properties"]
    assert {"job", "phone", "picture", "reviews"} <= set(schemas["UserRequest"]["properties"])


async def test_register_body_follows_the_allowed_fields_setting(databases):
    document = await _document(databases, register_allowed_fields="phone")
    register = document["components"]["schemas"]["RegisterRequest"]
    assert set(register["properties"]) == {"username", "email", "password", "phone"}
    assert register["required"] == ["username", "email", "password"]
