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
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contentapi.errors import ApplicationError, PayloadTooLargeError, UriTooLongError
from contentapi.rest.errors import error_response

__all__ = ["RequestLimitsMiddleware"]


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
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(PayloadTooLargeError(), scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise PayloadTooLargeError()
            return message

        await self.app(scope, counting_receive, send)

    @staticmethod
    async def _refuse(error: ApplicationError, scope: Scope, receive: Receive, send: Send) -> None:
        # The unread body is the server's to skip (uvicorn discards what arrives after the
        # answer, by its Content-Length): closing now would reset a client still sending it
        # before it reads the answer.
        response = error_response(error)
        await response(scope, receive, send)
