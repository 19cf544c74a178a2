"""API tokens: only a salted hash of each secret is stored (HMAC-SHA512, as Strapi v4 does).

A secret is 256 hex characters from the OS's random source, shown once at creation. The salt
comes from ``CONTENTAPI_API_TOKEN_SALT`` or is generated on first start and kept in the
core store; with Strapi's salt, tokens of a database Strapi created keep working.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import select

from contentapi.auth.actor import Actor, TokenType
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.system import api_token_permission_links, api_token_permissions, api_tokens

__all__ = [
    "ADMIN_TOKEN_NAME",
    "TOKEN_TYPES",
    "CreatedToken",
    "TokenHasher",
    "TokenInfo",
    "create_token",
    "ensure_admin_token",
    "list_tokens",
    "resolve_token",
    "revoke_token",
    "token_name_taken",
]

TOKEN_TYPES: tuple[TokenType, ...] = ("read-only", "full-access", "custom")
ADMIN_TOKEN_NAME = "CONTENTAPI_ADMIN_TOKEN"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True, slots=True)
class TokenHasher:
    """Hashes secrets with the server's salt."""

    salt: str

    def hash(self, secret: str) -> str:
        return hmac.new(self.salt.encode(), secret.encode(), hashlib.sha512).hexdigest()


@dataclass(frozen=True, slots=True)
class CreatedToken:
    id: int
    name: str
    type: TokenType
    secret: str


async def create_token(
    conn: AsyncConnection,
    hasher: TokenHasher,
    *,
    name: str,
    token_type: TokenType,
    actions: Iterable[str] = (),
    description: str = "",
    lifespan: timedelta | None = None,
    secret: str | None = None,
) -> CreatedToken:
    """Store a new token (custom tokens with their actions); return its secret once."""
    secret = secret or secrets.token_hex(128)
    now = _now()
    result = await conn.execute(
        api_tokens.insert()
        .values(
            name=name,
            description=description,
            type=token_type,
            access_key=hasher.hash(secret),
            lifespan=int(lifespan.total_seconds() * 1000) if lifespan else None,
            expires_at=now + lifespan if lifespan else None,
            created_at=now,
            updated_at=now,
        )
        .returning(api_tokens.c.id)
    )
    token_id = int(result.scalar_one())
    for order, action in enumerate(dict.fromkeys(actions), start=1):
        permission = await conn.execute(
            api_token_permissions.insert()
            .values(action=action, created_at=now, updated_at=now)
            .returning(api_token_permissions.c.id)
        )
        await conn.execute(
            api_token_permission_links.insert().values(
                api_token_permission_id=permission.scalar_one(),
                api_token_id=token_id,
                api_token_permission_order=order,
            )
        )
    return CreatedToken(token_id, name, token_type, secret)


async def ensure_admin_token(conn: AsyncConnection, hasher: TokenHasher, secret: str) -> None:
    """Make ``CONTENTAPI_ADMIN_TOKEN`` a full-access token with exactly that secret."""
    access_key = hasher.hash(secret)
    existing = (
        await conn.execute(select(api_tokens.c.id).where(api_tokens.c.name == ADMIN_TOKEN_NAME))
    ).scalar()
    if existing is None:
        await create_token(
            conn,
            hasher,
            name=ADMIN_TOKEN_NAME,
            token_type="full-access",
            description="bootstrap token from the CONTENTAPI_ADMIN_TOKEN setting",
            secret=secret,
        )
        return
    await conn.execute(
        api_tokens.update()
        .where(api_tokens.c.id == existing)
        .values(access_key=access_key, type="full-access", expires_at=None, updated_at=_now())
    )


async def resolve_token(conn: AsyncConnection, hasher: TokenHasher, secret: str) -> Actor | None:
    """The actor behind ``secret``, or ``None`` when no live token has it."""
    row = (
        await conn.execute(
            select(api_tokens.c.id, api_tokens.c.type, api_tokens.c.expires_at).where(
                api_tokens.c.access_key == hasher.hash(secret)
            )
        )
    ).first()
    if row is None or row.type not in TOKEN_TYPES:
        return None
    if row.expires_at is not None and row.expires_at <= _now():
        return None
    actions: frozenset[str] = frozenset()
    if row.type == "custom":
        found = await conn.execute(
            select(api_token_permissions.c.action)
            .join(
                api_token_permission_links,
                api_token_permission_links.c.api_token_permission_id == api_token_permissions.c.id,
            )
            .where(api_token_permission_links.c.api_token_id == row.id)
        )
        actions = frozenset(found.scalars().all())
    return Actor(
        "api-token",
        token_type=cast(TokenType, row.type),
        permissions=actions,
        token_id=row.id,
        expires_at=row.expires_at,
    )


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What ``contentapi tokens list`` shows of a token: never its secret nor its hash."""

    id: int
    name: str
    type: str
    description: str
    expires_at: datetime | None
    last_used_at: datetime | None
    created_at: datetime | None


async def token_name_taken(conn: AsyncConnection, name: str) -> bool:
    found = await conn.execute(select(api_tokens.c.id).where(api_tokens.c.name == name))
    return found.first() is not None


async def list_tokens(conn: AsyncConnection) -> list[TokenInfo]:
    """Every token, oldest first."""
    rows = await conn.execute(
        select(
            api_tokens.c.id,
            api_tokens.c.name,
            api_tokens.c.type,
            api_tokens.c.description,
            api_tokens.c.expires_at,
            api_tokens.c.last_used_at,
            api_tokens.c.created_at,
        ).order_by(api_tokens.c.id)
    )
    return [
        TokenInfo(
            int(row.id),
            str(row.name),
            str(row.type),
            str(row.description or ""),
            row.expires_at,
            row.last_used_at,
            row.created_at,
        )
        for row in rows
    ]


async def revoke_token(conn: AsyncConnection, name: str) -> bool:
    """Delete the token called ``name`` with its permissions; whether there was one. On
    PostgreSQL every worker hears of it through the auth tables' trigger (``db/notify.py``)."""
    token_id = (
        await conn.execute(select(api_tokens.c.id).where(api_tokens.c.name == name))
    ).scalar()
    if token_id is None:
        return False
    links = api_token_permission_links
    permission_ids = select(links.c.api_token_permission_id).where(links.c.api_token_id == token_id)
    await conn.execute(
        api_token_permissions.delete().where(api_token_permissions.c.id.in_(permission_ids))
    )
    await conn.execute(links.delete().where(links.c.api_token_id == token_id))
    await conn.execute(api_tokens.delete().where(api_tokens.c.id == token_id))
    return True
