"""Resolving the caller of a request: ``Authorization: Bearer <token>`` or the public role.

As Strapi: no credential (or a header that is not a bearer token) is the public role; a bearer
token that matches nothing is 401; the permission check (``require``) answers 403.
"""

from __future__ import annotations

from fastapi import Request

from contentapi.auth.actor import Actor, may
from contentapi.auth.jwt import verify_jwt
from contentapi.auth.permissions import public_actions, user_access
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
    """Who calls: a user (JWT), an API token, or the public role. Read from the database, or
    from the worker's caller cache, which every committed change to an auth table empties in
    every worker (``auth/cache.py``): role changes, blocks and deletions apply to the next
    request everywhere."""
    runtime: Runtime = request.app.state.runtime
    token = bearer_token(request)
    cache = runtime.caller_cache
    user_id: int | None = None
    if token is None:
        key: tuple[object, ...] = ("public",)
    elif (
        token.count(".") == 2
        and runtime.jwt_secret is not None
        and (user_id := verify_jwt(token, runtime.jwt_secret)) is not None
    ):
        key = ("user", user_id)
    else:
        assert runtime.token_hasher is not None
        key = ("token", runtime.token_hasher.hash(token))
    actor = cache.get(key)
    if actor is None:
        generation = cache.generation
        actor = await _read_actor(runtime, token, user_id)
        cache.put(key, actor, generation)
    if actor.token_id is not None:
        runtime.token_usage.used(actor.token_id)  # last_used_at, at most once a minute
    return actor


async def _read_actor(runtime: Runtime, token: str | None, user_id: int | None) -> Actor:
    tables = runtime.tables
    async with runtime.database.read() as conn:
        if token is None:
            return Actor.public(await public_actions(conn, tables))
        if user_id is not None:
            access = await user_access(conn, tables, user_id)
            if access is None or access[0]:  # deleted or blocked
                raise UnauthorizedError()
            _, role_id, actions = access
            return Actor("user", permissions=actions, user_id=user_id, role_id=role_id)
        assert runtime.token_hasher is not None
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
