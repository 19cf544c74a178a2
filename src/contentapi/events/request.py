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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

import orjson

from contentapi.events.http_client import HttpClient
from contentapi.values import format_datetime

__all__ = [
    "EVENT_ID_HEADER",
    "SIGNATURE_HEADER",
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


async def post(client: HttpClient, built: WebhookRequest) -> tuple[int, str]:
    """Send ``built``; the answer's status and the start of its body (for the delivery log).
    Redirects are not followed: the target checked is the one reached."""
    return await client.post(built.url, built.headers, built.body)


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
