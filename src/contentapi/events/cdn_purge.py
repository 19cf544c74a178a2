"""CDN purges: the surrogate keys of the tables a commit changed, sent to the CDN's purge API.

Answers that pass the response cache carry ``Surrogate-Key`` and ``Cache-Tag`` headers naming
the tables they read (``http/response_cache.py``). When a content table's change commits —
whoever wrote it: this server, another instance, Strapi's admin, plain SQL — the change
listener (``db/notify.py``) hands its name to ``CdnPurger.changed``; the names heard within
``COALESCE_SECONDS`` go out as one purge, in the style the CDN speaks
(``CONTENTAPI_CDN_PURGE``):

- ``fastly``: ``POST <url>`` with ``Fastly-Key: <token>`` and ``{"surrogate_keys": [...]}``
  (Fastly's batch purge by surrogate key, ``/service/<id>/purge``);
- ``cloudflare``: ``POST <url>`` with ``Authorization: Bearer <token>`` and ``{"tags": [...]}``
  (``/zones/<zone>/purge_cache``, purge by cache tag);
- ``varnish``: ``PURGE <url>`` with ``xkey-purge: <keys>`` (the xkey module's header) and, with
  a token, ``Authorization: Bearer <token>``.

A purge that fails (a network error, a timeout, a 5xx) is tried again on the webhooks' schedule
(``CONTENTAPI_WEBHOOKS_MAX_ATTEMPTS`` tries, the wait doubling from a second up to
``CONTENTAPI_WEBHOOKS_RETRY_CEILING``: ``events/dispatch.py``'s ``retry_wait``); keys heard
meanwhile join the next purge. When the listener (re)connects, changes may have been missed, so
every table's key is purged. Every worker of every instance hears every change and purges it:
purges are idempotent, and no election is needed for them to be complete.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import orjson

from contentapi.events.dispatch import retry_wait
from contentapi.events.http_client import HttpClient, WebhookSendError

__all__ = ["COALESCE_SECONDS", "CdnPurger", "PurgeStyle", "purge_request"]

log = logging.getLogger("contentapi.events")

PurgeStyle = Literal["fastly", "cloudflare", "varnish"]
#: seconds the keys of changes heard together wait for each other
COALESCE_SECONDS = 0.1


@dataclass(frozen=True, slots=True)
class PurgeRequest:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes


def purge_request(style: PurgeStyle, url: str, token: str | None, keys: list[str]) -> PurgeRequest:
    """The request that purges ``keys`` in ``style`` (see the module)."""
    if style == "fastly":
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Fastly-Key"] = token
        return PurgeRequest("POST", url, headers, orjson.dumps({"surrogate_keys": keys}))
    if style == "cloudflare":
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return PurgeRequest("POST", url, headers, orjson.dumps({"tags": keys}))
    headers = {"xkey-purge": " ".join(keys)}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return PurgeRequest("PURGE", url, headers, b"")


class CdnPurger:
    """Collects changed tables and purges their keys (see the module)."""

    def __init__(
        self,
        style: PurgeStyle,
        url: str,
        token: str | None,
        tables: Iterable[str],
        *,
        max_attempts: int = 5,
        retry_ceiling: float = 300,
        timeout: float = 10,
    ) -> None:
        self.style = style
        self.url = url
        self.token = token
        #: every table's key: purged when changes may have been missed
        self.tables = frozenset(tables)
        self.max_attempts = max_attempts
        self.retry_ceiling = retry_ceiling
        self.timeout = timeout
        #: purges sent and their outcome, for ``GET /_cache`` and the tests
        self.sent = 0
        self.failed = 0
        self._pending: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def changed(self, table: str) -> None:
        """A change listener's subscriber: ``table``'s change committed."""
        self._pending.add(table)
        self._awake()

    def set_live(self, live: bool) -> None:
        """A change listener's ``on_live``: once it hears (again), purge every key."""
        if live:
            self._pending |= self.tables
            self._awake()

    def _awake(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="contentapi-cdn-purge"
            )
        self._wake.set()

    async def _run(self) -> None:
        async with HttpClient(self.timeout) as client:
            while True:
                await self._wake.wait()
                await asyncio.sleep(COALESCE_SECONDS)
                self._wake.clear()
                keys, self._pending = sorted(self._pending), set()
                if keys:
                    await self._purge(client, keys)

    async def _purge(self, client: HttpClient, keys: list[str]) -> None:
        """One purge, tried again on failure; keys heard meanwhile wait for the next."""
        built = purge_request(self.style, self.url, self.token, keys)
        for attempt in range(1, self.max_attempts + 1):
            try:
                status, text, _ = await client.send(
                    built.method, built.url, built.headers, built.body
                )
            except (WebhookSendError, TimeoutError, OSError) as error:
                status, text = None, repr(error)
            if status is not None and 200 <= status < 300:
                self.sent += 1
                return
            if status is not None and status < 500:
                break  # refused: trying again would be refused again
            if attempt < self.max_attempts:
                await asyncio.sleep(retry_wait(attempt, self.retry_ceiling))
        self.failed += 1
        log.warning("CDN purge of %s failed: %s %s", " ".join(keys), status, text)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
