"""Role texts a ``varchar(255)`` column cannot hold answer 400, never 500 (found by the
schemathesis run: a role named ``"\\u00fb\\u001b\\u0000"`` answered 500 on PostgreSQL)."""

from __future__ import annotations

import pytest

ROLES = "/api/users-permissions/roles"


@pytest.mark.parametrize(
    "body",
    [
        {"name": "\u00fb\u001b\u0000"},
        {"name": "Editors", "description": "has a \u0000 inside"},
        {"name": "Editors", "type": "edit\u0000ors"},
        {"name": "x" * 256},
        {"name": "Editors", "description": "d" * 256},
    ],
    ids=["nul-name", "nul-description", "nul-type", "long-name", "long-description"],
)
async def test_a_role_text_the_column_cannot_hold_is_a_400(client, admin, body):
    created = await client.post(ROLES, json=body, headers=admin)
    assert created.status_code == 400, created.text
    assert created.json()["error"]["name"] == "ValidationError"
    roles = (await client.get(ROLES, headers=admin)).json()["roles"]
    assert {role["type"] for role in roles} == {"public", "authenticated"}
    public = next(role for role in roles if role["type"] == "public")
    updated = await client.put(f"{ROLES}/{public['id']}", json=body, headers=admin)
    assert updated.status_code == 400, updated.text


async def test_a_role_name_of_255_characters_is_kept(client, admin):
    created = await client.post(ROLES, json={"name": "r" * 255}, headers=admin)
    assert created.status_code == 200, created.text
    names = [role["name"] for role in (await client.get(ROLES, headers=admin)).json()["roles"]]
    assert "r" * 255 in names
