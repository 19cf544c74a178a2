"""Actor: who is calling, resolved once per request, and the single ``may`` check.

Every route asks ``may(actor, action)`` with actions named as Strapi names them
(``api::article.article.find``); REST and GraphQL share this one check.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

__all__ = ["READ_ACTIONS", "Actor", "may"]

#: What a read-only API token may do on every content type.
READ_ACTIONS = frozenset({"find", "findOne"})

TokenType = Literal["read-only", "full-access", "custom"]


@dataclass(frozen=True, slots=True)
class Actor:
    """The caller: the public role, an API token (its type; its actions when custom), or a
    signed-in user with the actions of its role."""

    kind: Literal["public", "api-token", "user"]
    token_type: TokenType | None = None
    permissions: frozenset[str] = frozenset()
    token_id: int | None = None
    user_id: int | None = None
    #: when the credential stops being valid (an API token's expiry), for the caller cache
    expires_at: datetime | None = None
    role_id: int | None = None

    @classmethod
    def public(cls, permissions: frozenset[str] = frozenset()) -> Actor:
        return cls("public", permissions=permissions)


def may(actor: Actor, action: str) -> bool:
    """Whether ``actor`` may perform ``action`` (``<uid>.<find|findOne|create|update|delete>``)."""
    if actor.kind == "api-token":
        if actor.token_type == "full-access":
            return True
        if actor.token_type == "read-only":
            return action.rsplit(".", 1)[-1] in READ_ACTIONS
    return action in actor.permissions
