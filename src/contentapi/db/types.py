"""Column types per attribute type, the same on SQLite and PostgreSQL (Strapi v4's choices).

PostgreSQL gets Strapi's exact types (``numeric(10,2)``, ``time(3)``, ``timestamp(6)``,
``jsonb``) so a database created by Strapi and one created here are interchangeable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Double,
    Integer,
    Numeric,
    String,
    Text,
    Time,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.types import TypeEngine

__all__ = ["column_type", "datetime_type", "json_type"]


def json_type() -> TypeEngine[Any]:
    return JSON().with_variant(postgresql.JSONB(), "postgresql")


def datetime_type() -> TypeEngine[Any]:
    return DateTime().with_variant(postgresql.TIMESTAMP(precision=6), "postgresql")


def _decimal() -> TypeEngine[Any]:
    # Strapi answers decimals as JSON numbers; floats carry numeric(10,2) values exactly enough.
    return Numeric(10, 2, asdecimal=False)


_TYPES: dict[str, Callable[[], TypeEngine[Any]]] = {
    "string": lambda: String(255),
    "email": lambda: String(255),
    "password": lambda: String(255),
    "uid": lambda: String(255),
    "enumeration": lambda: String(255),
    "text": Text,
    "richtext": Text,
    "integer": Integer,
    "biginteger": BigInteger,
    "float": Double,
    "decimal": _decimal,
    "boolean": Boolean,
    "date": Date,
    "time": Time,
    "datetime": datetime_type,
    "timestamp": datetime_type,
    "json": json_type,
    "array": json_type,
    # Strapi's database layer gives blocks the json column (``jsonb`` on PostgreSQL)
    "blocks": json_type,
}


def column_type(attribute_type: str) -> TypeEngine[Any]:
    """The SQLAlchemy type of a scalar attribute's column."""
    return _TYPES[attribute_type]()
