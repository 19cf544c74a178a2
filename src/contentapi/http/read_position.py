"""The read-your-writes token: read from each request, handed back after each write.

Installed only when read replicas are configured (``app.py``). A request's reads may go to a
replica (``db/read_position.py``) when it is a ``GET``/``HEAD`` (GraphQL decides per
operation), and only to one that has replayed the WAL up to the position the client carries:

- ``Contentapi-Lsn: 0/3000148`` — a request header, for API clients (a server-side renderer
  passes on the value it got from its last write);
- the ``contentapi_lsn`` cookie — set with every answer to a request that wrote (HttpOnly,
  ``SameSite=Lax``, five minutes), so a browser carries it without any code.

Both are sent back after a write: the header ``Contentapi-Lsn`` and the cookie, holding the
primary's WAL position just after the commit. With both on a request, the later position
wins. The token is not secret and not trusted: a malformed one is ignored, and one from the
future only sends its own bearer's reads to the primary. Nothing is kept per client in a
worker — the token travels with the client, so any worker of any instance honours it.

    app = ReadPositionMiddleware(app)
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contentapi.db.lsn import format_lsn, parse_lsn
from contentapi.db.read_position import ReadPosition, enter_request, leave_request

__all__ = ["LSN_COOKIE", "LSN_HEADER_NAME", "ReadPositionMiddleware", "token_of"]

LSN_HEADER_NAME = "Contentapi-Lsn"
LSN_COOKIE = "contentapi_lsn"
#: seconds a browser keeps the cookie: far beyond any replica lag that is still served
_COOKIE_MAX_AGE = 300
_READ_METHODS = frozenset({"GET", "HEAD"})
_HEADER = LSN_HEADER_NAME.lower().encode()
_COOKIE_PREFIX = f"{LSN_COOKIE}=".encode()


def token_of(headers: list[tuple[bytes, bytes]]) -> int:
    """The latest position the request's header and cookie carry (0: none, or unreadable)."""
    latest = 0
    for name, value in headers:
        if name == _HEADER:
            found = parse_lsn(value.decode("latin-1"))
            latest = max(latest, found or 0)
        elif name == b"cookie" and _COOKIE_PREFIX in value:
            for part in value.split(b";"):
                part = part.strip()
                if part.startswith(_COOKIE_PREFIX):
                    found = parse_lsn(part[len(_COOKIE_PREFIX) :].decode("latin-1"))
                    latest = max(latest, found or 0)
    return latest


class ReadPositionMiddleware:
    """Sets each HTTP request's ``ReadPosition``; adds the token to the answer of one that
    wrote."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        position = ReadPosition(
            replica_ok=scope["method"] in _READ_METHODS, at_least=token_of(scope["headers"])
        )
        secure = scope.get("scheme") == "https"

        async def send_with_token(message: Message) -> None:
            if message["type"] == "http.response.start" and position.written is not None:
                token = format_lsn(position.written).encode()
                cookie = (
                    _COOKIE_PREFIX
                    + token
                    + f"; Max-Age={_COOKIE_MAX_AGE}; Path=/; HttpOnly; "
                    f"SameSite=Lax{'; Secure' if secure else ''}".encode()
                )
                message["headers"] = [
                    *message.get("headers", ()),
                    (_HEADER, token),
                    (b"set-cookie", cookie),
                ]
            await send(message)

        reset = enter_request(position)
        try:
            await self.app(scope, receive, send_with_token)
        finally:
            leave_request(reset)
