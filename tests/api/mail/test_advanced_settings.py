"""The plugin's advanced settings and mail templates, stored as Strapi stores them
(``strapi_core_store_settings``) and read from there: register and login honour them."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from contentapi.auth.plugin_settings import ADVANCED_KEY, UnknownRoleError
from contentapi.db.core_store import write_json
from contentapi.db.system import core_store
from tests.api.mail.conftest import delivered, login, register, set_advanced

ADMIN = {"Authorization": "Bearer test-admin-token"}
#: As Strapi 4.25's bootstrap writes the row (``JSON.stringify``, ``typeof`` → ``object``).
STRAPI_ADVANCED = {
    "unique_email": True,
    "allow_register": True,
    "email_confirmation": False,
    "email_reset_password": None,
    "email_confirmation_redirection": None,
    "default_role": "authenticated",
}


async def _rows(handle) -> dict[str, tuple[str, object]]:
    async with handle.runtime.database.read() as conn:
        found = await conn.execute(
            select(core_store.c.key, core_store.c.type, core_store.c.value).where(
                core_store.c.key.like("plugin_users-permissions_%")
            )
        )
        return {row.key: (row.type, json.loads(row.value)) for row in found}


async def test_start_up_stores_strapis_defaults_in_strapis_rows(mail_app, leaks):
    rows = await _rows(mail_app)
    assert rows["plugin_users-permissions_advanced"] == ("object", STRAPI_ADVANCED)
    kind, email = rows["plugin_users-permissions_email"]
    assert kind == "object"
    assert set(email) == {"reset_password", "email_confirmation"}
    reset = email["reset_password"]["options"]
    assert reset["object"] == "Reset password"
    assert "<%= URL %>?code=<%= TOKEN %>" in reset["message"]
    confirmation = email["email_confirmation"]["options"]
    assert "<%= URL %>?confirmation=<%= CODE %>" in confirmation["message"]


async def test_settings_of_an_existing_database_are_read_and_kept(
    start_app, smtp, leaks, databases
):
    """A database whose rows Strapi wrote (its own sender, a custom template) keeps them
    across our start-up, and the flows use them."""
    url = await databases.new_url()
    first = await start_app(database_url=url, **smtp.settings())
    async with first.runtime.database.write() as conn:
        await conn.execute(core_store.delete().where(core_store.c.key.like("plugin_users-%")))
        template = {
            "from": {"name": "Shop", "email": "help@shop.example"},
            "response_email": "support@shop.example",
            "object": "Hello <%= USER.username %>",
            "message": "<p>Hi <%= USER.username %>, <%= URL %>?code=<%= TOKEN %> "
            "<%= process.env.SECRET %> <%- USER.email %></p>",
        }
        email = {"reset_password": {"display": "x", "icon": "sync", "options": template}}
        advanced = {**STRAPI_ADVANCED, "email_reset_password": "https://shop.example/reset"}
        for key, value in (("advanced", advanced), ("email", email)):
            await conn.execute(
                core_store.insert().values(
                    key=f"plugin_users-permissions_{key}",
                    value=json.dumps(value),
                    type="object",
                    environment=None,
                    tag=None,
                )
            )
    handle = await start_app(database_url=url, **smtp.settings())  # a restart keeps them
    handle.client.event_hooks["response"].append(leaks.record)
    assert (await _rows(handle))["plugin_users-permissions_advanced"][1] == advanced

    signed_up = await handle.client.post(
        "/api/auth/local/register",
        json={"username": "<b>eve</b>", "email": "eve@example.com", "password": "eve pass 1"},
    )
    assert signed_up.status_code == 200, signed_up.text
    await handle.client.post("/api/auth/forgot-password", json={"email": "eve@example.com"})
    [mail] = await delivered(handle, smtp)
    assert mail.message["From"] == "Shop <help@shop.example>"
    assert mail.message["Reply-To"] == "support@shop.example"
    assert mail.message["Subject"] == "Hello <b>eve</b>"
    html = mail.html
    assert "Hi &lt;b&gt;eve&lt;/b&gt;, https://shop.example/reset?code=" in html, html
    assert "<b>eve</b>" not in html, "user values are escaped in the HTML part"
    assert "<%= process.env.SECRET %> <%- USER.email %>" in html, "nothing else is evaluated"
    assert "Hi <b>eve</b>, https://shop.example/reset?code=" in mail.text
    leaks.secret(mail.text.split("code=")[1].split()[0])


async def test_allow_register_false_refuses_sign_up(mail_app, leaks):
    await set_advanced(mail_app, allow_register=False)
    response = await register(mail_app)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "status": 400,
        "name": "ApplicationError",
        "message": "Register action is currently disabled",
        "details": {},
    }


async def test_default_role_is_the_role_new_users_get(mail_app, leaks):
    client = mail_app.client
    created = await client.post(
        "/api/users-permissions/roles",
        json={"name": "Member", "description": "sign-ups", "permissions": {}},
        headers=ADMIN,
    )
    assert created.status_code == 200, created.text
    await set_advanced(mail_app, default_role="member")
    user = (await register(mail_app)).json()["user"]
    found = await client.get(f"/api/users/{user['id']}?populate=role", headers=ADMIN)
    assert found.json()["role"]["type"] == "member"

    # A stored role that does not exist (its role deleted since, or a hand-edited row):
    # every sign-up is refused, as Strapi refuses it.
    async with mail_app.runtime.database.write() as conn:
        await write_json(conn, ADVANCED_KEY, {**STRAPI_ADVANCED, "default_role": "no-such-role"})
    response = await register(mail_app, "bob")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Impossible to find the default role"


async def test_a_default_role_that_names_no_role_is_refused_and_not_stored(mail_app, leaks):
    with pytest.raises(UnknownRoleError) as refused:
        await set_advanced(mail_app, default_role="editor", allow_register=False)
    assert str(refused.value) == (
        "default_role 'editor' is not a role; the roles are authenticated, public"
    )
    stored = (await _rows(mail_app))["plugin_users-permissions_advanced"][1]
    assert stored == STRAPI_ADVANCED
    assert (await register(mail_app)).status_code == 200


async def test_unique_email_off_still_refuses_a_second_local_account(mail_app, leaks):
    """Strapi's ``unique_email`` only lets one address have accounts of several providers;
    contentapi has the local provider only, so an address stays unique."""
    await set_advanced(mail_app, unique_email=False)
    assert (await register(mail_app)).status_code == 200
    again = await mail_app.client.post(
        "/api/auth/local/register",
        json={"username": "alice2", "email": "alice@example.com", "password": "pass word 1"},
    )
    assert again.status_code == 400
    assert again.json()["error"]["message"] == "Email or Username are already taken"


async def test_without_email_confirmation_unconfirmed_users_log_in(mail_app, smtp, leaks):
    """Strapi checks ``confirmed`` only when ``email_confirmation`` is on."""
    created = await mail_app.client.post(
        "/api/users",
        json={
            "username": "carol",
            "email": "carol@example.com",
            "password": "carol pass 1",
            "role": 1,
            "confirmed": False,
        },
        headers=ADMIN,
    )
    assert created.status_code == 201, created.text
    assert (await login(mail_app, "carol", "carol pass 1")).status_code == 200
    await set_advanced(mail_app, email_confirmation=True)
    refused = await login(mail_app, "carol", "carol pass 1")
    assert refused.json()["error"]["message"] == "Your account email is not confirmed"
    wrong = await login(mail_app, "carol", "wrong pass 1")
    assert wrong.json()["error"]["message"] == "Invalid identifier or password"
    assert await delivered(mail_app, smtp) == []
