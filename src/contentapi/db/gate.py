"""Reads granted to the oldest request first, at most N at once per worker
(``CONTENTAPI_DATABASE_READ_CONCURRENCY``; by default on for a database on this machine).

Why: when PostgreSQL runs on the same cores as the workers, a worker with ten requests in
flight runs ten statements at once. The backends then queue in the kernel's scheduler, in no
particular order, and a request whose statement loses that race loses it again at its next
statement. In the benchmark (2 cores, 2 workers, 16 connections) the deep filter answered in
11 ms at the median and 107 ms at p99. With three reads per worker at once, granted in the
order the requests arrived, a request that has started goes on before one that came later:
p99 30-35 ms, the related-attribute filter's 156-195 → 50-60 ms, for 0-6% fewer requests a
second (``docs/benchmarks.md``). An unordered limit (a pool of three) did not do it: p99
57-68 ms.

Unset, it is on (``LOCAL_READ_CONCURRENCY`` permits) only where the database URL names this
machine (a loopback address, ``localhost`` or a socket) and serves every read (no replicas):
the permit is held for the whole read, the network round trip included, so with the database
on another machine N permits would cap a worker at N / (round trip * reads per request)
requests a second — and there the backends do not compete with the workers for cores. A
database on the same machine under another name (``db`` in ``docker-compose.yml``) is not
recognised: set the number there.

Only ``Database.read()`` is gated. A write may wait for its entry's turn
(``entries/turns.py``) or a row lock, which another request's read permit would then be
waiting behind; a read waits on nothing but its statements. A read inside a read of the same
request (or a task started from it) goes through: it holds a permit already. A permit not
granted within ``wait`` seconds answers as a pool with no connection left does (503,
``db/outage.py``), so a cycle nobody foresaw is an error, never a hang.
"""

from __future__ import annotations

import asyncio
import heapq
import ipaddress
import itertools
import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar, Token
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL

__all__ = ["LOCAL_READ_CONCURRENCY", "OldestFirstGate", "RequestStartMiddleware", "read_permits"]

#: reads at once per worker where the setting is unset and the database is on this machine:
#: on 2 cores with 2 workers, 2 gave the related-attribute filter p99 47-57 ms against 56-89
#: with 4 and 108-130 without a gate, at the same requests a second (docs/benchmarks.md)
LOCAL_READ_CONCURRENCY = 2

#: when the current request arrived (``time.monotonic()``), set by ``RequestStartMiddleware``;
#: unset outside requests (background work, commands): such a read is as old as its wait
_REQUEST_START: ContextVar[float | None] = ContextVar("contentapi_request_start", default=None)
#: whether this request (or the task it started) holds a read permit now
_HOLDING: ContextVar[bool] = ContextVar("contentapi_read_permit", default=False)

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


def read_permits(setting: int | None, url: URL, *, replicated: bool) -> int:
    """The gate's permits (0: no gate): the setting where given, else
    ``LOCAL_READ_CONCURRENCY`` for a database on this machine that serves every read
    (module doc)."""
    if setting is not None:
        return setting
    return 0 if replicated or not on_this_machine(url) else LOCAL_READ_CONCURRENCY


def on_this_machine(url: URL) -> bool:
    """Whether ``url``'s server is this machine: no host (the driver's local socket), a socket
    directory, ``localhost`` or a loopback address."""
    host = url.host or url.query.get("host")
    if isinstance(host, tuple):  # several hosts: not known to be this one
        return False
    if not host or host.startswith("/"):  # the driver's default socket, a socket directory
        return True
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class RequestStartMiddleware:
    """Notes when each HTTP request arrived, for the gate's order (installed with the gate)."""

    __slots__ = ("app",)

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            _REQUEST_START.set(time.monotonic())
        await self.app(scope, receive, send)


class OldestFirstGate:
    """At most ``permits`` holders at once; waiters are let in by their request's arrival."""

    def __init__(self, permits: int, *, wait: float = 30) -> None:
        if permits < 1:
            raise ValueError("a gate needs at least one permit")
        self.permits = permits
        #: seconds a read waits for a permit before it fails as unavailable
        self.wait = wait
        self._free = permits
        #: (arrival, tie-breaker, future) of each read waiting, oldest first
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def held(self) -> int:
        """Permits held now (tests: none left behind)."""
        return self.permits - self._free

    async def enter(self) -> Token[bool] | None:
        """Take a permit, waiting for older requests' reads; ``None`` when this request holds
        one already (a read inside a read): then there is nothing to ``leave``."""
        if _HOLDING.get():
            return None
        await self._acquire()
        return _HOLDING.set(True)

    def leave(self, permit: Token[bool]) -> None:
        """Give back the permit ``enter`` returned, to the oldest read waiting for one."""
        _HOLDING.reset(permit)
        self._release()

    async def _acquire(self) -> None:
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        arrival = _REQUEST_START.get()
        if arrival is None:
            arrival = time.monotonic()
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (arrival, next(self._order), granted))
        try:
            async with asyncio.timeout(self.wait):
                await granted
        except BaseException as error:
            if granted.done() and not granted.cancelled():
                self._release()  # granted as it was given up: hand it on
            else:
                granted.cancel()  # skipped when its turn comes
            if isinstance(error, TimeoutError):
                raise sa_exc.TimeoutError(
                    f"no database read permit within {self.wait:g} s"
                ) from None
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, granted = heapq.heappop(self._waiting)
            if not granted.done():
                granted.set_result(None)  # the permit passes on: the free count is unchanged
                return
        self._free += 1
