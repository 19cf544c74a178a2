"""Database URLs an operator writes, checked and normalised before anything connects.

Only two drivers run the server: aiosqlite and asyncpg. The plain forms people copy from
elsewhere (``postgresql://``, ``postgres://``, ``sqlite://``) are accepted and given the async
driver, so that ``CONTENTAPI_DATABASE_URL=$DATABASE_URL`` just works; anything else is refused
with one line naming the forms that work (``URL_FORMS``), never a driver's traceback.
"""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

__all__ = ["URL_FORMS", "DatabaseUrlError", "normalise_database_url", "redacted"]

URL_FORMS = (
    "sqlite+aiosqlite:///relative/path.db, sqlite+aiosqlite:////absolute/path.db or "
    "postgresql+asyncpg://user:password@host:5432/database"
)

#: drivers that mean "the default async driver of this database"
_SQLITE_NAMES = {"sqlite", "sqlite+aiosqlite", "sqlite+pysqlite"}
_POSTGRES_NAMES = {"postgresql", "postgres", "postgresql+asyncpg", "postgres+asyncpg"}


class DatabaseUrlError(ValueError):
    """A database URL the server cannot use; the message is one line for the operator."""


def normalise_database_url(text: str) -> str:
    """``text`` with the async driver the server uses; ``DatabaseUrlError`` when it is not a
    SQLite or PostgreSQL URL."""
    text = text.strip()
    try:
        url = make_url(text)
    except ArgumentError:
        # not echoed: an unparsable URL cannot be redacted and may hold a password
        raise DatabaseUrlError(f"not a database URL; use {URL_FORMS}") from None
    name = url.drivername.lower()
    if name in _SQLITE_NAMES:
        return _render(url.set(drivername="sqlite+aiosqlite"))
    if name in _POSTGRES_NAMES:
        if not url.database:
            raise DatabaseUrlError(
                f"{redacted(text)} names no database; use postgresql+asyncpg://user:password"
                "@host:5432/database"
            )
        return _render(url.set(drivername="postgresql+asyncpg"))
    backend = name.split("+", 1)[0]
    if backend in ("sqlite", "postgresql", "postgres"):
        raise DatabaseUrlError(
            f"driver {name!r} is not supported (the server runs on aiosqlite and asyncpg); "
            f"use {URL_FORMS}"
        )
    raise DatabaseUrlError(
        f"database {backend!r} is not supported (SQLite and PostgreSQL are); use {URL_FORMS}"
    )


def redacted(text: str) -> str:
    """The URL with its password replaced by ``***`` (for start-up lines and errors)."""
    try:
        return make_url(text).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparsable URL>"


def _render(url: URL) -> str:
    return url.render_as_string(hide_password=False)
