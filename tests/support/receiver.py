"""A webhook receiver: a real HTTP server on a free local port, in the test's event loop, that
records every request (method, path, headers, body) and answers the statuses it is told to —
one per request in order, then 200."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

__all__ = ["Received", "Receiver", "receiving"]


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    #: header names lower-cased, in the order sent
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str = ""
    requests: list[Received] = field(default_factory=list)
    #: statuses to answer, one per request, then 200
    statuses: list[int] = field(default_factory=list)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        request_line, *lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.requests.append(Received(method, path, headers, body))
        status = self.statuses.pop(0) if self.statuses else 200
        writer.write(
            f"HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".encode()
        )
        await writer.drain()
        writer.close()


@asynccontextmanager
async def receiving(port: int = 0) -> AsyncIterator[Receiver]:
    """A receiver on ``port`` (0: a free one)."""
    receiver = Receiver()
    server = await asyncio.start_server(receiver._serve, "127.0.0.1", port)
    port = server.sockets[0].getsockname()[1]
    receiver.url = f"http://127.0.0.1:{port}/hook"
    try:
        yield receiver
    finally:
        server.close()
        await server.wait_closed()
