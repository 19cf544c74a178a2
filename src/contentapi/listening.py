"""The listening socket: bound once, or one line that says what to fix.

``contentapi serve`` binds the address before anything starts (a port in use must not surface
as a traceback from the supervisor or as uvicorn's error after a worker has started), and the
supervisor binds the socket its workers inherit the same way. Standard library only: the
supervisor imports it and stays small.
"""

from __future__ import annotations

import errno
import socket

__all__ = ["AddressError", "bind", "check_address"]


class AddressError(Exception):
    """The address cannot be listened on; ``str()`` is one line naming the fix."""


def bind(host: str, port: int) -> socket.socket:
    """The listening socket every worker inherits (bound as uvicorn binds it), or
    ``AddressError``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # As uvicorn: a port left in TIME_WAIT by a stopped server is free to bind again.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise AddressError(_describe(error, host, port)) from None
    sock.set_inheritable(True)
    return sock


def check_address(host: str, port: int) -> None:
    """``AddressError`` unless ``host:port`` can be listened on now (bound, then let go)."""
    bind(host, port).close()


def _describe(error: OSError, host: str, port: int) -> str:
    fix = "set CONTENTAPI_HOST / --host"
    if isinstance(error, socket.gaierror):
        return f"host {host!r} is not an address of this machine or a name it resolves; {fix}"
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use; stop what holds it or set CONTENTAPI_PORT / --port"
        )
    if error.errno == errno.EACCES:
        return (
            f"port {port} on {host} needs privileges this user lacks (ports below 1024); "
            "set CONTENTAPI_PORT / --port to 1024 or above"
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine; {fix} (0.0.0.0: every address)"
    return f"cannot listen on {host}:{port} ({error.strerror or error}); {fix} or CONTENTAPI_PORT"
