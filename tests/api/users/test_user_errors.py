"""Error answers of ``POST /api/users`` and ``PUT /api/users/:id`` exactly as the reference
Strapi 4.25 gave them (status, name, message, details)."""

from __future__ import annotations

import pytest


def _error(status: int, name: str, message: str, details: dict | None = None) -> dict:
    error = {"status": status, "name": name, "message": message, "details": details or {}}
    return {"data": None, "error": error}


def _validation(*errors: tuple[list[str], str]) -> dict:
    listed = [
        {"path": path, "message": message, "name": "ValidationError"} for path, message in errors
    ]
    message = errors[0][1] if len(errors) == 1 else f"{len(errors)} errors occurred"
    return _error(400, "ValidationError", message, {"errors": listed})


GOOD = {"username": "zqx", "email": "zq@example.com", "password": "secret123"}

CREATE_CASES = [
    ("no role", GOOD, _validation((["role"], "role is a required field"))),
    (
        "empty body",
        {},
        _validation(
            (["email"], "email is a required field"),
            (["username"], "username is a required field"),
            (["password"], "password is a required field"),
            (["role"], "role is a required field"),
        ),
    ),
    (
        "null role",
        {**GOOD, "role": None},
        _validation((["role"], "role must be a `object` type, but the final value was: `null`.")),
    ),
    (
        "role without connect",
        {**GOOD, "role": {}},
        _validation((["role", "connect"], "role.connect is a required field")),
    ),
    (
        "role with empty connect",
        {**GOOD, "role": {"connect": []}},
        _validation((["role", "connect"], "Users must have a role")),
    ),
    (
        "bad email and no role",
        {**GOOD, "email": "zq"},
        _validation(
            (["email"], "email must be a valid email"), (["role"], "role is a required field")
        ),
    ),
    (
        "wrong types and empty strings",
        {"email": None, "username": "", "password": 5, "role": True},
        _validation(
            (["email"], "email must be a `string` type, but the final value was: `null`."),
            (["username"], "username must be at least 1 characters"),
            (["username"], "username is a required field"),
            (["password"], "password must be a `string` type, but the final value was: `5`."),
            (["role"], "role must be a `strapiID` type, but the final value was: `true`."),
        ),
    ),
]


@pytest.mark.parametrize(
    ("case", "body", "expected"), CREATE_CASES, ids=[c[0] for c in CREATE_CASES]
)
async def test_create_user_body_errors_are_strapis(client, admin, case, body, expected):
    response = await client.post("/api/users", json=body, headers=admin)
    assert response.status_code == 400
    assert response.json() == expected


async def test_create_user_with_role_then_taken_email_is_an_application_error(client, admin):
    created = await client.post("/api/users", json={**GOOD, "role": 1}, headers=admin)
    assert created.status_code == 201, created.text
    again = {**GOOD, "username": "other", "email": "ZQ@example.com", "role": 1}
    taken = await client.post("/api/users", json=again, headers=admin)
    assert taken.status_code == 400
    assert taken.json() == _error(400, "ApplicationError", "Email already taken")


@pytest.mark.parametrize("body", [{"username": "whatever"}, {}, {"email": "not an email"}])
async def test_update_of_an_unknown_user_is_user_not_found(client, admin, body):
    response = await client.put("/api/users/999999", json=body, headers=admin)
    assert response.status_code == 404
    assert response.json() == _error(404, "NotFoundError", "User not found")
