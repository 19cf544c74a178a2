"""Can the server reach its database? Asked once by the command line before it starts anything,
so that a stopped PostgreSQL, a missing database or a folder SQLite cannot write to is one line
for the operator, not a driver's traceback in every worker."""

from __future__ import annotations

import socket
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from contentapi.db.dialect import dialect_named
from contentapi.db.urls import redacted

__all__ = ["DatabaseUnreachable", "probe_database"]


class DatabaseUnreachable(Exception):
    """The database cannot be used; the message is one line saying why and what to do."""


async def probe_database(url: str, timeout: float = 10) -> None:
    """Connect once and disconnect (``url`` as ``normalise_database_url`` returns it)."""
    parsed = make_url(url)
    if dialect_named(parsed.get_backend_name()).local_file:
        _probe_sqlite(parsed.database)
        return
    host = parsed.host or "localhost"
    port = parsed.port or 5432
    where = f"PostgreSQL at {host}:{port}"
    try:
        conn = await asyncpg.connect(
            host=host,
            port=port,
            user=parsed.username,
            password=parsed.password,
            database=parsed.database,
            timeout=timeout,
            **{key: value for key, value in parsed.query.items() if isinstance(value, str)},
        )
    except asyncpg.InvalidCatalogNameError:
        raise DatabaseUnreachable(
            f"database {parsed.database!r} does not exist on {where}: create it "
            f"(createdb -h {host} -p {port} {parsed.database}) or fix CONTENTAPI_DATABASE_URL "
            f"({redacted(url)})"
        ) from None
    except (asyncpg.InvalidPasswordError, asyncpg.InvalidAuthorizationSpecificationError) as e:
        raise DatabaseUnreachable(
            f"{where} refused the credentials of CONTENTAPI_DATABASE_URL "
            f"({redacted(url)}): {_first_line(e)}"
        ) from None
    except OSError as error:  # refused, unknown host, timed out
        reason = _reason(error)
        raise DatabaseUnreachable(
            f"cannot connect to {where} ({reason}): is it running? "
            f"CONTENTAPI_DATABASE_URL is {redacted(url)}"
        ) from None
    except asyncpg.PostgresError as error:
        raise DatabaseUnreachable(f"{where}: {_first_line(error)} ({redacted(url)})") from None
    await conn.close()


def _probe_sqlite(database: str | None) -> None:
    if not database or database == ":memory:":
        return
    path = Path(database)
    if path.is_dir():
        raise DatabaseUnreachable(
            f"the SQLite database {database} is a folder; CONTENTAPI_DATABASE_URL must name a "
            "file (sqlite+aiosqlite:///path/to/content.db)"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseUnreachable(
            f"cannot create the folder of the SQLite database {database}: {error.strerror}"
        ) from None


def _reason(error: OSError) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host"
    if isinstance(error, TimeoutError):
        return "timed out"
    return error.strerror or _first_line(error) or type(error).__name__


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else ""
