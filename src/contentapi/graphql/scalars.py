"""The custom scalars of Strapi's GraphQL plugin, with its formats and messages.

Output (``serialize``) follows what Strapi 4.25 writes: ``Long`` a JSON number when it is a
safe integer (else a string), ``Time`` as ``HH:mm:ss.SSS``, ``DateTime`` with milliseconds and
``Z``, ``Date`` as ``YYYY-MM-DD``. Input values are checked here and handed to the entry
service in the form REST bodies use (strings for dates and times), so both protocols share one
validation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLScalarType,
    StringValueNode,
    ValueNode,
    value_from_ast_untyped,
)

from contentapi.errors import ApplicationError, ValidationError
from contentapi.values import format_datetime, parse_value

__all__ = [
    "DATE",
    "DATETIME",
    "JSON",
    "LONG",
    "TIME",
    "UPLOAD",
    "dynamic_zone_input",
    "format_time",
    "i18n_locale_code",
    "long_value",
]

MAX_SAFE_INTEGER = 2**53 - 1
_TIME = re.compile(r"^(2[0-3]|[01]\d):[0-5]\d:[0-5]\d(\.\d{1,3})?$")


def long_value(value: Any) -> Any:
    """A biginteger as graphql-scalars' BigInt writes it: a number when safe, else a string."""
    number = int(value)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else str(number)


def format_time(value: time) -> str:
    """``HH:mm:ss.SSS`` (Strapi's ``parseType({type: 'time'})``)."""
    return f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond // 1000:03d}"


def _serialize_long(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | str | float):
        raise GraphQLError(f"BigInt cannot represent value: {value!r}")
    try:
        return long_value(value)
    except ValueError:
        raise GraphQLError(f"BigInt cannot represent non-integer value: {value}") from None


def _parse_long(value: Any) -> int:
    if isinstance(value, bool):
        raise GraphQLError(f"BigInt cannot represent value: {value!r}")
    if isinstance(value, float) and value.is_integer():
        if not -(2**63) < value < 2**63:  # a JSON integer beyond 64 bits, rounded to a double
            raise GraphQLError(f"BigInt cannot represent value out of range: {value}")
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    raise GraphQLError(f"BigInt cannot represent non-integer value: {value}")


def _literal(parse: Callable[[Any], Any]) -> Callable[..., Any]:
    def parse_literal(node: ValueNode, variables: Any = None) -> Any:
        return parse(value_from_ast_untyped(node, variables))

    return parse_literal


def _checked_string(kind: str, label: str) -> Callable[[Any], str]:
    """A date/time/datetime input must be a string the entry service can read."""

    def parse(value: Any) -> str:
        if not isinstance(value, str):
            raise GraphQLError(f"{label} cannot represent non string type {value!r}")
        try:
            parse_value(kind, value)
        except ValueError:
            raise GraphQLError(
                f"{label} cannot represent an invalid {kind} string {value}."
            ) from None
        return value

    return parse


def _serialize_datetime(value: Any) -> str:
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, str):
        return format_datetime(parse_value("datetime", value))
    raise GraphQLError(f"DateTime cannot represent value: {value!r}")


def _serialize_date(value: Any) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return parse_value("date", value).isoformat()
    raise GraphQLError(f"Date cannot represent value: {value!r}")


def _serialize_time(value: Any) -> str:
    if isinstance(value, time):
        return format_time(value)
    if isinstance(value, str):
        return format_time(parse_value("time", value))
    raise GraphQLError(f"Time cannot represent value: {value!r}")


def _parse_time(value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationError("Time cannot represent non string type")
    if not _TIME.match(value):
        raise ValidationError("Invalid time format, expected HH:mm:ss.SSS")
    return value


def _identity(value: Any) -> Any:
    return value


def _json_literal(node: ValueNode, variables: Any = None) -> Any:
    return value_from_ast_untyped(node, variables)


JSON = GraphQLScalarType(
    "JSON",
    serialize=_identity,
    parse_value=_identity,
    parse_literal=_json_literal,
    specified_by_url="http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf",
)
DATETIME = GraphQLScalarType(
    "DateTime",
    serialize=_serialize_datetime,
    parse_value=_checked_string("datetime", "DateTime"),
    parse_literal=_literal(_checked_string("datetime", "DateTime")),
)
DATE = GraphQLScalarType(
    "Date",
    serialize=_serialize_date,
    parse_value=_checked_string("date", "Date"),
    parse_literal=_literal(_checked_string("date", "Date")),
)
TIME = GraphQLScalarType(
    "Time", serialize=_serialize_time, parse_value=_parse_time, parse_literal=_literal(_parse_time)
)
LONG = GraphQLScalarType(
    "Long", serialize=_serialize_long, parse_value=_parse_long, parse_literal=_literal(_parse_long)
)


def _upload_value(value: Any) -> Any:
    from contentapi.upload.service import IncomingFile

    if isinstance(value, IncomingFile):
        return value
    raise GraphQLError("Upload value invalid.")


def _upload_literal(node: ValueNode, variables: Any = None) -> Any:
    raise GraphQLError("Upload literal unsupported.")


def _upload_serialize(value: Any) -> Any:
    raise GraphQLError("Upload serialization unsupported.")


UPLOAD = GraphQLScalarType(
    "Upload",
    serialize=_upload_serialize,
    parse_value=_upload_value,
    parse_literal=_upload_literal,
)


def i18n_locale_code() -> GraphQLScalarType:
    """``I18NLocaleCode``: ``all`` or a locale code. An unknown but well-formed code is a plain
    filter value answering nothing, as in Strapi (docs/differences-from-strapi.md)."""

    def parse(value: Any) -> str:
        if not isinstance(value, str) or not re.fullmatch(
            r"all|[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*", value
        ):
            raise ValidationError("Unknown locale supplied")
        return value

    def parse_literal(node: ValueNode, variables: Any = None) -> str:
        return parse(node.value if isinstance(node, StringValueNode) else None)

    return GraphQLScalarType(
        "I18NLocaleCode",
        serialize=_identity,
        parse_value=parse,
        parse_literal=parse_literal,
    )


def dynamic_zone_input(name: str, components: Mapping[str, str]) -> GraphQLScalarType:
    """``<Type><Attr>DynamicZoneInput``: an object whose ``__typename`` names one of the zone's
    components (its GraphQL type name), turned into the REST item ``{__component: uid, ...}``.

    ``components`` maps each GraphQL type name to its component uid.
    """

    def parse(value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise ValidationError(f"{name} must be an object")
        typename = value.get("__typename")
        uid = components.get(typename) if isinstance(typename, str) else None
        if uid is None:
            raise ApplicationError("Component not found. expected one of: " + ", ".join(components))
        item = {key: item for key, item in value.items() if key != "__typename"}
        return {"__component": uid, **item}

    return GraphQLScalarType(
        name, serialize=_identity, parse_value=parse, parse_literal=_literal(parse)
    )
