"""The ``/api/auth/*`` rate limit, keyed as Strapi's users-permissions plugin keys it:
e-mail in the body (a login's ``identifier``) + path + client address; 429 ``RateLimitError``.

The reference Strapi 4.25 answered the 11th request of one key within a minute with
``{"status": 429, "name": "RateLimitError", "message": "Too many requests, please try again
later.", "details": {}}`` (``X-RateLimit-Limit: 10``), and kept other e-mails' counters apart.
"""

from __future__ import annotations

import httpx

from contentapi.config import Settings

RATE_LIMITED = {
    "status": 429,
    "name": "RateLimitError",
    "message": "Too many requests, please try again later.",
    "details": {},
}


def _person(n: int) -> dict[str, str]:
    return {"username": f"user{n}", "email": f"user{n}@example.com", "password": "secret pass 1"}


async def _login(client, identifier: str):
    return await client.post(
        "/api/auth/local", json={"identifier": identifier, "password": "wrong pass"}
    )


def test_default_limit_is_strapis_ten_per_minute():
    assert Settings.model_fields["auth_rate_limit_max"].default == 10
    assert Settings.model_fields["auth_rate_limit_window"].default == "60s"


async def test_many_users_register_and_log_in_from_one_address(start_app):
    handle = await start_app(auth_rate_limit_max=3)
    for n in range(6):
        registered = await handle.client.post("/api/auth/local/register", json=_person(n))
        assert registered.status_code == 200, registered.text
    for n in range(6):
        login = await handle.client.post(
            "/api/auth/local", json={"identifier": f"user{n}", "password": "secret pass 1"}
        )
        assert login.status_code == 200, login.text


async def test_one_identifier_is_throttled_after_the_limit(start_app):
    handle = await start_app(auth_rate_limit_max=3)
    statuses = [(await _login(handle.client, "Alice")).status_code for _ in range(3)]
    refused = await _login(handle.client, "alice")  # the e-mail/identifier is lower-cased
    assert statuses == [400, 400, 400]
    assert refused.status_code == 429
    assert refused.json() == {"data": None, "error": RATE_LIMITED}
    assert (await _login(handle.client, "bob")).status_code == 400


async def test_email_in_the_body_keys_the_count_on_every_auth_route(start_app):
    handle = await start_app(auth_rate_limit_max=2)
    body = {"identifier": "a", "password": "x", "email": "Same@Example.com"}
    statuses = []
    for n in range(3):
        response = await handle.client.post(
            "/api/auth/local", json={**body, "identifier": f"someone{n}"}
        )
        statuses.append(response.status_code)
    assert statuses == [400, 400, 429]
    # Another path has its own counter for the same e-mail.
    registered = await handle.client.post(
        "/api/auth/local/register",
        json={"username": "same", "email": "same@example.com", "password": "secret pass 1"},
    )
    assert registered.status_code == 200, registered.text


async def test_another_client_address_has_its_own_count(start_app):
    handle = await start_app(auth_rate_limit_max=1)
    assert (await _login(handle.client, "alice")).status_code == 400
    assert (await _login(handle.client, "alice")).status_code == 429
    transport = httpx.ASGITransport(app=handle.app, client=("203.0.113.7", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        assert (await _login(other, "alice")).status_code == 400


async def test_the_count_is_shared_by_workers_on_one_database(start_app, databases):
    url = await databases.new_url()
    first = await start_app(database_url=url, auth_rate_limit_max=2)
    second = await start_app(database_url=url, auth_rate_limit_max=2)
    assert (await _login(first.client, "alice")).status_code == 400
    assert (await _login(second.client, "alice")).status_code == 400
    assert (await _login(first.client, "alice")).status_code == 429


async def test_graphql_login_shares_the_rest_count(start_app):
    handle = await start_app(auth_rate_limit_max=1)
    assert (await _login(handle.client, "alice")).status_code == 400
    mutation = 'mutation { login(input: {identifier: "alice", password: "x"}) { jwt } }'
    response = await handle.client.post("/graphql", json={"query": mutation})
    errors = response.json()["errors"]
    assert errors[0]["message"] == RATE_LIMITED["message"]
    other = 'mutation { login(input: {identifier: "bob", password: "x"}) { jwt } }'
    response = await handle.client.post("/graphql", json={"query": other})
    assert response.json()["errors"][0]["message"] != RATE_LIMITED["message"]


async def test_a_rest_and_a_graphql_login_count_as_one(start_app):
    """One count per flow, whichever protocol asks: GraphQL first, then REST, then either is
    refused; the password-reset mail shares its count the same way."""
    handle = await start_app(auth_rate_limit_max=2)
    login = 'mutation { login(input: {identifier: "Alice", password: "x"}) { jwt } }'

    async def graphql(query: str) -> str:
        response = await handle.client.post("/graphql", json={"query": query})
        return response.json()["errors"][0]["message"]

    assert await graphql(login) != RATE_LIMITED["message"]
    assert (await _login(handle.client, "alice")).status_code == 400
    assert await graphql(login) == RATE_LIMITED["message"]
    assert (await _login(handle.client, "alice")).status_code == 429

    forgot = 'mutation { forgotPassword(email: "nobody@example.com") { ok } }'
    response = await handle.client.post("/graphql", json={"query": forgot})
    assert response.json() == {"data": {"forgotPassword": {"ok": True}}}
    body = {"email": "Nobody@example.com"}
    assert (await handle.client.post("/api/auth/forgot-password", json=body)).status_code == 200
    refused = await handle.client.post("/api/auth/forgot-password", json=body)
    assert refused.status_code == 429
    assert await graphql(forgot) == RATE_LIMITED["message"]
