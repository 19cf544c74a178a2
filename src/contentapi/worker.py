"""One server process: uvicorn running the app, on a listening socket it inherited or binds.

``contentapi serve`` starts these (``supervisor.py`` keeps several running on one socket, or
``serve`` becomes one directly with a single worker). A worker imports only uvicorn and the
app — not the CLI (typer, rich, the model checks) nor uvicorn's command line (click).

    python -m contentapi.worker --fd 3            # serve on inherited socket 3
    python -m contentapi.worker --host H --port P  # bind it itself

Beside uvicorn, the worker's event loop runs a heartbeat to the supervisor (``--heartbeat-fd``,
``heartbeat.py``) and gives freed memory back after bursts (``memory.py``); with the
supervisor's map of connections (``--shares-fd``), a worker holding more than its share asks
clients to reconnect (``connection_shares.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import signal
import socket
import sys

import uvicorn

from contentapi.access_log import logging_config
from contentapi.connection_shares import ConnectionShares, EvenShares
from contentapi.heartbeat import send_beat
from contentapi.listening import AddressError, bind
from contentapi.memory import limit_arenas, trim_when_idle

__all__ = ["APP_FACTORY", "TEST_HANG", "run_worker"]

log = logging.getLogger("uvicorn.error")

#: What every worker runs (``create_server_app``: ``create_app`` plus ``gc.freeze``).
APP_FACTORY = "contentapi.app:create_server_app"
#: Tests only: set to ``1``, SIGUSR1 makes the worker's event loop spin for ever (a hung
#: worker, for the supervisor's heartbeat tests). Nothing a client sends can do it.
TEST_HANG = "CONTENTAPI_TEST_HANG_ON_SIGUSR1"


#: Seconds a stopping worker gives a connection it has accepted to send its first request.
FIRST_REQUEST_WAIT = 1.0


class _Server(uvicorn.Server):
    """uvicorn's server, whose graceful shutdown first stops accepting and lets connections it
    has just accepted send their request: uvicorn closes a connection with no request yet at
    once, so a client whose request was on its way when a worker was replaced (SIGHUP, a
    rolling restart under load) saw it dropped while the other workers were serving."""

    #: the app counting this worker's connections among the workers' (``--shares-fd``)
    even_shares: EvenShares | None = None

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for listener in self.servers:
            listener.close()  # the shared socket stays open: the other workers accept
        if self.even_shares is not None:
            self.even_shares.leave()
        log.info("Stopped accepting connections")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FIRST_REQUEST_WAIT
        while loop.time() < deadline and any(
            getattr(connection, "cycle", True) is None  # accepted, no request yet
            for connection in self.server_state.connections
        ):
            await asyncio.sleep(0.01)
        await super().shutdown(sockets)


def run_worker(
    *,
    fd: int | None = None,
    host: str = "127.0.0.1",
    port: int = 1337,
    heartbeat_fd: int | None = None,
    heartbeat_interval: float = 1.0,
    shutdown_timeout: float | None = None,
    shares: tuple[int, int] | None = None,
) -> None:
    """Serve until SIGTERM / SIGINT (uvicorn's graceful shutdown: requests in flight finish,
    for at most ``shutdown_timeout`` seconds). ``shares``: the descriptor of the supervisor's
    map of connections and this worker's slot in it."""
    limit_arenas()  # before any thread (aiosqlite's, the thread pool's) allocates
    config = uvicorn.Config(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        log_level="info",
        log_config=logging_config(),  # uvicorn's, with a cheaper access formatter
        # Forwarded headers are the app's to read, from CONTENTAPI_TRUSTED_PROXIES only:
        # uvicorn's default trusts them from 127.0.0.1, so any local client could pick the
        # address the rate limit counts it under.
        proxy_headers=False,
        timeout_graceful_shutdown=None
        if shutdown_timeout is None
        else max(1, math.ceil(shutdown_timeout)),
    )
    server = _Server(config)
    if fd is None:
        # Bound before the app starts: uvicorn binds after its start-up, so a port in use would
        # be an error after a worker had announced itself ready.
        try:
            sock = bind(host, port)
        except AddressError as error:
            print(f"error: {error}", file=sys.stderr, flush=True)
            sys.exit(2)
    else:
        # socket(fileno=…) reads the family (IPv4, IPv6) from the descriptor itself;
        # uvicorn's own --fd assumes a Unix socket and would misread client addresses.
        sock = socket.socket(fileno=fd)

    async def heartbeat(fd: int) -> None:
        """A beat every interval once uvicorn serves, from this loop: the beats stop when the
        loop stops turning (``heartbeat.py``)."""
        os.set_blocking(fd, False)
        try:
            while not server.started or send_beat(fd):
                await asyncio.sleep(heartbeat_interval)
        finally:
            os.close(fd)
        server.should_exit = True  # the supervisor is gone: an orphan would serve for ever

    async def serve() -> None:
        state = server.server_state
        helpers = [
            asyncio.create_task(
                trim_when_idle(lambda: state.total_requests, lambda: len(state.tasks))
            )
        ]
        if heartbeat_fd is not None:
            helpers.append(asyncio.create_task(heartbeat(heartbeat_fd)))
        if os.environ.get(TEST_HANG) == "1":
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, _spin)
        if shares is not None:
            config.load()  # what ``serve`` would load, wrapped before it starts
            shares_fd, slot = shares
            server.even_shares = EvenShares(
                config.loaded_app, ConnectionShares(shares_fd), slot, state.connections
            )
            config.loaded_app = server.even_shares
        try:
            await server.serve(sockets=[sock])
        finally:
            for helper in helpers:
                helper.cancel()

    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(serve())


def _spin() -> None:
    """A blocked event loop, as a CPU-bound bug would block it (``TEST_HANG``)."""
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m contentapi.worker", description=__doc__)
    parser.add_argument("--fd", type=int, help="an inherited listening socket")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1337)
    parser.add_argument("--heartbeat-fd", type=int, help="a pipe to the supervisor")
    parser.add_argument("--heartbeat-interval", type=float, default=1.0)
    parser.add_argument("--shutdown-timeout", type=float, help="seconds to finish requests")
    parser.add_argument("--shares-fd", type=int, help="the supervisor's map of connections")
    parser.add_argument("--shares-slot", type=int, help="this worker's slot in that map")
    args = parser.parse_args()
    shares = None
    if args.shares_fd is not None and args.shares_slot is not None:
        shares = (args.shares_fd, args.shares_slot)
    run_worker(
        fd=args.fd,
        host=args.host,
        port=args.port,
        heartbeat_fd=args.heartbeat_fd,
        heartbeat_interval=args.heartbeat_interval,
        shutdown_timeout=args.shutdown_timeout,
        shares=shares,
    )


if __name__ == "__main__":
    main()
