"""HTTP validators and ``Cache-Control`` for the cacheable reads: a read's body bytes → a 200
carrying a strong ``ETag``, ``Cache-Control`` and ``Vary``, or a 304 when the client's
``If-None-Match`` already names that body.

Called once per answer, where its bytes are known (``rest/handlers.py``'s reads, GraphQL
over ``GET``), so that a response cache holding bytes can answer through the same function.
What is sent when is in ``docs/caching.md``; in short:

- ``ETag``: a hash of the exact body (xxh3, 128 bits, quoted): the body is the
  representation, so equal bytes are one tag whoever asked and whatever the query, and any
  change of content changes it. Strong, as its bytes are exact. Not a cryptographic hash:
  it runs on every read (0.3 µs for a 9 KB page, blake2b 10 to 20 µs), and a forged collision
  could at most keep a client on the answer it already holds.
- ``Cache-Control``: ``public`` for a request without ``Authorization`` (the public role's
  answer), ``private`` for any other — a user's JWT or an API token: both answers depend on
  who asks, and CDNs commonly ignore ``Vary: Authorization``. ``s-maxage`` only when public.
  Nothing configured: ``no-cache`` (store, but ask again each time: an ``If-None-Match`` makes
  that ask a 304 without the body).
- ``Vary: Authorization``: the one request header a content answer depends on (the locale is
  a query parameter; no compression is done here).

A 304 keeps ``ETag``, ``Cache-Control`` and ``Vary`` (RFC 9110 §15.4.5). A client's own
``Cache-Control: no-cache`` is a directive to caches, not to the origin: the origin renders
the answer now either way, so its ``If-None-Match`` is still honoured (``request_wants_fresh``
tells a response cache to skip its stored copy).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from xxhash import xxh3_128_hexdigest

from contentapi.config import Settings

__all__ = [
    "NO_STORE",
    "CacheDirectives",
    "CachePolicy",
    "cacheable_response",
    "entity_tag",
    "if_none_match",
    "no_store",
    "request_wants_fresh",
    "revalidated",
]

#: what answers nobody should keep: writes, errors, GraphQL POSTs and answers with errors
NO_STORE = (b"cache-control", b"no-store")
_VARY = (b"vary", b"Authorization")
_JSON = b"application/json; charset=utf-8"


@dataclass(frozen=True, slots=True)
class CacheDirectives:
    """The seconds configured for ``max-age``, ``s-maxage`` and ``stale-while-revalidate``
    (``None``: not sent): the settings' (``CONTENTAPI_CACHE_CONTROL_*``), or a content type's
    after its ``pluginOptions.contentapi.cache`` (``schema/document_rules.py``)."""

    max_age: int | None = None
    s_maxage: int | None = None
    stale_while_revalidate: int | None = None

    @classmethod
    def configured(cls, settings: Settings) -> CacheDirectives:
        """The global directives: ``CONTENTAPI_CACHE_CONTROL_*`` or ``contentapi.toml``."""
        return cls(
            settings.cache_control_max_age,
            settings.cache_control_s_maxage,
            settings.cache_control_stale_while_revalidate,
        )

    def overridden(self, override: dict[str, int | None]) -> CacheDirectives:
        """These directives with a content type's own: each key it gives wins, ``None``
        included (not sent); the others are kept."""
        if not override:
            return self
        return CacheDirectives(
            override.get("max_age", self.max_age),
            override.get("s_maxage", self.s_maxage),
            override.get("stale_while_revalidate", self.stale_while_revalidate),
        )


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """The ``Cache-Control`` values of one route's answers, rendered once at start-up: for the
    public role and for any caller with credentials."""

    public: bytes
    private: bytes

    @classmethod
    def of(cls, directives: CacheDirectives) -> CachePolicy:
        return cls(_render(directives, shared=True), _render(directives, shared=False))


def _render(directives: CacheDirectives, *, shared: bool) -> bytes:
    """``public|private`` then the freshness. No freshness for this audience: ``no-cache``;
    a shared lifetime alone: ``max-age=0`` for browsers (``no-cache`` would bind CDNs too)."""
    max_age = directives.max_age
    s_maxage = directives.s_maxage if shared else None
    parts = ["public" if shared else "private"]
    if max_age is None and s_maxage is None:
        parts.append("no-cache")
    else:
        parts.append(f"max-age={max_age or 0}")
        if s_maxage is not None:
            parts.append(f"s-maxage={s_maxage}")
        if directives.stale_while_revalidate is not None:
            parts.append(f"stale-while-revalidate={directives.stale_while_revalidate}")
    return ", ".join(parts).encode("latin-1")


def entity_tag(body: bytes) -> bytes:
    """The strong entity tag of these exact bytes, quoted (``"<32 hex digits>"``)."""
    return b'"' + xxh3_128_hexdigest(body).encode("ascii") + b'"'


def if_none_match(condition: bytes, tag: bytes) -> bool:
    """Whether an ``If-None-Match`` value names ``tag``: ``*``, or a list of entity tags
    compared weakly (``W/`` ignored on both sides, RFC 9110 §13.1.2)."""
    for candidate in condition.split(b","):
        candidate = candidate.strip()
        if candidate == b"*" or candidate.removeprefix(b"W/") == tag:
            return True
    return False


def _asked(request: Request, policy: CachePolicy) -> tuple[bytes, bytes | None]:
    """The ``Cache-Control`` of this request's answer and its ``If-None-Match`` (several
    lines joined), in one pass over the raw headers (ASGI names them in lower case): a
    fifth of what two lookups through ``request.headers`` cost.

    Any ``Authorization`` makes the answer private, even one that resolves to the public role
    (not a bearer token): shared caches must not keep answers to such requests unless told
    ``public`` (RFC 9111 §3.5), and nothing is gained by telling them."""
    private = False
    condition: bytes | None = None
    for name, value in request.scope["headers"]:
        if name == b"authorization":
            private = True
        elif name == b"if-none-match":
            condition = value if condition is None else condition + b"," + value
    return (policy.private if private else policy.public), condition


def cacheable_response(
    request: Request, body: bytes, policy: CachePolicy, media_type: bytes = _JSON
) -> Response:
    """A read's 200 with its validators, or a 304 when ``If-None-Match`` names its body; a
    ``HEAD`` gets the same headers and no body."""
    tag = entity_tag(body)
    control, condition = _asked(request, policy)
    headers = [(b"etag", tag), (b"cache-control", control), _VARY]
    if condition is not None and if_none_match(condition, tag):
        return _Answer(304, b"", headers)
    headers.append((b"content-length", str(len(body)).encode("ascii")))
    headers.append((b"content-type", media_type))
    return _Answer(200, b"" if request.method == "HEAD" else body, headers)


def revalidated(request: Request, response: Response, policy: CachePolicy) -> Response:
    """A read answered by an extension's controller or middleware (``rest/customize.py``):
    validated like ours when it is a 200 with its body in hand and neither ``Cache-Control``
    nor ``ETag`` of its own (then the extension decides); anything else as it is. Its 304
    carries our three headers only, not those the extension added to the 200."""
    body = getattr(response, "body", None)
    if response.status_code != 200 or not isinstance(body, bytes):
        return response
    headers = response.headers
    if "cache-control" in headers or "etag" in headers:
        return response
    tag = entity_tag(body)
    control, condition = _asked(request, policy)
    if condition is not None and if_none_match(condition, tag):
        return _Answer(304, b"", [(b"etag", tag), (b"cache-control", control), _VARY])
    response.raw_headers += [(b"etag", tag), (b"cache-control", control), _VARY]
    if request.method == "HEAD":
        response.body = b""
    return response


def no_store(response: Response) -> Response:
    """``response`` marked ``Cache-Control: no-store`` (a write's answer, unless it says
    otherwise)."""
    if "cache-control" not in response.headers:
        response.raw_headers.append(NO_STORE)
    return response


def request_wants_fresh(request: Request) -> bool:
    """Whether the client asks caches not to answer from a stored copy: ``Cache-Control:
    no-cache``, ``no-store`` or ``max-age=0`` (RFC 9111 §5.2.1), or HTTP/1.0's ``Pragma:
    no-cache`` without ``Cache-Control``. For a response cache in front of the handlers; the
    origin answers such requests as any other (module text)."""
    control = request.headers.get("cache-control")
    if control is None:
        return "no-cache" in request.headers.get("pragma", "").lower()
    for directive in control.lower().split(","):
        name, _, value = directive.strip().partition("=")
        if name in ("no-cache", "no-store") or (name == "max-age" and value.strip() == "0"):
            return True
    return False


class _Answer(Response):
    """A response whose headers are given whole (no rendering, no header mapping to copy)."""

    def __init__(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code = status
        self.body = body
        self.raw_headers = headers
        self.background = None
