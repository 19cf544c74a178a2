"""The HTTP client webhook deliveries go through: POSTs over kept-alive HTTP/1.1 connections.

A delivery is one small POST whose answer matters only for its status and the start of its
body (for the delivery log), sent again and again to the same few receivers. aiohttp spent
0.16 ms of CPU on each (its session, cookie jar, tracing, payload and stream objects); this
client, an asyncio protocol over ``httptools``' response parser (the one uvicorn uses), spends
0.04 ms — measured against the same local receiver, uvloop on both sides. At hundreds of
writes a second on two cores that difference was most of what a webhook cost the writes
(``bench/webhooks.py``, ``docs/events.md``).

What it does: http and https (the system's certificates), one pool of idle connections per
origin, a total timeout per request, an answer's body read to its end (the first 2,000 bytes
kept) so that its connection can carry the next request, or the connection closed when the
receiver asks for it or the answer is too long to be worth reading. No cookies are kept; a
redirect is answered with its ``Location`` and followed by the caller (``request.post``). A
connection found closed when it is reused (the receiver dropped it while idle) is replaced
once, before anything of the answer arrived.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urlsplit

import httptools

__all__ = ["HttpClient", "WebhookSendError"]

#: bytes of an answer's body kept for the delivery log
KEPT = 2000
#: an answer longer than this is not read to its end: its connection is closed instead
READ_AT_MOST = 64 * 1024
USER_AGENT = b"contentapi-webhooks"


class WebhookSendError(OSError):
    """The request could not be sent, or no complete answer came back."""


@dataclass
class _Answer:
    status: int = 0
    body: bytearray = field(default_factory=bytearray)
    length: int = 0
    headers_done: bool = False
    keep_alive: bool = False
    location: str | None = None


class _Connection(asyncio.Protocol):
    """One connection: a request at a time, its answer parsed as it arrives."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.answer = _Answer()
        self.waiter: asyncio.Future[_Answer] | None = None
        self.closed = False
        self.received = False  # any byte of the current answer

    # ---------------------------------------------------------------- asyncio

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio's, but have their methods
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.received = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(WebhookSendError(f"a malformed answer: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        answer = self.answer
        if answer.headers_done and not answer.keep_alive:
            # an answer with neither a length nor chunks ends with its connection
            self._done()
        self._fail(WebhookSendError("the receiver closed the connection"))

    # ---------------------------------------------------------------- httptools

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"location":
            self.answer.location = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self.answer.status = self.parser.get_status_code()
        self.answer.headers_done = True
        self.answer.keep_alive = self.parser.should_keep_alive()

    def on_body(self, body: bytes) -> None:
        answer = self.answer
        answer.length += len(body)
        if len(answer.body) < KEPT:
            answer.body += body[: KEPT - len(answer.body)]
        if answer.length > READ_AT_MOST:
            answer.keep_alive = False
            self._done()  # enough of it: the connection is closed, not read to the end

    def on_message_complete(self) -> None:
        self._done()

    # ---------------------------------------------------------------- requests

    def send(self, head: bytes, body: bytes) -> asyncio.Future[_Answer]:
        assert self.transport is not None
        self.answer = _Answer()
        self.received = False
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.writelines((head, body))
        return self.waiter

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _done(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(self.answer)

    def _fail(self, error: Exception) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(error)


@dataclass(frozen=True, slots=True)
class _Target:
    secure: bool
    host: str
    port: int
    path: bytes
    host_header: bytes


def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookSendError(f"not an http(s) URL: {url}")
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default = (secure and port == 443) or (not secure and port == 80)
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    host_header = host if default else f"{host}:{port}"
    return _Target(secure, parts.hostname, port, path.encode(), host_header.encode("idna"))


class HttpClient:
    """POSTs with a total timeout each, over connections kept per origin."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: dict[tuple[bool, str, int], list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    async def post(self, url: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        """Send; the answer's status and the start of its body."""
        status, text, _ = await self.send("POST", url, headers, body)
        return status, text

    async def send(
        self, method: str, url: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, str | None]:
        """Send; the answer's status, the start of its body and its ``Location``."""
        target = _target(url)
        head = self._head(method, target, headers, len(body))
        async with asyncio.timeout(self.timeout):
            connection, reused = await self._connection(target)
            try:
                answer = await self._exchange(connection, head, body)
            except WebhookSendError:
                if not reused or connection.received:
                    raise
                # dropped by the receiver while idle: once more, on a new connection
                connection, _ = await self._connection(target, fresh=True)
                answer = await self._exchange(connection, head, body)
        if answer.keep_alive and not connection.closed:
            self._idle.setdefault((target.secure, target.host, target.port), []).append(connection)
        else:
            connection.close()
        text = bytes(answer.body).decode("utf-8", "replace")[:500]
        return answer.status, text, answer.location

    @staticmethod
    async def _exchange(connection: _Connection, head: bytes, body: bytes) -> _Answer:
        try:
            return await connection.send(head, body)
        except BaseException:  # a failure, the timeout: the connection is not reused
            connection.close()
            raise

    async def close(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _connection(
        self, target: _Target, *, fresh: bool = False
    ) -> tuple[_Connection, bool]:
        """An idle connection to ``target``'s origin (and True), or a new one (and False)."""
        idle = self._idle.get((target.secure, target.host, target.port))
        while idle and not fresh:
            connection = idle.pop()
            if not connection.closed:
                return connection, True
        loop = asyncio.get_running_loop()
        try:
            _, connection = await loop.create_connection(
                _Connection,
                target.host,
                target.port,
                ssl=self._tls_context() if target.secure else None,
            )
        except OSError as error:
            raise WebhookSendError(
                f"cannot connect to {target.host}:{target.port}: {error}"
            ) from error
        return connection, False

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls

    @staticmethod
    def _head(method: str, target: _Target, headers: dict[str, str], length: int) -> bytes:
        lines = [method.encode() + b" " + target.path + b" HTTP/1.1"]
        for name, value in headers.items():
            line = f"{name}: {value}"
            if "\r" in line or "\n" in line:
                raise WebhookSendError(f"a line break in the header {name!r}")
            try:
                lines.append(line.encode("latin-1"))
            except UnicodeEncodeError:
                raise WebhookSendError(f"the header {name!r} is not Latin-1 text") from None
        lines += [
            b"Host: " + target.host_header,
            b"Content-Length: " + str(length).encode(),
            b"User-Agent: " + USER_AGENT,
            b"Accept: */*",
        ]
        return b"\r\n".join(lines) + b"\r\n\r\n"
