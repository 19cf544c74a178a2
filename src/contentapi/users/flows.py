"""The users-permissions auth flows, once for every protocol: rate limit, then the service.

REST (``users/routes.py``) and GraphQL (``graphql/users.py``) both call these; they keep only
their protocol's part: the permission check (Strapi's REST routes ask one each; its GraphQL
resolvers are ``auth: false`` but ``changePassword``, and the two refuse in different words,
REST before it reads the body), reading the body or the arguments, and shaping the answer.

Each throttled flow is counted under its own name (``AuthFlow``), not a URL path, so a sign-in
over REST and one over GraphQL count against one limit: ``auth/ratelimit.py`` keys a count by
account + flow + client address. ``email-confirmation`` is not throttled (a 256-bit code
cannot be guessed), as in Strapi; ``send-email-confirmation`` is, unlike Strapi: it sends mail.

    flows = AuthFlows(users, mail, limiter)  # built once by app.py
    signed_in = await flows.login(body, client="203.0.113.7")
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from contentapi.auth.ratelimit import RateLimiter, accounts_of
from contentapi.errors import ValidationError
from contentapi.users.account_mail import AccountMail
from contentapi.users.auth_bodies import (
    confirmation_query,
    forgot_password_body,
    reset_password_body,
    send_confirmation_body,
)
from contentapi.users.service import UsersService

__all__ = ["AuthFlow", "AuthFlows", "SignedIn"]


class AuthFlow(StrEnum):
    """The throttled flows, by the names their rate-limit counts are kept under."""

    LOGIN = "auth.local"
    REGISTER = "auth.local.register"
    CHANGE_PASSWORD = "auth.change-password"
    FORGOT_PASSWORD = "auth.forgot-password"
    RESET_PASSWORD = "auth.reset-password"
    SEND_EMAIL_CONFIRMATION = "auth.send-email-confirmation"


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A flow's signed-in user: ``jwt`` is ``None`` for a sign-up that must confirm its address
    first; ``user`` is the record the service wrote or read, ``None`` when the flow read none
    (reset, confirmation: each protocol reads the user it answers with its own query)."""

    jwt: str | None
    user_id: int
    user: dict[str, Any] | None = None


class AuthFlows:
    """The flows over the users service, the account mail and the rate limiter (``None``: no
    limit). Services are taken, not built, so any composition root can hand them in."""

    def __init__(self, users: UsersService, mail: AccountMail, limiter: RateLimiter | None):
        self.users = users
        self.mail = mail
        self.limiter = limiter

    async def _count(self, flow: AuthFlow, client: str, body: Mapping[str, Any]) -> None:
        """One request of ``flow`` from ``client``, under each account ``body`` names."""
        if self.limiter is not None:
            await self.limiter.hit(flow, client, accounts_of(body))

    @staticmethod
    def _signed_in(jwt: str | None, user: dict[str, Any]) -> SignedIn:
        return SignedIn(jwt, int(user["id"]), user)

    async def login(
        self, body: Mapping[str, Any], client: str, *, provider: str = "local"
    ) -> SignedIn:
        """Sign in with ``identifier`` and ``password``; only the ``local`` provider exists
        (REST routes only it; GraphQL's input names it), checked once the request is counted."""
        await self._count(AuthFlow.LOGIN, client, body)
        if provider != "local":
            raise ValidationError("Only the local provider is available")
        return self._signed_in(*await self.users.login(body))

    async def register(self, body: Mapping[str, Any], client: str) -> SignedIn:
        """Sign up (``users.service``: the plugin's advanced settings decide the rest)."""
        await self._count(AuthFlow.REGISTER, client, body)
        return self._signed_in(*await self.users.register(body))

    async def change_password(self, user_id: int, body: Mapping[str, Any], client: str) -> SignedIn:
        """The signed-in user ``user_id`` changes its password: a new JWT."""
        await self._count(AuthFlow.CHANGE_PASSWORD, client, body)
        return self._signed_in(*await self.users.change_password(user_id, body))

    async def forgot_password(self, body: Mapping[str, Any], client: str) -> None:
        """Mail a reset code to ``email``'s account; the same outcome when there is none."""
        await self._count(AuthFlow.FORGOT_PASSWORD, client, body)
        await self.mail.forgot_password(forgot_password_body(body))

    async def reset_password(self, body: Mapping[str, Any], client: str) -> SignedIn:
        """Set a new password with the mailed ``code``: the account is signed in."""
        await self._count(AuthFlow.RESET_PASSWORD, client, body)
        user_id = await self.mail.reset_password(*reset_password_body(body))
        return self.sign_in(user_id)

    async def confirm_email(self, query: Mapping[str, Any]) -> int:
        """Confirm an address with its mailed ``confirmation`` code: the account's user id.

        Strapi's GraphQL then signs the account in (``sign_in``); its REST route redirects."""
        return await self.mail.confirm(confirmation_query(query))

    def sign_in(self, user_id: int) -> SignedIn:
        """A new JWT for ``user_id``."""
        return SignedIn(self.users.issue(user_id), user_id)

    async def confirmation_redirect(self) -> str:
        """Where a confirmed address is sent (the plugin's advanced settings)."""
        return await self.mail.confirmation_redirect()

    async def send_email_confirmation(self, body: Mapping[str, Any], client: str) -> dict[str, Any]:
        """Mail the confirmation link again: ``{email, sent}``, or Strapi's refusals."""
        await self._count(AuthFlow.SEND_EMAIL_CONFIRMATION, client, body)
        return await self.mail.resend_confirmation(send_confirmation_body(body))
