"""Every error of every route rendered in the contract's shape, never with internals.

``{"data": null, "error": {"status", "name", "message", "details"}}`` for our own errors,
for the framework's (unknown route 404, wrong method 405), and for anything unexpected (500,
logged with its traceback server-side only). The catch-all is an ASGI middleware so that no
exception escapes to the server, whatever raised it.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contentapi.db.outage import is_unavailable
from contentapi.errors import (
    ApplicationError,
    ForbiddenError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    ServiceUnavailableError,
    UnauthorizedError,
    ValidationError,
)
from contentapi.http.conditional import NO_STORE
from contentapi.http.responses import OrjsonResponse

__all__ = ["CatchAllMiddleware", "error_response", "install_error_handlers"]

log = logging.getLogger("contentapi.rest")

_BY_STATUS: dict[int, type[ApplicationError]] = {
    400: ValidationError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    413: PayloadTooLargeError,
}


def error_response(
    error: ApplicationError, headers: dict[str, str] | None = None
) -> OrjsonResponse:
    """The error's answer, ``Cache-Control: no-store``: no error is worth keeping (a 404 of a
    draft about to be published, a 403 before the public role is given ``find``, a 503), and
    404, 405 and 414 may otherwise be stored by heuristics (RFC 9110 §15.1). Strapi sends
    none; a CDN told to cache everything would keep them."""
    response = OrjsonResponse(
        {"data": None, "error": error.to_dict()}, status_code=error.status, headers=headers
    )
    response.raw_headers.append(NO_STORE)
    return response


async def _application_error(request: Request, exc: Exception) -> OrjsonResponse:
    assert isinstance(exc, ApplicationError)
    if isinstance(exc, ServiceUnavailableError):
        return error_response(exc, headers={"Retry-After": str(exc.retry_after)})
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> OrjsonResponse:
    assert isinstance(exc, StarletteHTTPException)
    kind = _BY_STATUS.get(exc.status_code)
    if kind is None:
        error = ApplicationError("Internal Server Error")
        error.status = exc.status_code
    else:
        error = kind()
    return error_response(error, headers=dict(exc.headers or {}))


async def _request_validation_error(request: Request, exc: Exception) -> OrjsonResponse:
    return error_response(ValidationError("Invalid request"))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApplicationError, _application_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _request_validation_error)


class CatchAllMiddleware:
    """Turns any exception that escaped the handlers into a bare 500 in the contract's shape."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            # The client hung up while its body was being read (an upload cut short): there
            # is nobody to answer, and nothing was written (every write comes after the body).
            log.info("client disconnected during %s %s", scope.get("method"), scope.get("path"))
        except Exception as error:  # the net under everything: log it, answer without internals
            if started:
                log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
                raise
            if is_unavailable(error):  # the database, reached outside Database.read/write
                log.warning(
                    "database unavailable on %s %s: %r",
                    scope.get("method"),
                    scope.get("path"),
                    error,
                )
                unavailable = ServiceUnavailableError()
                headers = {"Retry-After": str(unavailable.retry_after)}
                response: Any = error_response(unavailable, headers=headers)
            else:
                log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
                response = error_response(ApplicationError())
            await response(scope, receive, send)
