"""PostgreSQL's text functions in Python, for SQLite: the text of a number, date or time
column, and ``lower()``.

Strapi 4.25 on PostgreSQL answers the case-insensitive text operators (``$eqi``, ``$nei``,
``$containsi``, ``$notContainsi``, ``$startsWithi``, ``$endsWithi``) on any scalar column by
casting it to text: ``price[$eqi]=10`` matches nothing (the text of a ``numeric(10,2)`` is
``10.00``), ``scheduledAt[$containsi]=03:30`` matches the ``timestamp(6)`` text
``2024-04-10 03:30:00`` and ``T03`` matches nothing. ``Dialect.text_of`` (``db/dialect.py``)
builds that text in SQL: ``CAST(… AS VARCHAR)`` on PostgreSQL, and on SQLite, which stores
these types differently (decimals and floats as ``REAL``/``INTEGER``, times and datetimes as
text with six fraction digits), ``pg_text``, registered on every SQLite connection.

``pg_lower`` is PostgreSQL's ``lower()``: registered on SQLite connections too, and the folding
of filter values on both databases.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

__all__ = ["SQLITE_LOWER", "SQLITE_PG_TEXT", "TEXT_KINDS", "pg_float_text", "pg_lower", "pg_text"]

SQLITE_PG_TEXT = "pg_text"
#: The SQL name of ``pg_lower`` on SQLite connections.
SQLITE_LOWER = "pg_lower"

#: Attribute types whose column the text operators read as PostgreSQL prints it.
TEXT_KINDS = frozenset(
    {"integer", "biginteger", "float", "decimal", "date", "time", "datetime", "timestamp"}
)


def pg_float_text(value: float) -> str:
    """``float8out``: the shortest digits that read back as the same double, in plain notation
    when the decimal exponent is from -4 to 14, else as ``1.5e+20`` (at least two exponent
    digits): ``0``, ``4.5``, ``1e+15``, ``1.5e-07``."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    sign, digit_tuple, exponent = Decimal(repr(float(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent += len(digit_tuple) - len(digits)
    point = exponent + len(digits) - 1  # the decimal exponent of the first digit
    minus = "-" if sign else ""
    if -4 <= point < 15:
        if exponent >= 0:
            return minus + digits + "0" * exponent
        if point >= 0:
            return minus + digits[: point + 1] + "." + digits[point + 1 :]
        return minus + "0." + "0" * (-point - 1) + digits
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{minus}{mantissa}e{'-' if point < 0 else '+'}{abs(point):02d}"


def _trimmed_fraction(text: str) -> str:
    """``10:20:30.500000`` → ``10:20:30.5``, ``… 04:00:00.000000`` → ``… 04:00:00``: PostgreSQL
    prints a time's fraction without trailing zeros."""
    whole, dot, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if dot and fraction else whole


def pg_text(kind: str, value: Any) -> str | None:
    """What ``CAST(column AS VARCHAR)`` gives on PostgreSQL for SQLite's stored ``value`` of an
    attribute of type ``kind``."""
    if value is None:
        return None
    if kind == "decimal":
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
        return f"{number:.2f}"
    if kind == "float":
        return pg_float_text(float(value))
    if kind in ("time", "datetime", "timestamp"):
        return _trimmed_fraction(str(value))
    return str(value)


def pg_lower(text: str | None) -> str | None:
    """Lower case as PostgreSQL's ``lower()`` in a UTF-8 database: one character at a time
    (Unicode's simple mapping): capital sigma U+03A3 is always U+03C3 (never the final U+03C2
    Python's ``str.lower`` may give), U+1E9E becomes U+00DF and U+0130 a plain ``i``. SQLite's
    own ``lower()`` folds ASCII only; this function is registered on every SQLite connection
    under ``SQLITE_LOWER``, and folds filter values on both databases."""
    if text is None:
        return None
    return "".join(_SPECIAL_LOWER.get(c) or c.lower() for c in text)


#: Characters whose full lower-case mapping (Python's) has several characters.
_SPECIAL_LOWER = {"\u0130": "i"}
