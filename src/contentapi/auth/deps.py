"""Resolving the caller of a request: ``Authorization: Bearer <token>`` or the public role.

As Strapi: no credential (or a header that is not a bearer token) is the public role; a bearer
token that matches nothing is 401; the permission check (``require``) answers 403.

``CallerResolver`` is built once by the composition root (``app.py``) and handed to every
router and to GraphQL, so that they all resolve callers the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from contentapi.auth.actor import Actor, may
from contentapi.auth.cache import CallerCache
from contentapi.auth.jwt import verify_jwt
from contentapi.auth.permissions import public_actions, user_access
from contentapi.auth.secrets import ServerSecrets
from contentapi.auth.token_usage import TokenUsage
from contentapi.auth.tokens import resolve_token
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.errors import ForbiddenError, UnauthorizedError

__all__ = ["CallerResolver", "bearer_token"]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1]


@dataclass(slots=True, eq=False)
class CallerResolver:
    """Who calls, from the worker's caller cache or the database (a dataclass: it only holds
    what the composition root hands it; compared by identity like any service)."""

    database: Database
    tables: ContentTables
    secrets: ServerSecrets
    cache: CallerCache
    token_usage: TokenUsage

    async def current_actor(self, request: Request) -> Actor:
        """Who calls: a user (JWT), an API token, or the public role. Read from the database,
        or from the worker's caller cache, which every committed change to an auth table
        empties in every worker (``auth/cache.py``): role changes, blocks and deletions apply
        to the next request everywhere."""
        token = bearer_token(request)
        cache = self.cache
        secrets = self.secrets
        user_id: int | None = None
        if token is None:
            key: tuple[object, ...] = ("public",)
        elif (
            token.count(".") == 2
            and secrets.jwt_secret is not None
            and (user_id := verify_jwt(token, secrets.jwt_secret)) is not None
        ):
            key = ("user", user_id)
        else:
            assert secrets.token_hasher is not None
            key = ("token", secrets.token_hasher.hash(token))
        actor = cache.get(key)
        if actor is None:
            generation = cache.generation
            actor = await self._read_actor(token, user_id)
            cache.put(key, actor, generation)
        if actor.token_id is not None:
            self.token_usage.used(actor.token_id)  # last_used_at, at most once a minute
        return actor

    async def _read_actor(self, token: str | None, user_id: int | None) -> Actor:
        tables = self.tables
        async with self.database.read() as conn:
            if token is None:
                return Actor.public(await public_actions(conn, tables))
            if user_id is not None:
                access = await user_access(conn, tables, user_id)
                if access is None or access[0]:  # deleted or blocked
                    raise UnauthorizedError()
                _, role_id, actions = access
                return Actor("user", permissions=actions, user_id=user_id, role_id=role_id)
            assert self.secrets.token_hasher is not None
            actor = await resolve_token(conn, self.secrets.token_hasher, token)
        if actor is None:
            raise UnauthorizedError()
        return actor

    async def require(self, request: Request, action: str) -> Actor:
        """The caller, who must be allowed ``action``."""
        actor = await self.current_actor(request)
        if not may(actor, action):
            raise ForbiddenError()
        return actor
