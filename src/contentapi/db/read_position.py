"""What one request's reads must see, for read-your-writes with read replicas.

A read a replica may serve (``Database.read_replicated``) goes to one only when the request
allows it and the replica has replayed the WAL at least up to ``at_least``:

- ``replica_ok``: the request only reads — ``GET``/``HEAD``, or a GraphQL query operation
  (``graphql/execute.py`` sets it per operation). Reads inside ``POST``/``PUT``/``DELETE``
  requests and mutations stay on the primary, as everything that decides a write does.
- ``at_least``: the position the client says it wrote at (its ``Contentapi-Lsn`` token,
  ``http/read_position.py``), raised by every write this request commits (``wrote``), so a
  request that writes and then reads sees its write too.

The position is per request, in a context variable that ``http/read_position.py`` sets only
when replicas are configured: without them nothing here is ever looked at. Outside a request
(the command line, the webhook dispatcher) there is no position, and reads go to the primary.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass

__all__ = [
    "ReadPosition",
    "current_read_position",
    "enter_request",
    "leave_request",
]


@dataclass(slots=True)
class ReadPosition:
    """One request's routing of reads (mutable: a write raises ``at_least``)."""

    #: its reads may go to a replica
    replica_ok: bool
    #: the WAL position (``db/lsn.py``) a replica must have replayed to serve them (0: any)
    at_least: int = 0
    #: the position after this request's last committed write (``None``: it wrote nothing),
    #: handed back to the client as its token
    written: int | None = None

    def wrote(self, position: int) -> None:
        """A write of this request committed at ``position``: its later reads see it."""
        self.written = position if self.written is None else max(self.written, position)
        self.at_least = max(self.at_least, position)


_current: ContextVar[ReadPosition | None] = ContextVar("contentapi_read_position", default=None)


def current_read_position() -> ReadPosition | None:
    """This request's position (``None``: no replicas, or no request)."""
    return _current.get()


def enter_request(position: ReadPosition) -> Token[ReadPosition | None]:
    return _current.set(position)


def leave_request(token: Token[ReadPosition | None]) -> None:
    _current.reset(token)
