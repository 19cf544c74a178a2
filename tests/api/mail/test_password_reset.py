"""``POST /api/auth/forgot-password`` and ``POST /api/auth/reset-password`` through a real SMTP
server: the mailed link resets the password once; answers as users-permissions 4.25 gives them.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from sqlalchemy import select

from contentapi.schema.builtin import USER_UID
from tests.api.mail.conftest import delivered, login, register, set_advanced

FRONT = "https://front.example.test/reset-password"


def _code(link: str) -> str:
    return parse_qs(urlsplit(link).query)["code"][0]


async def test_the_mailed_link_resets_the_password_once(mail_app, smtp, leaks):
    client = mail_app.client
    leaks.secret("first pass 1")
    user = (await register(mail_app)).json()["user"]
    await set_advanced(mail_app, email_reset_password=FRONT)

    asked = await client.post("/api/auth/forgot-password", json={"email": "ALICE@example.com"})
    assert (asked.status_code, asked.json()) == (200, {"ok": True})
    [mail] = await delivered(mail_app, smtp)
    assert mail.recipients == ["alice@example.com"]
    assert mail.message["Subject"] == "Reset password"
    assert mail.message["From"] == "Site <no-reply@example.com>"
    [link] = [link for link in mail.links() if link.startswith(FRONT + "?code=")]
    code = leaks.secret(_code(link))
    assert len(code) == 64 and f"{FRONT}?code={code}" in mail.html

    async with mail_app.runtime.database.read() as conn:
        users = mail_app.runtime.tables.entity(USER_UID)
        stored = (await conn.execute(select(users.c.reset_password_token))).scalar()
    assert stored is not None and code not in stored, "the code is stored as a digest"

    new_password = leaks.secret("second pass 2")
    mismatch = await client.post(
        "/api/auth/reset-password",
        json={"code": code, "password": new_password, "passwordConfirmation": "other"},
    )
    assert mismatch.status_code == 400
    assert mismatch.json()["error"]["message"] == "Passwords do not match"
    reset = await client.post(
        "/api/auth/reset-password",
        json={"code": code, "password": new_password, "passwordConfirmation": new_password},
    )
    assert reset.status_code == 200, reset.text
    body = reset.json()
    assert set(body) == {"jwt", "user"} and body["user"]["id"] == user["id"]
    me = await client.get("/api/users/me", headers={"Authorization": f"Bearer {body['jwt']}"})
    assert me.json()["id"] == user["id"]
    assert (await login(mail_app, "alice", new_password)).status_code == 200
    assert (await login(mail_app, "alice", "first pass 1")).status_code == 400

    again = await client.post(
        "/api/auth/reset-password",
        json={"code": code, "password": "third pass 3", "passwordConfirmation": "third pass 3"},
    )
    assert again.status_code == 400
    assert again.json()["error"] == {
        "status": 400,
        "name": "ValidationError",
        "message": "Incorrect code provided",
        "details": {},
    }


async def test_unknown_and_blocked_addresses_get_the_same_answer_and_no_mail(mail_app, smtp, leaks):
    client = mail_app.client
    user = (await register(mail_app, "bob")).json()["user"]
    admin = {"Authorization": "Bearer test-admin-token"}
    await client.put(f"/api/users/{user['id']}", json={"blocked": True}, headers=admin)
    unknown = await client.post("/api/auth/forgot-password", json={"email": "nobody@example.com"})
    blocked = await client.post("/api/auth/forgot-password", json={"email": "bob@example.com"})
    assert unknown.status_code == blocked.status_code == 200
    assert unknown.content == blocked.content == b'{"ok":true}'
    assert await delivered(mail_app, smtp) == []


async def test_a_new_request_replaces_the_previous_code(mail_app, smtp, leaks):
    client = mail_app.client
    await register(mail_app)
    await set_advanced(mail_app, email_reset_password=FRONT)
    for _ in range(2):
        await client.post("/api/auth/forgot-password", json={"email": "alice@example.com"})
    first, second = await delivered(mail_app, smtp)
    old_code, new_code = (leaks.secret(_code(mail.links()[0])) for mail in (first, second))
    assert old_code != new_code
    body = {"password": "new pass 22", "passwordConfirmation": "new pass 22"}
    old = await client.post("/api/auth/reset-password", json={**body, "code": old_code})
    assert old.json()["error"]["message"] == "Incorrect code provided"
    new = await client.post("/api/auth/reset-password", json={**body, "code": new_code})
    assert new.status_code == 200


async def test_reset_checks_the_new_password_before_using_the_code(mail_app, smtp, leaks):
    client = mail_app.client
    await register(mail_app)
    await set_advanced(mail_app, email_reset_password=FRONT)
    await client.post("/api/auth/forgot-password", json={"email": "alice@example.com"})
    [mail] = await delivered(mail_app, smtp)
    code = leaks.secret(_code(mail.links()[0]))
    short = await client.post(
        "/api/auth/reset-password",
        json={"code": code, "password": "abc", "passwordConfirmation": "abc"},
    )
    assert short.status_code == 400
    assert short.json()["error"]["name"] == "ValidationError"
    good = await client.post(
        "/api/auth/reset-password",
        json={"code": code, "password": "long enough", "passwordConfirmation": "long enough"},
    )
    assert good.status_code == 200, good.text


async def test_body_errors_are_strapis(mail_app, leaks):
    client = mail_app.client
    cases = [
        ("/api/auth/forgot-password", {}, "email is a required field"),
        ("/api/auth/forgot-password", {"email": "not-an-address"}, "email must be a valid email"),
        ("/api/auth/forgot-password", {"email": 5}, None),
        (
            "/api/auth/forgot-password",
            {"email": "a@example.com", "junk": 1},
            "this field has unspecified keys: junk",
        ),
        ("/api/auth/reset-password", {}, "3 errors occurred"),
        (
            "/api/auth/reset-password",
            {"code": "x", "password": "abcdef", "passwordConfirmation": "abcdef"},
            "Incorrect code provided",
        ),
        (
            "/api/auth/reset-password",
            {"code": "x", "password": "abcdef", "passwordConfirmation": "abcdef", "role": 1},
            "this field has unspecified keys: role",
        ),
    ]
    for path, body, message in cases:
        response = await client.post(path, json=body)
        assert response.status_code == 400, (path, body, response.text)
        error = response.json()["error"]
        assert error["name"] == "ValidationError", (path, body)
        if message is not None:
            assert error["message"] == message, (path, body)
