"""The column values of an INSERT or UPDATE as Strapi stores them: ``None`` in a JSON column is
SQL ``NULL``, not the JSON literal ``null`` SQLAlchemy would write, so that ``$null`` /
``$notNull`` find it.

Its own module because every writer of content rows uses it: the entry writer, localization
copies and the upload plugin's file rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from sqlalchemy import JSON, Table, null

__all__ = ["json_nulls", "row_values"]


@cache
def _json_columns(table: Table) -> frozenset[str]:
    return frozenset(column.name for column in table.columns if isinstance(column.type, JSON))


def row_values(table: Table, columns: Mapping[str, Any]) -> dict[str, Any]:
    """Column values for an INSERT or UPDATE of ``table``: ``None`` in a JSON column becomes
    SQL ``NULL``, as Strapi stores it, so that ``$null`` / ``$notNull`` find it (SQLAlchemy
    would otherwise write the JSON literal ``null``)."""
    json_columns = _json_columns(table)
    return {
        name: null() if value is None and name in json_columns else value
        for name, value in columns.items()
    }


def json_nulls(table: Table, columns: Mapping[str, Any]) -> tuple[str, ...]:
    """The JSON columns of ``columns`` set to ``None``: ``row_values`` writes them as SQL
    ``NULL`` (a kept statement writes ``NULL`` for them, not a parameter)."""
    json_columns = _json_columns(table)
    return tuple(name for name, value in columns.items() if value is None and name in json_columns)
