"""User JWTs: HS256 only, expiry required, verified against the server's secret.

``algorithms=["HS256"]`` is pinned, so ``alg: none`` and RS/HS key confusion are rejected;
a token without ``exp`` or ``id`` is rejected too. The payload is Strapi's (``{id, iat, exp}``);
its ``id`` must fit the id columns (a signed ``2**31`` answered 500 on PostgreSQL).

PyJWT is imported on first use, not with the server: it imports ``cryptography`` whenever
that is installed (contentapi installs it for encrypted transfer archives), about 10 MB of
RSS per worker, and a server whose callers send only API tokens or nothing never needs it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from contentapi.values import MAX_ENTRY_ID

__all__ = ["issue_jwt", "verify_jwt"]

_ALGORITHM = "HS256"


def issue_jwt(user_id: int, secret: str, lifetime: timedelta) -> str:
    import jwt  # on first use: see the module's text

    now = datetime.now(UTC)
    payload = {"id": user_id, "iat": now, "exp": now + lifetime}
    return jwt.encode(payload, secret, algorithm=_ALGORITHM)


def verify_jwt(token: str, secret: str) -> int | None:
    """The user id of a valid, unexpired token signed with ``secret``; else ``None``."""
    import jwt  # on first use: see the module's text

    try:
        payload = jwt.decode(
            token, secret, algorithms=[_ALGORITHM], options={"require": ["exp", "iat", "id"]}
        )
    except jwt.PyJWTError:
        return None
    user_id = payload.get("id")
    if isinstance(user_id, bool) or not isinstance(user_id, int):
        return None
    if not 0 < user_id <= MAX_ENTRY_ID:
        return None
    return user_id
