"""One server process: uvicorn running the app, on a listening socket it inherited or binds.

``contentapi serve`` starts these (``supervisor.py`` keeps several running on one socket, or
``serve`` becomes one directly with a single worker). A worker imports only uvicorn and the
app — not the CLI (typer, rich, the model checks) nor uvicorn's command line (click).

    python -m contentapi.worker --fd 3            # serve on inherited socket 3
    python -m contentapi.worker --host H --port P  # bind it itself
"""

from __future__ import annotations

import argparse
import socket
import sys

import uvicorn

from contentapi.listening import AddressError, bind

__all__ = ["APP_FACTORY", "run_worker"]

#: What every worker runs (``create_server_app``: ``create_app`` plus ``gc.freeze``).
APP_FACTORY = "contentapi.app:create_server_app"


def run_worker(*, fd: int | None = None, host: str = "127.0.0.1", port: int = 1337) -> None:
    """Serve until SIGTERM / SIGINT (uvicorn's graceful shutdown: requests in flight finish)."""
    config = uvicorn.Config(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        log_level="info",
        # Forwarded headers are the app's to read, from CONTENTAPI_TRUSTED_PROXIES only:
        # uvicorn's default trusts them from 127.0.0.1, so any local client could pick the
        # address the rate limit counts it under.
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
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
    server.run(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m contentapi.worker", description=__doc__)
    parser.add_argument("--fd", type=int, help="an inherited listening socket")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1337)
    args = parser.parse_args()
    run_worker(fd=args.fd, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
