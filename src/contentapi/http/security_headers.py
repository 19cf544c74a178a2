"""Security headers on every response, as Strapi's ``strapi::security`` middleware sends them.

Strapi 4.25 runs koa-helmet (helmet 6) with its own defaults
(``packages/core/strapi/src/middlewares/security.ts``): helmet's Content-Security-Policy with
``connect-src``, ``img-src`` and ``media-src`` widened and ``upgrade-insecure-requests`` dropped,
HSTS for a year with sub-domains, ``X-Frame-Options: SAMEORIGIN``, and the cross-origin
isolation headers (COEP, COOP, CORP, Origin-Agent-Cluster) and ``X-XSS-Protection`` left out.
A ``GET`` of the GraphQL endpoint gets a narrower policy for the GraphiQL page, whose files are
all ours (``graphql/playground.py``): no origin but ours anywhere. Strapi instead widens
``script-src`` for that path to load its playground from a CDN; ours needs no network.

The headers are constant tuples appended to ``http.response.start``: a pure ASGI middleware
(no ``BaseHTTPMiddleware``), one path comparison per request.

    app = SecurityHeadersMiddleware(app, playground_path="/graphql")
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["API_CSP", "PLAYGROUND_CSP", "SecurityHeadersMiddleware"]


def _policy(**overrides: str) -> str:
    """helmet 6's serialization: the configured directives first, then its defaults."""
    directives = {
        "connect-src": "'self' https:",
        "img-src": "'self' data: blob: https://market-assets.strapi.io",
        "media-src": "'self' data: blob:",
        "default-src": "'self'",
        "base-uri": "'self'",
        "font-src": "'self' https: data:",
        "form-action": "'self'",
        "frame-ancestors": "'self'",
        "object-src": "'none'",
        "script-src": "'self'",
        "script-src-attr": "'none'",
        "style-src": "'self' https: 'unsafe-inline'",
    }
    directives.update(overrides)
    return ";".join(f"{name} {value}" for name, value in directives.items())


#: Strapi 4.25's default policy, byte for byte.
API_CSP = _policy()
#: The GraphiQL page (``graphql/playground.py``) loads every file from us and sends its queries to
#: us, so each ``https:`` and external host of the API's policy is dropped. Scripts stay
#: ``'self'`` only (no inline script, no eval in the bundles); styles keep ``'unsafe-inline'``
#: for a ``<style>`` element GraphiQL adds at run time (Chromium blocks it under
#: ``style-src 'self'``); fonts come as ``data:`` URLs in its CSS.
PLAYGROUND_CSP = _policy(
    **{
        "connect-src": "'self'",
        "img-src": "'self' data: blob:",
        "font-src": "'self' data:",
        "style-src": "'self' 'unsafe-inline'",
    }
)

_COMMON: tuple[tuple[bytes, bytes], ...] = (
    (b"referrer-policy", b"no-referrer"),
    (b"strict-transport-security", b"max-age=31536000; includeSubDomains"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-dns-prefetch-control", b"off"),
    (b"x-download-options", b"noopen"),
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"x-permitted-cross-domain-policies", b"none"),
)
_API_HEADERS = ((b"content-security-policy", API_CSP.encode()), *_COMMON)
_PLAYGROUND_HEADERS = ((b"content-security-policy", PLAYGROUND_CSP.encode()), *_COMMON)


class SecurityHeadersMiddleware:
    """Appends the security headers to every HTTP response (errors and static files too)."""

    def __init__(self, app: ASGIApp, *, playground_path: str | None) -> None:
        self.app = app
        self.playground_path = playground_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = (
            _PLAYGROUND_HEADERS
            if scope["path"] == self.playground_path and scope["method"] == "GET"
            else _API_HEADERS
        )

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
