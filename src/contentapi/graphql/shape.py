"""Rows → GraphQL response values, in one pass, by compiled shapers.

A ``Shaper`` is a function ``(value, errors) -> JSON value`` that the planner builds once per
document and selection: it writes exactly the selected response keys (aliases and
``__typename`` included) with Strapi's scalar formats. A null in a non-null field raises
``NullInNonNull``, which the nearest nullable field turns into ``null`` plus an error, as
graphql-js does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from contentapi.graphql.scalars import format_time, long_value
from contentapi.values import format_datetime

__all__ = [
    "Deferred",
    "NullInNonNull",
    "ShapeErrors",
    "Shaper",
    "deferred_shaper",
    "nullable",
    "object_shaper",
    "scalar_renderer",
]

ShapeErrors = list[dict[str, Any]]
Shaper = Callable[[Any, ShapeErrors], Any]


class NullInNonNull(Exception):
    """A non-null field had no value: the parent becomes null (graphql-js semantics)."""

    def __init__(self, type_name: str, field_name: str) -> None:
        super().__init__(f"Cannot return null for non-nullable field {type_name}.{field_name}.")


def _js_number(value: Any) -> Any:
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _date(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else value.isoformat()


def _datetime(value: Any) -> str:
    return format_datetime(value) if isinstance(value, datetime) else str(value)


def _time(value: Any) -> str:
    return format_time(value) if isinstance(value, time) else str(value)


_RENDERERS: dict[str, Callable[[Any], Any]] = {
    "biginteger": long_value,
    "float": _js_number,
    "decimal": _js_number,
    "date": _date,
    "time": _time,
    "datetime": _datetime,
    "timestamp": _datetime,
    "integer": int,
    "id": str,
}


def scalar_renderer(value_type: str) -> Callable[[Any], Any] | None:
    """How a stored value of ``value_type`` is written in GraphQL (``None``: as it is)."""
    return _RENDERERS.get(value_type)


def scalar_shaper(
    key: str, render: Callable[[Any], Any] | None, non_null: bool, owner: str, field: str
) -> Shaper:
    """A scalar attribute read from the entry dict under ``key``."""
    if render is None:
        if not non_null:
            return lambda entry, errors: entry.get(key)

        def plain_required(entry: Any, errors: ShapeErrors) -> Any:
            value = entry.get(key)
            if value is None:
                raise NullInNonNull(owner, field)
            return value

        return plain_required

    def rendered(entry: Any, errors: ShapeErrors) -> Any:
        value = entry.get(key)
        if value is None:
            if non_null:
                raise NullInNonNull(owner, field)
            return None
        return render(value)

    return rendered


def nullable(shaper: Shaper) -> Shaper:
    """A nullable field: a null bubbling up from below stops here, with an error."""

    def guarded(value: Any, errors: ShapeErrors) -> Any:
        try:
            return shaper(value, errors)
        except NullInNonNull as null:
            errors.append({"message": str(null), "extensions": {"code": "INTERNAL_SERVER_ERROR"}})
            return None

    return guarded


def object_shaper(fields: list[tuple[str, Shaper]]) -> Shaper:
    """An object: each response key from its own shaper, in selection order."""
    pairs = tuple(fields)

    def shape(value: Any, errors: ShapeErrors) -> dict[str, Any]:
        return {key: shaper(value, errors) for key, shaper in pairs}

    return shape


def constant(value: Any) -> Shaper:
    return lambda _value, _errors: value


def date_value(value: date) -> str:  # re-exported for the users/upload payloads
    return value.isoformat()


@dataclass(slots=True, eq=False)
class Deferred:
    """A field an extension resolves, left in the shaped value to be resolved afterwards
    (``deferred.py``): its definition, the nodes selecting it, the type it belongs to, the
    parent value its resolver receives, and — for a generated field that is only wrapped —
    the value the compiled pass computed."""

    definition: Any
    parent_type: Any
    nodes: Any
    parent: Any
    computed: Any = None
    has_value: bool = False


def deferred_shaper(
    definition: Any,
    parent_type: Any,
    nodes: Any,
    computed: Shaper | None = None,
    parent_of: Callable[[Any], Any] | None = None,
) -> Shaper:
    """Writes a ``Deferred`` for one entry (``computed`` shapes the generated value)."""

    def shape(value: Any, errors: ShapeErrors) -> Deferred:
        parent = parent_of(value) if parent_of is not None else value
        if computed is None:
            return Deferred(definition, parent_type, nodes, parent)
        return Deferred(definition, parent_type, nodes, parent, computed(value, errors), True)

    return shape
