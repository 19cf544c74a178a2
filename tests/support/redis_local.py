"""Whether the local Redis (127.0.0.1:6379) answers: the response cache's Redis tests run
against it and are skipped without it."""

from __future__ import annotations

import socket

__all__ = ["REDIS_URL", "redis_answers"]

REDIS_URL = "redis://127.0.0.1:6379/0"


def redis_answers() -> bool:
    """A ``PING`` answered ``+PONG`` within a second."""
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False
