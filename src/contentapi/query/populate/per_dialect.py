"""Every place the populator differs per database, and only here.

PostgreSQL binds a list of ids as one array parameter (``= ANY($1::INTEGER[])``) and reads a
level's relations or components in one statement as JSON rows (``jsonb_build_object``,
``to_jsonb``); SQLite binds an expanding ``IN`` and reads one statement per relation and per
component type. The readers ask these functions instead of testing the dialect themselves, so
moving the populator onto a shared dialect seam later touches this module alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ARRAY, ColumnElement, any_, bindparam

__all__ = ["among", "one_of", "reads_levels_as_json"]


def among(dialect: str, column: Any, ids: Sequence[int] | None = None) -> ColumnElement[bool]:
    """``column IN ids``. On PostgreSQL ``column = ANY($1::INTEGER[])``: one statement
    text whatever the number of ids, so asyncpg's prepared statement is reused and
    SQLAlchemy has no expanding parameter to render on every call. Without ``ids`` the
    list is a parameter named ``ids``, bound when the statement runs."""
    if dialect != "postgresql":
        if ids is None:
            return column.in_(bindparam("ids", expanding=True))
        return column.in_(ids)
    if ids is None:
        return column == any_(bindparam("ids", type_=ARRAY(column.type)))
    return column == any_(bindparam(None, list(ids), type_=ARRAY(column.type)))


def one_of(dialect: str, column: Any, values: Sequence[str]) -> ColumnElement[bool]:
    """``column IN values`` for a fixed list: on PostgreSQL ``= ANY`` of one array
    parameter, so the statement has no expanding parameter and can run straight on the
    driver (``KeptStatements``)."""
    if dialect != "postgresql":
        return column.in_(list(values))
    return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))


def reads_levels_as_json(dialect: str) -> bool:
    """Whether a level's relations (``UNION ALL`` of ``jsonb_build_object`` rows) and its
    components (join rows with ``to_jsonb``) may be read in one statement: PostgreSQL only."""
    return dialect == "postgresql"
