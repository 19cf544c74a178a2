"""The filter operators of the spec: one table, name → value shape and SQL builder.

String matching (``$contains``, ``$startsWith``, ``$endsWith`` and their ``i`` / ``not`` forms)
matches the value literally (``%`` and ``_`` are ordinary characters:
docs/differences-from-strapi.md), case-sensitively unless the operator ends in ``i``, and
identically on SQLite and PostgreSQL. How is the dialect's (``Dialect.matches``: an escaped
``LIKE`` on PostgreSQL, positions and substrings on SQLite, whose ``LIKE`` ignores case), and so
is how case is folded (``Dialect.lower``, ``db/dialect.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Boolean, ColumnElement, and_, literal, not_
from sqlalchemy.sql.elements import ColumnElement as Column

from contentapi.db.dialect import Dialect, Placement
from contentapi.db.pgtext import pg_lower

__all__ = ["LOGICAL", "OPERATORS", "STRING_KINDS", "Operator"]

Shape = Literal["scalar", "list", "pair", "boolean"]
Builder = Callable[[Column[Any], Any, Dialect], ColumnElement[bool]]

STRING_KINDS = frozenset({"string", "text", "richtext", "email", "uid", "enumeration"})
LOGICAL = frozenset({"$and", "$or", "$not"})


@dataclass(frozen=True, slots=True)
class Operator:
    """``shape``: what value the operator takes; ``strings_only``: only on string attributes."""

    name: str
    shape: Shape
    build: Builder
    strings_only: bool = False


def _fold(
    column: Column[Any], value: str, insensitive: bool, dialect: Dialect
) -> tuple[Column[Any], str]:
    if not insensitive:
        return column, value
    return dialect.lower(column), pg_lower(value) or ""


def _match(where: Placement, insensitive: bool) -> Builder:
    def build(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
        folded, text = _fold(column, str(value), insensitive, dialect)
        return dialect.matches(folded, text, where)

    return build


def _negate(builder: Builder) -> Builder:
    def build(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
        return not_(builder(column, value, dialect))

    return build


def _eq(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    if value is None:
        return column.is_(None)
    if isinstance(value, list | tuple):  # Strapi: `$eq` with an array means `$in`
        return column.in_(dialect.comparands(column, value))
    return column == dialect.comparand(column, value)


def _ne(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    if value is None:
        return column.is_not(None)
    if isinstance(value, list | tuple):
        return column.not_in(dialect.comparands(column, value))
    return column != dialect.comparand(column, value)


def _eqi(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    if value is None:
        return column.is_(None)
    folded, text = _fold(column, str(value), True, dialect)
    return folded == text


def _null(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    return column.is_(None) if value else column.is_not(None)


def _not_null(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    return column.is_not(None) if value else column.is_(None)


def _bound(column: Column[Any], value: Any, dialect: Dialect) -> Any:
    """A range operand, as the dialect writes it (``Dialect.range_operand``). Booleans are
    bound as parameters (SQLAlchemy refuses ``column < False``) and ordered ``false < true``
    on both databases, as Strapi's PostgreSQL compares them: ``featured[$gte]=false`` is every
    entry with a value, ``featured[$lt]=true`` the false ones."""
    if isinstance(value, bool):
        return literal(value, Boolean())
    return dialect.range_operand(column, value)


def _between(column: Column[Any], value: Any, dialect: Dialect) -> ColumnElement[bool]:
    low, high = value
    return and_(column >= _bound(column, low, dialect), column <= _bound(column, high, dialect))


_OPERATORS = [
    Operator("$eq", "scalar", _eq),
    Operator("$ne", "scalar", _ne),
    Operator("$eqi", "scalar", _eqi, strings_only=True),
    Operator("$nei", "scalar", _negate(_eqi), strings_only=True),
    Operator("$lt", "scalar", lambda c, v, d: c < _bound(c, v, d)),
    Operator("$lte", "scalar", lambda c, v, d: c <= _bound(c, v, d)),
    Operator("$gt", "scalar", lambda c, v, d: c > _bound(c, v, d)),
    Operator("$gte", "scalar", lambda c, v, d: c >= _bound(c, v, d)),
    Operator("$in", "list", lambda c, v, d: c.in_(d.comparands(c, v))),
    Operator("$notIn", "list", lambda c, v, d: c.not_in(d.comparands(c, v))),
    Operator("$contains", "scalar", _match("anywhere", False), strings_only=True),
    Operator("$notContains", "scalar", _negate(_match("anywhere", False)), strings_only=True),
    Operator("$containsi", "scalar", _match("anywhere", True), strings_only=True),
    Operator("$notContainsi", "scalar", _negate(_match("anywhere", True)), strings_only=True),
    Operator("$startsWith", "scalar", _match("start", False), strings_only=True),
    Operator("$startsWithi", "scalar", _match("start", True), strings_only=True),
    Operator("$endsWith", "scalar", _match("end", False), strings_only=True),
    Operator("$endsWithi", "scalar", _match("end", True), strings_only=True),
    Operator("$null", "boolean", _null),
    Operator("$notNull", "boolean", _not_null),
    Operator("$between", "pair", _between),
]

OPERATORS: dict[str, Operator] = {operator.name: operator for operator in _OPERATORS}
