"""Filters and sorts on a JSON (or blocks) attribute, as Strapi 4.25 answers them on PostgreSQL.

Strapi's database layer casts the value of ``$eq``, ``$ne``, ``$in``, ``$notIn``, ``$lt``,
``$lte``, ``$gt``, ``$gte`` and ``$between`` with ``JSON.stringify`` and compares ``jsonb``
values: ``metadata[$eq]=text`` finds the JSON string ``"text"`` (never an object), and
``$gt=text`` every value ``jsonb`` orders above it (other strings, numbers, booleans, arrays,
objects). The case-insensitive operators (``$eqi``, ``$nei``, ``$containsi``, ``$notContainsi``,
``$startsWithi``, ``$endsWithi``) read ``LOWER(CAST(column AS VARCHAR))``: ``jsonb``'s text,
``{"a": 1}`` with its spaces. A sort orders by ``jsonb``. The case-sensitive string operators
compare ``jsonb`` with ``LIKE`` there and answer 500; ``query/parse/filters.py`` refuses them (400).

On SQLite the same comparisons use ``db/jsonb.py``'s functions, so both databases agree: the
dialect (``db/dialect.py``) gives the sortable form, the operand and the text of each.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement

from contentapi.db.dialect import Dialect
from contentapi.query.operators import OPERATORS

__all__ = ["JSON_KINDS", "JSON_OPERATORS", "JSON_TEXT_OPERATORS", "json_condition"]

JSON_KINDS = frozenset({"json"})

#: Operators comparing ``jsonb`` values (the value cast with ``JSON.stringify``).
JSON_OPERATORS = frozenset(
    {"$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$notIn", "$between"}
)
#: Operators reading the ``jsonb`` text, lower-cased.
JSON_TEXT_OPERATORS = frozenset(
    {"$eqi", "$nei", "$containsi", "$notContainsi", "$startsWithi", "$endsWithi"}
)

_SYMBOLS = {"$eq": "=", "$ne": "<>", "$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}


def json_condition(column: Any, operator: str, value: Any, dialect: Dialect) -> ColumnElement[bool]:
    """``column`` (a JSON column) against ``value`` as parsed by ``query/parse/``."""
    if operator in JSON_TEXT_OPERATORS:
        return OPERATORS[operator].build(dialect.json_text(column), value, dialect)
    if operator not in JSON_OPERATORS:  # $null, $notNull
        return OPERATORS[operator].build(column, value, dialect)
    if value is None:  # `$eq: null` (GraphQL): IS NULL, as on every attribute
        return column.is_(None) if operator == "$eq" else column.is_not(None)
    left = dialect.json_sortable(column)
    if operator in ("$in", "$notIn"):
        operands = [dialect.json_value(item) for item in value]
        return left.in_(operands) if operator == "$in" else left.not_in(operands)
    if operator == "$between":
        low, high = (dialect.json_value(item) for item in value)
        return left.op(">=", is_comparison=True)(low) & left.op("<=", is_comparison=True)(high)
    return left.op(_SYMBOLS[operator], is_comparison=True)(dialect.json_value(value))
