"""Filters and sorts on a JSON (or blocks) attribute, as Strapi 4.25 answers them on PostgreSQL.

Strapi's database layer casts the value of ``$eq``, ``$ne``, ``$in``, ``$notIn``, ``$lt``,
``$lte``, ``$gt``, ``$gte`` and ``$between`` with ``JSON.stringify`` and compares ``jsonb``
values: ``metadata[$eq]=text`` finds the JSON string ``"text"`` (never an object), and
``$gt=text`` every value ``jsonb`` orders above it (other strings, numbers, booleans, arrays,
objects). The case-insensitive operators (``$eqi``, ``$nei``, ``$containsi``, ``$notContainsi``,
``$startsWithi``, ``$endsWithi``) read ``LOWER(CAST(column AS VARCHAR))``: ``jsonb``'s text,
``{"a": 1}`` with its spaces. A sort orders by ``jsonb``. The case-sensitive string operators
compare ``jsonb`` with ``LIKE`` there and answer 500; ``query/parse/filters.py`` refuses them (400).

On SQLite the same comparisons use ``db/jsonb.py``'s functions, so both databases agree.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, LargeBinary, String, Text, cast, func, literal
from sqlalchemy.dialects.postgresql import JSONB

from contentapi.db.jsonb import SQLITE_JSONB_KEY, SQLITE_JSONB_OUT, json_text, jsonb_key
from contentapi.query.operators import OPERATORS

__all__ = ["JSON_KINDS", "JSON_OPERATORS", "JSON_TEXT_OPERATORS", "json_condition", "json_sortable"]

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


def json_sortable(column: Any, dialect: str) -> Any:
    """What ORDER BY (and ``MIN``/``MAX`` on SQLite) reads for ``jsonb``'s order."""
    if dialect == "postgresql":
        return column
    return getattr(func, SQLITE_JSONB_KEY)(column, type_=LargeBinary)


def _operand(value: Any, dialect: str) -> Any:
    text = json_text(value)
    if dialect == "postgresql":
        return cast(literal(text, Text), JSONB)
    return literal(jsonb_key(text), LargeBinary)


def json_condition(column: Any, operator: str, value: Any, dialect: str) -> ColumnElement[bool]:
    """``column`` (a JSON column) against ``value`` as parsed by ``query/parse/``."""
    if operator in JSON_TEXT_OPERATORS:
        text = (
            cast(column, String)
            if dialect == "postgresql"
            else getattr(func, SQLITE_JSONB_OUT)(column, type_=Text)
        )
        return OPERATORS[operator].build(text, value, dialect)
    if operator not in JSON_OPERATORS:  # $null, $notNull
        return OPERATORS[operator].build(column, value, dialect)
    if value is None:  # `$eq: null` (GraphQL): IS NULL, as on every attribute
        return column.is_(None) if operator == "$eq" else column.is_not(None)
    left = json_sortable(column, dialect)
    if operator in ("$in", "$notIn"):
        operands = [_operand(item, dialect) for item in value]
        return left.in_(operands) if operator == "$in" else left.not_in(operands)
    if operator == "$between":
        low, high = (_operand(item, dialect) for item in value)
        return left.op(">=", is_comparison=True)(low) & left.op("<=", is_comparison=True)(high)
    return left.op(_SYMBOLS[operator], is_comparison=True)(_operand(value, dialect))
