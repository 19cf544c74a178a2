"""Query-string values → typed values for comparison with a column of a given attribute type.

Query strings carry text; GraphQL carries JSON. Both arrive here and leave as the Python value
the column holds, or a ``ValidationError`` with Strapi's bare message (no path: Strapi's
``details`` stay empty for these).
"""

from __future__ import annotations

import re
from typing import Any

from contentapi.errors import ValidationError
from contentapi.js import js_number_text
from contentapi.values import parse_value

__all__ = ["coerce_boolean", "coerce_filter_value", "loose_boolean"]

_TRUE = {"true", "t", "1"}
_FALSE = {"false", "f", "0"}
_DATE_FORMAT = "Invalid format, expected yyyy-MM-dd"
_DATE_OUT_OF_FORMAT = re.compile(
    r"^\d{4}-(?!(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$)\d{2}-\d{2}$"
)
#: Strapi answers 500 for a filter value that is not a number; ours say what was expected.
_NUMBERS = {
    "integer": "Invalid format, expected an integer",
    "biginteger": "Invalid format, expected an integer",
    "float": "Invalid format, expected a number",
    "decimal": "Invalid format, expected a number",
}


def coerce_boolean(raw: Any, where: str) -> bool:
    """Strapi's boolean flags: ``true/false``, ``t/f``, ``1/0`` (any case), or a JSON boolean."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower() if isinstance(raw, str | int) else None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValidationError(f"Invalid value for {where}: expected a boolean")


def loose_boolean(raw: Any) -> bool:
    """Strapi's ``parseBoolean`` with ``forceCast``: only ``false``/``f``/``0`` and the empty
    string are false; any other text is true (``filters[featured]=yes`` matches true)."""
    if isinstance(raw, bool):
        return raw
    if raw is None:
        return False
    return str(raw).strip().lower() not in _FALSE | {""}


class InvalidFilterValue(ValidationError):
    """A filter value out of its attribute's format. Strapi casts values after checking the
    keys of filters, sort and fields and after converting populate, so the parser raises this
    one between them (``filters[reviewedAt][$ne]=a&fields[0]=nosuchfield`` is
    ``Invalid parameter nosuchfield``, found by ``make diff``; with
    ``populate[categories][page]=abc`` it is the populate's ``PaginationError``), and before
    the 400s of populate that are ours alone (``QueryParser._populate_param``)."""


def coerce_filter_value(kind: str, raw: Any, where: str) -> Any:
    """A filter value of an attribute of type ``kind``; ``None`` stays ``None``."""
    if raw is None:
        return None
    if isinstance(raw, dict | list):
        raise ValidationError(f"Invalid value for {where}")
    if kind == "boolean":
        return loose_boolean(raw)
    if kind in ("json", "array"):
        raise ValidationError(f"Invalid value for {where}: only $null and $notNull apply to {kind}")
    if kind in ("string", "text", "richtext", "email", "uid", "enumeration", "password"):
        # A GraphQL number is bound as JavaScript prints it: `rating: {eqi: 0}` compares "0"
        numeric = isinstance(raw, int | float) and not isinstance(raw, bool)
        text = js_number_text(raw) if numeric else str(raw)
        if "\x00" in text:  # PostgreSQL text cannot hold it: the query would fail there
            raise ValidationError(f"Invalid value for {where}: NUL characters are not allowed")
        return text
    if kind == "date" and isinstance(raw, str) and _DATE_OUT_OF_FORMAT.match(raw.strip()):
        # Strapi's format check knows months 01-12 and days 01-31: `2024-13-01` is a format
        # error, `2024-02-30` an "Invalid date".
        raise InvalidFilterValue(_DATE_FORMAT)
    try:
        return parse_value(kind, raw)
    except ValueError as problem:
        if kind == "decimal" and str(problem) == "is out of range":
            # No price is 1e30, but `price[$lt]=1e30` is a fair question: compared unrounded.
            return parse_value("float", raw)
        if kind in _NUMBERS:
            raise InvalidFilterValue(_NUMBERS[kind]) from problem
        # Strapi's bare message: `filters[eventDate][$eq]=x` → "Invalid format, expected
        # yyyy-MM-dd", `2024-02-30` → "Invalid date", a bad time "Invalid time format, expected
        # HH:mm:ss.SSS", a bad datetime "Invalid format, expected a timestamp or an ISO date".
        raise InvalidFilterValue(str(problem)) from problem
