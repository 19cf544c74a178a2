"""Extensions' global middlewares (``app.rest.use``: Strapi's ``config/middlewares.js``).

Each is ``(request, call_next)`` — Starlette's shape — and runs around every request, REST,
GraphQL and the rest alike, in the order registered (the first outermost). Installed only when
an extension registers one: a server without them pays nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

__all__ = ["GlobalMiddlewares"]

Handler = Callable[[Request], Awaitable[Response]]


class GlobalMiddlewares(BaseHTTPMiddleware):
    def __init__(self, app: ASGIApp, middlewares: Sequence[Callable[..., Any]]) -> None:
        super().__init__(app)
        self.middlewares = list(middlewares)

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        handler: Handler = call_next
        for middleware in reversed(self.middlewares):
            handler = _bound(middleware, handler)
        return await handler(request)


def _bound(middleware: Callable[..., Any], call_next: Handler) -> Handler:
    async def handle(request: Request) -> Response:
        answer = middleware(request, call_next)
        answer = await answer if inspect.isawaitable(answer) else answer
        if not isinstance(answer, Response):
            raise TypeError(f"the global middleware {middleware!r} returned no response")
        return answer

    return handle
