"""What a route reads from the request line: a path's entry id and the query string.

Every surface with ids in its paths (REST content routes, users, roles, upload) reads them the
same way, so an id that names no row is one 404 everywhere, and every query string is read with
the one ``qs`` port.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from contentapi.errors import NotFoundError
from contentapi.query.qs import parse_query
from contentapi.values import entry_id_of

__all__ = ["parse_entry_id", "query_params"]


def parse_entry_id(raw: str) -> int:
    """A path id: a positive integer that fits the id columns, else 404 (``/api/articles/abc``
    and ``/api/articles/3000000000`` name no entry)."""
    parsed = entry_id_of(raw)
    if parsed is None:
        raise NotFoundError()
    return parsed


def query_params(request: Request) -> dict[str, Any]:
    """The query string parsed exactly as Strapi's ``qs`` options parse it."""
    raw: bytes = request.scope.get("query_string", b"")
    return parse_query(raw.decode("utf-8", errors="replace"))
