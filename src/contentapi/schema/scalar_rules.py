"""Rules of one scalar attribute (string, number, date, enumeration, …): its bounds, lengths,
regex, enum values, default and the ``pluginOptions.contentapi.index`` option.

Apart from ``attribute_rules`` because these rules read only the attribute's own options and
are the longest part of a document's check; ``check_bounds`` serves components' and dynamic
zones' item counts too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from contentapi.schema.model import ScalarAttribute
from contentapi.schema.model_errors import ErrorCollector
from contentapi.schema.naming import column_name

__all__ = ["check_bounds", "parse_scalar"]

NUMERIC_TYPES = frozenset({"integer", "biginteger", "float", "decimal"})
#: types whose columns may carry an index (``pluginOptions.contentapi.index``): long text,
#: JSON and password hashes are never filtered or sorted by through an index
INDEXABLE_TYPES = frozenset(
    {
        "string",
        "email",
        "uid",
        "enumeration",
        "integer",
        "biginteger",
        "float",
        "decimal",
        "boolean",
        "date",
        "time",
        "datetime",
        "timestamp",
    }
)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_bounds(
    name: str, spec: Mapping[str, Any], errors: ErrorCollector, *, integer: bool = False
) -> tuple[Any, Any]:
    low, high = spec.get("min"), spec.get("max")
    for key, value in (("min", low), ("max", high)):
        if value is not None and not (
            _number(value) and (not integer or float(value).is_integer())
        ):
            errors.add(name, f"'{key}' must be a number")
            return None, None
    if low is not None and high is not None and low > high:
        errors.add(name, "'min' is greater than 'max'")
    return low, high


def parse_scalar(
    name: str,
    kind: str,
    spec: Mapping[str, Any],
    errors: ErrorCollector,
    localized: bool,
    custom_field: str | None = None,
) -> ScalarAttribute | None:
    low, high = (None, None)
    if kind in NUMERIC_TYPES:
        low, high = check_bounds(name, spec, errors)
    min_length, max_length = spec.get("minLength"), spec.get("maxLength")
    for key, value in (("minLength", min_length), ("maxLength", max_length)):
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            errors.add(name, f"'{key}' must be a non-negative integer")
            min_length = max_length = None
    if min_length is not None and max_length is not None and min_length > max_length:
        errors.add(name, "'minLength' is greater than 'maxLength'")
    regex = spec.get("regex")
    if regex is not None:
        try:
            re.compile(regex)
        except (re.error, TypeError) as exc:
            errors.add(name, f"invalid regex: {exc}")
            regex = None
    enum: tuple[str, ...] = ()
    if kind == "enumeration":
        values = spec.get("enum")
        if not isinstance(values, list) or not values:
            errors.add(name, "an enumeration needs a non-empty 'enum' list")
            return None
        if not all(isinstance(v, str) and v for v in values):
            errors.add(name, "enumeration values must be non-empty strings")
            return None
        if len(set(values)) != len(values):
            errors.add(name, "enumeration values must be unique")
        enum = tuple(values)
    has_default = "default" in spec
    default = spec.get("default")
    if has_default and not _default_fits(kind, default, enum):
        if kind == "enumeration":
            allowed = ", ".join(repr(value) for value in enum)
            errors.add(name, f"default {default!r} is not one of the enum values ({allowed})")
        else:
            errors.add(name, f"default {default!r} does not fit type {kind!r}")
    indexed = _index_option(name, kind, spec, errors)
    return ScalarAttribute(
        name=name,
        type=kind,
        column=column_name(name),
        required=spec.get("required", False) is True,
        unique=spec.get("unique", False) is True,
        private=spec.get("private", False) is True or kind == "password",
        has_default=has_default,
        default=default,
        min=low,
        max=high,
        min_length=min_length,
        max_length=max_length,
        regex=regex,
        enum=enum,
        target_field=spec.get("targetField"),
        localized=localized,
        indexed=indexed,
        custom_field=custom_field,
    )


def _index_option(name: str, kind: str, spec: Mapping[str, Any], errors: ErrorCollector) -> bool:
    """``"pluginOptions": {"contentapi": {"index": true}}``: index the column. Strapi keeps
    plugin options it does not know, so the model stays valid for Strapi, and the index is
    additive: a Strapi database gains it and still works."""
    options = spec.get("pluginOptions", {})
    ours = options.get("contentapi", {}) if isinstance(options, Mapping) else {}
    value = ours.get("index", False) if isinstance(ours, Mapping) else False
    if value is False:
        return False
    if value is not True:
        errors.add(name, "'pluginOptions.contentapi.index' must be true or false")
        return False
    if kind not in INDEXABLE_TYPES:
        allowed = ", ".join(sorted(INDEXABLE_TYPES))
        errors.add(name, f"an attribute of type {kind!r} cannot be indexed (allowed: {allowed})")
        return False
    return True


def _default_fits(kind: str, value: Any, enum: tuple[str, ...]) -> bool:
    """A default must be a literal of the attribute's type (a callable is not a JSON value)."""
    if value is None or kind in ("json", "array", "blocks"):
        return kind == "json" or value is None or isinstance(value, list)
    if kind == "enumeration":
        return value in enum
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("integer", "biginteger"):
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.lstrip("-").isdigit()
        )
    if kind in ("float", "decimal"):
        return _number(value) or isinstance(value, str)
    return isinstance(value, str)
