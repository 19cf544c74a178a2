"""Which database failures mean "the database is unavailable" rather than "this request is bad".

A server that refuses connections, a connection dropped under a statement, a PostgreSQL
shutting down or out of connection slots, a statement cancelled by the statement timeout, a
pool with no connection to hand out, a SQLite
database still locked when the busy timeout ends: none is the client's fault nor a bug, and a
retry may well succeed, so ``Database.read()``/``write()`` turn them into
``ServiceUnavailableError`` (503 with ``Retry-After``). Everything else passes through as it
was raised.

    try:
        ...
    except Exception as error:
        if is_unavailable(error):
            raise ServiceUnavailableError() from error
        raise
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import exc as sa_exc

__all__ = ["is_unavailable"]

#: SQLSTATE classes and codes of an unavailable PostgreSQL: 08 connection exception, 53
#: insufficient resources (too many connections, disk full), 57014 a statement cancelled (by
#: ``statement_timeout``: a runaway query, or one stuck behind a lock), 57P01-57P04
#: admin/crash shutdown, cannot connect now, database dropped.
_PG_CLASSES = ("08", "53")
_PG_CODES = frozenset({"57014", "57P01", "57P02", "57P03", "57P04"})
#: SQLite primary result codes: BUSY, LOCKED, IOERR, FULL, CANTOPEN.
_SQLITE_CODES = frozenset({5, 6, 10, 13, 14})


def _driver_says_unavailable(error: BaseException) -> bool:
    if isinstance(error, OSError):  # refused, reset, unreachable, timed out
        return True
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in _SQLITE_CODES
        return "locked" in str(error) or "unable to open" in str(error)
    sqlstate = getattr(error, "sqlstate", None)  # asyncpg's PostgresError
    if isinstance(sqlstate, str):
        return sqlstate.startswith(_PG_CLASSES) or sqlstate in _PG_CODES
    # asyncpg's ConnectionDoesNotExistError / "connection is closed" carry no SQLSTATE.
    return type(error).__name__ in ("ConnectionDoesNotExistError", "ConnectionFailureError")


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot be reached or used now. Only database and
    socket errors are looked at (and what they were raised ``from``): an application error
    raised while handling one is the application's answer, not an outage."""
    if isinstance(error, sa_exc.TimeoutError):  # no pooled connection within the timeout
        return True
    if isinstance(error, sa_exc.DBAPIError) and error.connection_invalidated:
        return True
    if not isinstance(error, sa_exc.SQLAlchemyError | OSError | sqlite3.Error) and not hasattr(
        error, "sqlstate"
    ):
        return False
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _driver_says_unavailable(current):
            return True
        current = current.__cause__
    return False
