"""Sign-in with the password hashes a Strapi database holds, and the way back to Strapi.

A user row is written as Strapi wrote it (``$2a$10$`` from ``bcryptjs``, see
``tests/unit/test_passwords.py``): signing in works and leaves the hash exactly as it was;
users registered here get a hash Strapi verifies; ``CONTENTAPI_PASSWORD_HASH=argon2`` is the
only way a hash becomes argon2.
"""

from __future__ import annotations

from sqlalchemy import select

from contentapi.auth.permissions import role_id_of_type
from contentapi.schema.builtin import USER_UID
from tests.unit.test_passwords import STRAPI_HASH, STRAPI_PASSWORD


async def _strapi_user(runtime, username: str = "strapi-user") -> int:
    users = runtime.tables.entity(USER_UID)
    async with runtime.database.write() as conn:
        role = await role_id_of_type(conn, runtime.tables, "authenticated")
        user_id = (
            await conn.execute(
                users.insert()
                .values(
                    username=username,
                    email=f"{username}@example.com",
                    provider="local",
                    password=STRAPI_HASH,
                    confirmed=True,
                    blocked=False,
                )
                .returning(users.c.id)
            )
        ).scalar_one()
        links = runtime.tables.metadata.tables["up_users_role_links"]
        await conn.execute(links.insert().values(user_id=user_id, role_id=role))
    return int(user_id)


async def _stored_hash(runtime, user_id: int) -> str:
    users = runtime.tables.entity(USER_UID)
    async with runtime.database.read() as conn:
        found = await conn.execute(select(users.c.password).where(users.c.id == user_id))
        return str(found.scalar_one())


async def test_a_strapi_user_signs_in_and_keeps_the_hash(app, client):
    user_id = await _strapi_user(app.runtime)
    for identifier in ("strapi-user", "STRAPI-user@example.com"):
        response = await client.post(
            "/api/auth/local", json={"identifier": identifier, "password": STRAPI_PASSWORD}
        )
        assert response.status_code == 200, response.text
        assert response.json()["user"]["id"] == user_id
    wrong = await client.post(
        "/api/auth/local", json={"identifier": "strapi-user", "password": "nope"}
    )
    assert wrong.status_code == 400
    assert await _stored_hash(app.runtime, user_id) == STRAPI_HASH


async def test_registration_and_password_change_store_strapi_readable_hashes(app, client):
    body = {"username": "bob", "email": "bob@example.com", "password": "correct horse 1"}
    registered = await client.post("/api/auth/local/register", json=body)
    assert registered.status_code == 200, registered.text
    user_id = registered.json()["user"]["id"]
    assert (await _stored_hash(app.runtime, user_id)).startswith("$2a$10$")
    changed = await client.post(
        "/api/auth/change-password",
        json={
            "currentPassword": "correct horse 1",
            "password": "battery staple 2",
            "passwordConfirmation": "battery staple 2",
        },
        headers={"Authorization": f"Bearer {registered.json()['jwt']}"},
    )
    assert changed.status_code == 200, changed.text
    assert (await _stored_hash(app.runtime, user_id)).startswith("$2a$10$")


async def test_argon2_opt_in_rehashes_at_sign_in(start_app):
    handle = await start_app(password_hash="argon2")
    user_id = await _strapi_user(handle.runtime)
    response = await handle.client.post(
        "/api/auth/local", json={"identifier": "strapi-user", "password": STRAPI_PASSWORD}
    )
    assert response.status_code == 200, response.text
    assert (await _stored_hash(handle.runtime, user_id)).startswith("$argon2")
    again = await handle.client.post(
        "/api/auth/local", json={"identifier": "strapi-user", "password": STRAPI_PASSWORD}
    )
    assert again.status_code == 200
