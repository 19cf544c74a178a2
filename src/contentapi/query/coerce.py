"""Query-string values → typed values for comparison with a column of a given attribute type.

Query strings carry text; GraphQL carries JSON. Both arrive here and leave as the Python value
the column holds, or a ``ValidationError`` naming the filter path.
"""

from __future__ import annotations

from typing import Any

from contentapi.errors import ValidationError
from contentapi.values import parse_value

__all__ = ["coerce_boolean", "coerce_filter_value", "loose_boolean"]

_TRUE = {"true", "t", "1"}
_FALSE = {"false", "f", "0"}


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
        return str(raw)
    try:
        return parse_value(kind, raw)
    except ValueError as problem:
        raise ValidationError(f"Invalid value for {where}: {problem}") from problem
