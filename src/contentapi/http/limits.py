"""Request size limits: the query string (``CONTENTAPI_QUERY_STRING_LIMIT``, 414) and the body
(``CONTENTAPI_BODY_LIMIT`` for everything but multipart, whose limit is the upload size; 413),
answered in the contract's error shape before any route runs.

A body whose ``Content-Length`` is over the limit is refused without reading it; a body sent
without one (chunked) is counted as it arrives, and the read that passes the limit raises
``PayloadTooLargeError`` inside the route (413 through the error handlers, nothing written).
A pure ASGI middleware (no ``BaseHTTPMiddleware``): on a request within the limits it costs a
length comparison and one wrapped ``receive``.

    app = RequestLimitsMiddleware(app, body_limit=1 << 20, multipart_limit=200 << 20,
                                  query_string_limit=64 << 10)

The body is counted here and only here. A route that must hold its body to less than the
middleware chose (a JSON route sent a multipart body, the upload route's own size) lowers this
request's limit with ``hold_body_to`` / ``hold_body_to_json`` before reading; the same count
then refuses the body, by ``Content-Length`` or as it arrives.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contentapi.errors import ApplicationError, PayloadTooLargeError, UriTooLongError
from contentapi.http.errors import error_response

__all__ = ["BodyBudget", "RequestLimitsMiddleware", "hold_body_to", "hold_body_to_json"]

#: where the middleware leaves this request's ``BodyBudget`` in the ASGI scope
_SCOPE_KEY = "contentapi.body_budget"


class BodyBudget:
    """What one request's body may still be: its limit (lowered by routes, never raised), the
    JSON limit a JSON route holds it to, and the bytes counted so far."""

    __slots__ = ("json_limit", "limit", "received")

    def __init__(self, limit: int, json_limit: int) -> None:
        self.limit = limit
        self.json_limit = json_limit
        self.received = 0

    def lower(self, limit: int, declared: bytes | str | None) -> None:
        """Hold the rest of the body to ``limit``: a declared length over it, or what has
        arrived already, is refused now (413)."""
        self.limit = min(self.limit, limit)
        if _declared_over(declared, self.limit) or self.received > self.limit:
            raise PayloadTooLargeError()

    def count(self, size: int) -> None:
        self.received += size
        if self.received > self.limit:
            raise PayloadTooLargeError()


def _declared_over(declared: bytes | str | None, limit: int) -> bool:
    return declared is not None and declared.isdigit() and int(declared) > limit


def hold_body_to(request: Request, limit: int) -> None:
    """This request's body may be at most ``limit`` bytes (the upload route's own size)."""
    budget: BodyBudget = request.scope[_SCOPE_KEY]
    budget.lower(limit, request.headers.get("content-length"))


def hold_body_to_json(request: Request) -> None:
    """This request's body is read as JSON: at most ``CONTENTAPI_BODY_LIMIT`` bytes, whatever
    its ``Content-Type`` says (a multipart body sent to a JSON route)."""
    budget: BodyBudget = request.scope[_SCOPE_KEY]
    budget.lower(budget.json_limit, request.headers.get("content-length"))


class RequestLimitsMiddleware:
    def __init__(
        self, app: ASGIApp, *, body_limit: int, multipart_limit: int, query_string_limit: int
    ) -> None:
        self.app = app
        self.body_limit = body_limit
        self.multipart_limit = multipart_limit
        self.query_string_limit = query_string_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope.get("query_string", b"")) > self.query_string_limit:
            await self._refuse(UriTooLongError(), scope, receive, send)
            return
        limit, declared = self.body_limit, None
        for name, value in scope["headers"]:
            if name == b"content-type" and value.lower().startswith(b"multipart/form-data"):
                limit = self.multipart_limit
            elif name == b"content-length":
                declared = value
        if _declared_over(declared, limit):
            await self._refuse(PayloadTooLargeError(), scope, receive, send)
            return
        budget = scope[_SCOPE_KEY] = BodyBudget(limit, self.body_limit)

        async def counting_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                budget.count(len(message.get("body", b"")))
            return message

        await self.app(scope, counting_receive, send)

    @staticmethod
    async def _refuse(error: ApplicationError, scope: Scope, receive: Receive, send: Send) -> None:
        # The unread body is the server's to skip (uvicorn discards what arrives after the
        # answer, by its Content-Length): closing now would reset a client still sending it
        # before it reads the answer.
        response = error_response(error)
        await response(scope, receive, send)
