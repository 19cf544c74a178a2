"""Resolving the caller of a request: ``Authorization: Bearer <token>`` or the public role.

As Strapi: no credential (or a header that is not a bearer token) is the public role; a bearer
token that matches nothing is 401; the permission check (``require``) answers 403.
"""

from __future__ import annotations

from fastapi import Request

from contentapi.auth.actor import Actor, may
from contentapi.auth.tokens import resolve_token
from contentapi.errors import ForbiddenError, UnauthorizedError
from contentapi.runtime import Runtime

__all__ = ["bearer_token", "current_actor", "require"]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1]


async def current_actor(request: Request) -> Actor:
    runtime: Runtime = request.app.state.runtime
    token = bearer_token(request)
    if token is None:
        return Actor.public()
    assert runtime.token_hasher is not None
    async with runtime.database.read() as conn:
        actor = await resolve_token(conn, runtime.token_hasher, token)
    if actor is None:
        raise UnauthorizedError()
    return actor


async def require(request: Request, action: str) -> Actor:
    """The caller, who must be allowed ``action``."""
    actor = await current_actor(request)
    if not may(actor, action):
        raise ForbiddenError()
    return actor
