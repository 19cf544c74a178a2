"""The workers' shares of the open connections, kept even by asking a client to reconnect.

The workers of ``serve --workers N`` accept on one socket, and the kernel gives a new
connection to whichever worker takes it first; the event loop (libuv, under uvloop) then
accepts every connection waiting, not just one. A client that keeps its connections open (a
reverse proxy's upstream pool, a load generator, a server-side front end) stays wherever that
race put it. In the benchmark (16 connections opened at once, 2 workers) one worker held 11 or
12 of them in 4 runs out of 4 (libuv's ``UV_TCP_SINGLE_ACCEPT`` still left 10-12 on one in 5
of 6), and for the whole run each request of that worker waited behind ten others where an
even split would have put it behind seven, while the other worker had time to spare.

So each worker writes how many connections it holds to its slot of a small map shared with
the others (``ConnectionShares``: a file the supervisor made, inherited by descriptor), and a
worker holding more than an even share of them answers the request at hand with
``Connection: close`` (``EvenShares``). The client opens a new connection, which the kernel
gives to a worker waiting to accept — most often the less busy one — and the split settles
within a few requests: 8/8 in the same benchmark, the PUT scenario's p99 48-65 → 35-41 ms at
the same requests a second (``docs/benchmarks.md``). A worker reads the others' counts as of
their last request, so a connection may move once more than it had to before the split
settles; a worker that is not over its share pays a few memory reads a request.

This module imports a few standard modules only: the supervisor imports it (its memory budget,
``supervisor.py``).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Awaitable, Callable, MutableMapping, Sized
from typing import Any

__all__ = ["ConnectionShares", "EvenShares"]

#: bytes of one slot: a native ``int`` (``memoryview.cast("i")``)
_SLOT_SIZE = 4

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


class ConnectionShares:
    """A map of slots, one per worker: 0 when free, else the worker's connections plus one
    (so that a worker holding none still counts among those sharing)."""

    def __init__(self, fd: int) -> None:
        #: the map's file, inherited by the workers (``pass_fds``)
        self.fd = fd
        self._map = mmap.mmap(fd, os.fstat(fd).st_size)
        self._slots = memoryview(self._map).cast("i")

    @classmethod
    def create(cls, slots: int) -> ConnectionShares:
        """A new map of ``slots`` free slots (the supervisor's), in a file of memory (Linux)
        or an unlinked temporary file (``tempfile`` imported only there: 20 modules more in
        the supervisor)."""
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("contentapi-shares")
        else:  # pragma: no cover - macOS
            import tempfile

            fd, path = tempfile.mkstemp(prefix="contentapi-shares-")
            os.unlink(path)
        os.ftruncate(fd, slots * _SLOT_SIZE)
        return cls(fd)

    def __len__(self) -> int:
        return len(self._slots)

    def holds(self, slot: int) -> int | None:
        """The connections the worker of ``slot`` last wrote it holds (``None``: free)."""
        value = self._slots[slot]
        return value - 1 if value else None

    def take(self, slot: int) -> None:
        """Mark ``slot`` as a worker's, holding no connection yet."""
        self._slots[slot] = 1

    def free(self, slot: int) -> None:
        """Mark ``slot`` free: its worker stopped accepting, or exited."""
        self._slots[slot] = 0

    def over_share(self, slot: int, held: int) -> bool:
        """Note that ``slot``'s worker holds ``held`` connections; whether that is more than
        an even share of all the workers' (``held`` > the total divided by the workers,
        rounded up: with 16 connections and 2 workers, 9 is over and 8 is not)."""
        slots = self._slots
        slots[slot] = held + 1
        total = workers = 0
        for value in slots:
            if value:
                workers += 1
                total += value - 1
        return held * workers > total + workers - 1

    def close(self) -> None:
        self._slots.release()
        self._map.close()
        os.close(self.fd)


class EvenShares:
    """The worker's app, answering with ``Connection: close`` while the worker holds more
    than its share of the connections (module doc)."""

    __slots__ = ("app", "connections", "shares", "slot")

    def __init__(self, app: App, shares: ConnectionShares, slot: int, connections: Sized) -> None:
        self.app = app
        self.shares = shares
        #: this worker's slot; ``None`` once it stopped accepting (``leave``)
        self.slot: int | None = slot
        #: the connections the worker holds now (uvicorn's ``server_state.connections``)
        self.connections = connections
        shares.take(slot)

    def leave(self) -> None:
        """Stop counting (the worker stopped accepting): its slot is free for the others'
        arithmetic, and its last requests are not asked to reconnect for balance."""
        if self.slot is not None:
            self.shares.free(self.slot)
            self.slot = None

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        slot = self.slot
        if (
            slot is None
            or scope["type"] != "http"
            or not self.shares.over_share(slot, len(self.connections))
        ):
            await self.app(scope, receive, send)
            return

        async def closing(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), (b"connection", b"close")]
            await send(message)

        await self.app(scope, receive, closing)
