"""``email_confirmation``: sign-up without a JWT, the mailed link confirms and redirects;
``POST /api/auth/send-email-confirmation``; login refused until confirmed."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.api.mail.conftest import PUBLIC_URL, delivered, login, register, set_advanced

REDIRECT = "https://front.example.test/welcome"


def _follow(link: str) -> tuple[str, str]:
    """The path and query of a link to this server (the test client speaks to it directly)."""
    assert link.startswith(PUBLIC_URL + "/api/auth/email-confirmation?confirmation="), link
    parts = urlsplit(link)
    return parts.path, parts.query


async def test_sign_up_confirm_by_the_mailed_link_then_log_in(mail_app, smtp, leaks):
    client = mail_app.client
    password = leaks.secret("first pass 1")
    await set_advanced(mail_app, email_confirmation=True, email_confirmation_redirection=REDIRECT)
    registered = await register(mail_app, password=password)
    assert registered.status_code == 200, registered.text
    assert set(registered.json()) == {"user"}, "no JWT before the address is confirmed"
    assert registered.json()["user"]["confirmed"] is False

    refused = await login(mail_app, "alice", password)
    assert refused.status_code == 400
    assert refused.json()["error"] == {
        "status": 400,
        "name": "ApplicationError",
        "message": "Your account email is not confirmed",
        "details": {},
    }

    [mail] = await delivered(mail_app, smtp)
    assert mail.recipients == ["alice@example.com"]
    assert mail.message["Subject"] == "Account confirmation"
    [link] = mail.links()
    path, query = _follow(link)
    leaks.secret(parse_qs(query)["confirmation"][0])
    confirmed = await client.get(f"{path}?{query}", follow_redirects=False)
    assert confirmed.status_code == 302
    assert confirmed.headers["location"] == REDIRECT

    assert (await login(mail_app, "alice", password)).status_code == 200
    again = await client.get(f"{path}?{query}", follow_redirects=False)
    assert again.status_code == 400
    assert again.json()["error"]["message"] == "Invalid token"


async def test_confirmation_redirects_to_the_root_without_a_redirection(mail_app, smtp, leaks):
    await set_advanced(mail_app, email_confirmation=True)
    await register(mail_app)
    [mail] = await delivered(mail_app, smtp)
    path, query = _follow(mail.links()[0])
    leaks.secret(parse_qs(query)["confirmation"][0])
    confirmed = await mail_app.client.get(f"{path}?{query}", follow_redirects=False)
    assert (confirmed.status_code, confirmed.headers["location"]) == (302, "/")


async def test_confirmation_query_errors(mail_app, leaks):
    client = mail_app.client
    for query, message in [
        ("", "confirmation is a required field"),
        ("confirmation=", "confirmation is a required field"),
        ("confirmation=unknown", "Invalid token"),
        ("confirmation=a&confirmation=b", None),
    ]:
        response = await client.get(f"/api/auth/email-confirmation?{query}")
        assert response.status_code == 400, query
        assert response.json()["error"]["name"] == "ValidationError", query
        if message:
            assert response.json()["error"]["message"] == message, query


async def test_send_email_confirmation_sends_a_new_link(mail_app, smtp, leaks):
    client = mail_app.client
    await set_advanced(mail_app, email_confirmation=True)
    await register(mail_app)
    resent = await client.post(
        "/api/auth/send-email-confirmation", json={"email": "Alice@example.com"}
    )
    assert (resent.status_code, resent.json()) == (
        200,
        {"email": "alice@example.com", "sent": True},
    )
    first, second = await delivered(mail_app, smtp)
    old, new = (_follow(mail.links()[0]) for mail in (first, second))
    for _, query in (old, new):
        leaks.secret(parse_qs(query)["confirmation"][0])
    stale = await client.get(f"{old[0]}?{old[1]}", follow_redirects=False)
    assert stale.status_code == 400, "a new link replaces the previous one"
    fresh = await client.get(f"{new[0]}?{new[1]}", follow_redirects=False)
    assert fresh.status_code == 302

    confirmed = await client.post(
        "/api/auth/send-email-confirmation", json={"email": "alice@example.com"}
    )
    assert confirmed.status_code == 400
    assert confirmed.json()["error"]["message"] == "Already confirmed"
    assert confirmed.json()["error"]["name"] == "ApplicationError"


async def test_send_email_confirmation_for_unknown_and_blocked_users(mail_app, smtp, leaks):
    client = mail_app.client
    await set_advanced(mail_app, email_confirmation=True)
    user = (await register(mail_app, "bob")).json()["user"]
    await delivered(mail_app, smtp)
    admin = {"Authorization": "Bearer test-admin-token"}
    await client.put(f"/api/users/{user['id']}", json={"blocked": True}, headers=admin)
    unknown = await client.post(
        "/api/auth/send-email-confirmation", json={"email": "Nobody@example.com"}
    )
    assert unknown.json() == {"email": "Nobody@example.com", "sent": True}
    blocked = await client.post(
        "/api/auth/send-email-confirmation", json={"email": "bob@example.com"}
    )
    assert blocked.status_code == 400
    assert blocked.json()["error"]["message"] == "User blocked"
    invalid = await client.post("/api/auth/send-email-confirmation", json={"email": "nope"})
    assert invalid.json()["error"]["message"] == "email must be a valid email"
    assert len(await delivered(mail_app, smtp)) == 1, "only the sign-up's mail"
