"""Nobody can lock a user out of signing in, and guessing one account's password stays limited.

The ``/api/auth/*`` counts are per account named in the body + path + client address: wrong
passwords from one address end in 429 there, and only there — the owner, elsewhere, still signs
in. A login is counted under its ``identifier`` even when the body adds an ``email`` (Strapi's
key): made-up e-mails do not buy more guesses at one account.
"""

from __future__ import annotations

import httpx

PASSWORD = "the right pass 1"


def _client_at(app, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def _login(client, password: str, **extra: str) -> int:
    body = {"identifier": "alice", "password": password, **extra}
    return (await client.post("/api/auth/local", json=body)).status_code


async def test_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(start_app):
    handle = await start_app(auth_rate_limit_max=3)
    registered = await handle.client.post(
        "/api/auth/local/register",
        json={"username": "alice", "email": "alice@example.com", "password": PASSWORD},
    )
    assert registered.status_code == 200, registered.text
    async with _client_at(handle.app, "203.0.113.66") as attacker:
        tries = [await _login(attacker, f"guess {n}") for n in range(8)]
        assert tries == [400, 400, 400, 429, 429, 429, 429, 429]
        # Over the limit, even the right password is refused there: guessing stays limited.
        assert await _login(attacker, PASSWORD) == 429
    async with _client_at(handle.app, "198.51.100.20") as owner:
        assert await _login(owner, PASSWORD) == 200
    # The GraphQL login shares the counts: the attacker is refused there too, the owner is not.
    mutation = {
        "query": 'mutation($p: String!) { login(input: {identifier: "alice", password: $p})'
        " { jwt } }",
        "variables": {"p": PASSWORD},
    }
    async with _client_at(handle.app, "203.0.113.66") as attacker:
        refused = (await attacker.post("/graphql", json=mutation)).json()
        assert refused["errors"][0]["extensions"]["error"]["name"] == "RateLimitError"
    async with _client_at(handle.app, "198.51.100.20") as owner:
        assert (await owner.post("/graphql", json=mutation)).json()["data"]["login"]["jwt"]


async def test_a_made_up_email_in_a_login_body_does_not_reset_the_account_count(start_app):
    handle = await start_app(auth_rate_limit_max=3)
    statuses = [
        await _login(handle.client, f"guess {n}", email=f"nobody{n}@example.com") for n in range(5)
    ]
    assert statuses == [400, 400, 400, 429, 429]
