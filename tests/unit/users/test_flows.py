"""``users.flows`` counts each flow under its own name before calling the service, whichever
protocol calls it (the names are the rate-limit keys REST and GraphQL share)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest

from contentapi.auth.ratelimit import RateLimiter
from contentapi.errors import RateLimitError, ValidationError
from contentapi.users.account_mail import AccountMail
from contentapi.users.flows import AuthFlow, AuthFlows, SignedIn
from contentapi.users.service import UsersService


class _Limiter:
    """Records every count; refuses once ``refuse`` is set."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str, tuple[str, ...]]] = []
        self.refuse = False

    async def hit(self, flow: str, client_ip: str, accounts: Sequence[str]) -> None:
        self.hits.append((flow, client_ip, tuple(accounts)))
        if self.refuse:
            raise RateLimitError()


class _Users:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def login(self, body: Any) -> tuple[str, dict[str, Any]]:
        self.calls.append("login")
        return "jwt-login", {"id": 7, "username": "alice"}

    async def register(self, body: Any) -> tuple[str | None, dict[str, Any]]:
        self.calls.append("register")
        return None, {"id": "8"}

    async def change_password(self, user_id: int, body: Any) -> tuple[str, dict[str, Any]]:
        self.calls.append("change_password")
        return "jwt-changed", {"id": user_id}

    def issue(self, user_id: int) -> str:
        return f"jwt-{user_id}"


class _Mail:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    async def forgot_password(self, email: str) -> None:
        self.calls.append(("forgot_password", (email,)))

    async def reset_password(self, password: str, confirmation: str, code: str) -> int:
        self.calls.append(("reset_password", (password, confirmation, code)))
        return 9

    async def confirm(self, code: str) -> int:
        self.calls.append(("confirm", (code,)))
        return 10

    async def resend_confirmation(self, email: str) -> dict[str, Any]:
        self.calls.append(("resend_confirmation", (email,)))
        return {"email": email, "sent": True}


@pytest.fixture
def parts() -> tuple[AuthFlows, _Limiter, _Users, _Mail]:
    limiter, users, mail = _Limiter(), _Users(), _Mail()
    flows = AuthFlows(
        cast(UsersService, users), cast(AccountMail, mail), cast(RateLimiter, limiter)
    )
    return flows, limiter, users, mail


async def test_every_throttled_flow_counts_under_its_name_and_the_accounts_named(parts):
    flows, limiter, _, _ = parts
    client = "203.0.113.7"
    assert await flows.login({"identifier": "Alice", "password": "x"}, client) == SignedIn(
        "jwt-login", 7, {"id": 7, "username": "alice"}
    )
    assert (await flows.register({"email": "B@x.org"}, client)).user_id == 8
    assert (await flows.change_password(3, {"password": "p"}, client)).jwt == "jwt-changed"
    await flows.forgot_password({"email": "C@x.org"}, client)
    body = {"password": "p", "passwordConfirmation": "p", "code": "c"}
    assert await flows.reset_password(body, client) == SignedIn("jwt-9", 9)
    assert await flows.send_email_confirmation({"email": "D@x.org"}, client) == {
        "email": "D@x.org",
        "sent": True,
    }
    assert limiter.hits == [
        ("auth.local", client, ("alice",)),
        ("auth.local.register", client, ("b@x.org",)),
        ("auth.change-password", client, ("unknownIdentifier",)),
        ("auth.forgot-password", client, ("c@x.org",)),
        ("auth.reset-password", client, ("unknownIdentifier",)),
        ("auth.send-email-confirmation", client, ("d@x.org",)),
    ]
    assert [flow.value for flow in AuthFlow] == [hit[0] for hit in limiter.hits]


async def test_a_refused_count_stops_the_flow_before_the_service(parts):
    flows, limiter, users, mail = parts
    limiter.refuse = True
    with pytest.raises(RateLimitError):
        await flows.login({"identifier": "alice"}, "127.0.0.1")
    with pytest.raises(RateLimitError):
        await flows.forgot_password({"email": "a@x.org"}, "127.0.0.1")
    assert users.calls == [] and mail.calls == []


async def test_another_provider_is_refused_once_counted(parts):
    flows, limiter, users, _ = parts
    with pytest.raises(ValidationError, match="Only the local provider is available"):
        await flows.login({"identifier": "alice"}, "127.0.0.1", provider="github")
    assert len(limiter.hits) == 1 and users.calls == []


async def test_email_confirmation_is_not_counted_and_signs_in_on_request(parts):
    flows, limiter, _, mail = parts
    user_id = await flows.confirm_email({"confirmation": "code"})
    assert (user_id, flows.sign_in(user_id)) == (10, SignedIn("jwt-10", 10))
    assert limiter.hits == [] and mail.calls == [("confirm", ("code",))]


async def test_no_limiter_means_no_count(parts):
    _, _, users, mail = parts
    flows = AuthFlows(cast(UsersService, users), cast(AccountMail, mail), None)
    assert (await flows.login({"identifier": "alice"}, "127.0.0.1")).jwt == "jwt-login"
