"""The request a webhook gets, as Strapi 4.25's webhook runner sends it, and where it may go.

Strapi posts ``{event, createdAt, ...info}`` (``info``: ``model, uid, entry`` or ``media``) as
compact JSON with its configured default headers, then the webhook's own, then
``X-Strapi-Event`` and ``Content-Type: application/json`` (the last two always win). Beyond
Strapi: the event id as ``X-Contentapi-Event-Id`` (a receiver drops the duplicates a retry can
bring) and, with a secret, an HMAC-SHA256 signature of the body.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urljoin, urlsplit

import orjson

from contentapi.events.http_client import HttpClient, WebhookSendError
from contentapi.values import format_datetime

__all__ = [
    "EVENT_ID_HEADER",
    "SIGNATURE_HEADER",
    "RefusedTarget",
    "WebhookRequest",
    "post",
    "private_target",
    "request",
    "webhook_client",
]

EVENT_ID_HEADER = "X-Contentapi-Event-Id"
SIGNATURE_HEADER = "X-Contentapi-Signature"


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    url: str
    headers: dict[str, str]
    body: bytes


def request(
    url: str,
    own_headers: Mapping[str, str],
    event: str,
    info: str,
    *,
    sent_at: datetime,
    event_id: int | None,
    default_headers: Mapping[str, str] | None = None,
    secret: str | None = None,
) -> WebhookRequest:
    """The POST of ``event`` with ``info`` (a JSON object's text, its keys after ``event`` and
    ``createdAt``) to ``url`` (``event_id`` None: a test trigger)."""
    head = orjson.dumps({"event": event, "createdAt": format_datetime(sent_at)})
    rest = info.strip()[1:-1].strip()
    body = head[:-1] + (b"," + rest.encode() if rest else b"") + b"}"
    headers = _merged(default_headers or {}, own_headers)
    headers = _merged(headers, {"X-Strapi-Event": event, "Content-Type": "application/json"})
    if event_id is not None:
        headers[EVENT_ID_HEADER] = str(event_id)
    if secret:
        digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers[SIGNATURE_HEADER] = f"sha256={digest}"
    return WebhookRequest(url, headers, body)


def webhook_client(timeout: float) -> HttpClient:
    """The HTTP client deliveries go through (one per dispatcher, its connections kept
    alive; ``http_client.py`` says why not aiohttp)."""
    return HttpClient(timeout)


class RefusedTarget(WebhookSendError):
    """``refuse`` gave a reason not to send to a URL (not retried)."""


#: node-fetch's default (Strapi 4.25's webhook runner posts through node-fetch 2)
MAX_REDIRECTS = 20
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


async def post(
    client: HttpClient,
    built: WebhookRequest,
    refuse: Callable[[str], Awaitable[str | None]] | None = None,
) -> tuple[int, str]:
    """Send ``built``; the answer's status and the start of its body (for the delivery log).

    Redirects are followed as node-fetch 2 follows them (Strapi's webhooks): up to 20; a
    303, or a 301 or 302 of the POST, continues as a GET without body, a 307 or 308 sends the
    same POST again. ``refuse(url)`` is asked before each hop (the private-address check): a
    reason it gives ends the delivery with ``WebhookSendError``."""
    method, url, headers, body = "POST", built.url, built.headers, built.body
    for _ in range(MAX_REDIRECTS + 1):
        if refuse is not None:
            reason = await refuse(url)
            if reason is not None:
                raise RefusedTarget(reason)
        status, text, location = await client.send(method, url, headers, body)
        if status not in _REDIRECTS or not location:
            return status, text
        url = urljoin(url, location)
        if status == 303 or (status in (301, 302) and method == "POST"):
            method, body = "GET", b""
            headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    raise WebhookSendError(f"more than {MAX_REDIRECTS} redirects")


def _merged(base: Mapping[str, str], winning: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``winning``'s headers over it (names compared without case)."""
    replaced = {name.lower() for name in winning}
    merged = {name: value for name, value in base.items() if name.lower() not in replaced}
    merged.update(winning)
    return merged


async def private_target(url: str) -> str | None:
    """The address of ``url``'s host in a private, loopback, link-local or reserved range, or
    None: where a production server's webhooks may not point (``webhooks_allow_private``)."""
    host = urlsplit(url).hostname or ""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return None  # unresolvable: the delivery fails on its own
    for *_, address in found:
        ip = ipaddress.ip_address(address[0])
        if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved:
            return str(ip)
    return None
