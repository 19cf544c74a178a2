"""A TCP proxy in front of PostgreSQL that counts the client's round trips.

Every exchange a driver waits on ends with a ``Sync`` (``S``, extended protocol) or is one
``Query`` (``Q``, simple protocol) message, so counting those two message types on the
client → server stream counts round trips, whatever the driver or the ORM above it does
(prepares, BEGIN/COMMIT, pings included). Start-up messages (no type byte) are passed through.
Connections must not use TLS (``?ssl=disable``), or the stream could not be read.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator

from sqlalchemy.engine import make_url

__all__ = ["RoundTripProxy", "url_through"]

_UNTYPED_REQUESTS = {80877103, 80877104}  # SSLRequest, GSSENCRequest


class RoundTripProxy:
    """Relays to ``upstream_url``'s server: the run's PostgreSQL, wherever it listens
    (``tests/support/pgsession.py``), not a fixed address."""

    def __init__(self, upstream_url: str) -> None:
        upstream = make_url(upstream_url)
        self.upstream = (upstream.host or "localhost", upstream.port or 5432)
        self.round_trips = 0
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        await self.drop()

    async def drop(self) -> None:
        """Close every relayed connection (a database restart, as its clients see it); new
        connections are still relayed."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    @contextlib.asynccontextmanager
    async def counting(self) -> AsyncIterator[list[int]]:
        """Yields a one-item list holding, after the block, the round trips made in it."""
        result = [0]
        before = self.round_trips
        yield result
        result[0] = self.round_trips - before

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        down = asyncio.create_task(self._pipe(up_reader, writer))
        self._tasks.add(down)
        try:
            await self._client_stream(reader, up_writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            up_writer.close()
            down.cancel()
            self._tasks.discard(down)
            writer.close()

    async def _client_stream(
        self, reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter
    ) -> None:
        while True:  # start-up phase: length-prefixed messages without a type byte
            head = await reader.readexactly(8)
            length, code = struct.unpack("!ii", head)
            body = await reader.readexactly(length - 8)
            up_writer.write(head + body)
            await up_writer.drain()
            if code not in _UNTYPED_REQUESTS:
                break
        while True:
            kind = await reader.readexactly(1)
            size = await reader.readexactly(4)
            (length,) = struct.unpack("!i", size)
            body = await reader.readexactly(length - 4)
            if kind in (b"S", b"Q"):
                self.round_trips += 1
            up_writer.write(kind + size + body)
            await up_writer.drain()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
        finally:
            writer.close()  # the server closed: so does the client's side


def url_through(proxy: RoundTripProxy, database_url: str) -> str:
    """``database_url`` (a test database) reached through ``proxy`` instead."""
    base, _, name = database_url.rpartition("/")
    credentials = base.rsplit("@", 1)[0]
    return f"{credentials}@127.0.0.1:{proxy.port}/{name}?ssl=disable"
