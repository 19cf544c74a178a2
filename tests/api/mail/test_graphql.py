"""The GraphQL ``forgotPassword``, ``resetPassword`` and ``emailConfirmation`` mutations:
the same flows, codes and errors as the REST routes, following the mailed links."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.api.graphql.conftest import gql
from tests.api.mail.conftest import delivered, login, register, set_advanced

FRONT = "https://front.example.test/reset"
PAYLOAD = "{ jwt user { id username confirmed role { type } } }"
RESET = f"""mutation($code: String!, $password: String!, $confirmation: String!) {{
  resetPassword(code: $code, password: $password, passwordConfirmation: $confirmation) {PAYLOAD}
}}"""
CONFIRM = f"mutation($c: String!) {{ emailConfirmation(confirmation: $c) {PAYLOAD} }}"


async def test_forgot_and_reset_password(mail_app, smtp, leaks):
    client = mail_app.client
    await register(mail_app)
    await set_advanced(mail_app, email_reset_password=FRONT)
    for address in ("alice@example.com", "nobody@example.com"):
        asked = await gql(
            client, "mutation($e: String!) { forgotPassword(email: $e) { ok } }", {"e": address}
        )
        assert asked == {"data": {"forgotPassword": {"ok": True}}}
    [mail] = await delivered(mail_app, smtp)
    code = leaks.secret(parse_qs(urlsplit(mail.links()[0]).query)["code"][0])
    password = leaks.secret("graphql pass 1")
    variables = {"code": code, "password": password, "confirmation": password}
    reset = await gql(client, RESET, variables, headers=None)
    result = reset["data"]["resetPassword"]
    assert result["user"]["username"] == "alice" and result["jwt"]
    assert (await login(mail_app, "alice", password)).status_code == 200

    again = await gql(client, RESET, variables, headers=None)
    assert again["data"] == {"resetPassword": None}
    assert again["errors"][0]["message"] == "Incorrect code provided"
    assert again["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_forgot_password_with_an_invalid_address(mail_app, leaks):
    body = await gql(mail_app.client, 'mutation { forgotPassword(email: "nope") { ok } }')
    assert body["errors"][0]["message"] == "email must be a valid email"


async def test_email_confirmation_answers_a_jwt(mail_app, smtp, leaks):
    await set_advanced(mail_app, email_confirmation=True)
    registered = await gql(
        mail_app.client,
        'mutation { register(input: {username: "dan", email: "dan@example.com", '
        'password: "dan pass 1"}) { jwt user { confirmed } } }',
        headers=None,
    )
    assert registered["data"]["register"] == {"jwt": None, "user": {"confirmed": False}}
    [mail] = await delivered(mail_app, smtp)
    code = leaks.secret(parse_qs(urlsplit(mail.links()[0]).query)["confirmation"][0])
    confirmed = await gql(mail_app.client, CONFIRM, {"c": code}, headers=None)
    result = confirmed["data"]["emailConfirmation"]
    assert result["jwt"] and result["user"]["confirmed"] is True
    assert result["user"]["role"]["type"] == "authenticated"
    again = await gql(mail_app.client, CONFIRM, {"c": code}, headers=None)
    assert again["errors"][0]["message"] == "Invalid token"
