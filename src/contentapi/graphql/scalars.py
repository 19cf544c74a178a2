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
    BooleanValueNode,
    EnumValueNode,
    FloatValueNode,
    GraphQLError,
    GraphQLScalarType,
    IntValueNode,
    ObjectValueNode,
    StringValueNode,
    Undefined,
    ValueNode,
    print_ast,
    value_from_ast_untyped,
)

from contentapi.graphql.messages import js_string_of, js_stringify
from contentapi.graphql.variables import ScalarError
from contentapi.i18n.iso_locales import ISO_LOCALE_CODES
from contentapi.values import format_datetime, parse_value

__all__ = [
    "DATE",
    "DATETIME",
    "JSON",
    "LONG",
    "TIME",
    "UPLOAD",
    "ScalarInputError",
    "dynamic_zone_input",
    "format_time",
    "i18n_locale_code",
    "long_value",
]

MAX_SAFE_INTEGER = 2**53 - 1


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


class ScalarInputError(Exception):
    """A plain JavaScript ``Error`` thrown by a scalar: graphql-js prefixes its message
    (``Expected value of type "Time", found 5; …`` in a literal, ``Expected type "Time". …``
    in a variable)."""


#: What JavaScript's ``String.prototype.trim`` removes.
_JS_WHITESPACE = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_BIGINT = re.compile(r"[+-]?[0-9]+|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def _js_bigint(text: str) -> int:
    """JavaScript's ``BigInt(string)``: trimmed, ``""`` is 0, decimal with a sign or
    ``0x``/``0o``/``0b`` without one; anything else a ``SyntaxError``."""
    trimmed = text.strip(_JS_WHITESPACE)
    if not trimmed:
        return 0
    if not _BIGINT.fullmatch(trimmed):
        raise ScalarInputError(f"Cannot convert {text} to a BigInt")
    return int(trimmed, 0) if trimmed[:2].lower() in ("0x", "0o", "0b") else int(trimmed)


def _parse_long(value: Any) -> int:
    """graphql-scalars' ``BigInt.parseValue``: ``BigInt(String(value))``, refused unless it
    prints back as the same text."""
    text = js_string_of(value)
    number = _js_bigint(text)
    if str(number) != text:
        raise ScalarError(f"BigInt cannot represent value: {text}")
    return number


def _parse_long_literal(node: ValueNode, variables: Any = None) -> int:
    """graphql-scalars' ``BigInt.parseLiteral`` (a boolean literal is ``BigInt(true)``)."""
    if not isinstance(
        node, IntValueNode | FloatValueNode | StringValueNode | BooleanValueNode | EnumValueNode
    ):
        raise ScalarError(f"BigInt cannot represent non-integer value: {print_ast(node)}", node)
    if isinstance(node, BooleanValueNode):
        raise ScalarError(f"BigInt cannot represent value: {'true' if node.value else 'false'}")
    number = _js_bigint(node.value)
    if str(number) != node.value:
        raise ScalarError(f"BigInt cannot represent value: {node.value}")
    return number


def _leap(year: int) -> bool:
    return (year % 4 == 0 and year % 100 != 0) or year % 400 == 0


_DATE = re.compile(r"[0-9]{4}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])")
_DATETIME = re.compile(
    r"([0-9]{4}-(?:0[1-9]|1[012])-(?:0[1-9]|[12][0-9]|3[01]))"
    r"T((?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?"
    r"(?:Z|[+|-](?:[01][0-9]|2[0-3]):[0-5][0-9]))"
)
_OFFSET_TIME = re.compile(
    r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+|-]([01][0-9]|2[0-3]):[0-5][0-9])"
)


def valid_date(text: str) -> bool:
    """graphql-scalars' ``validateDate``: RFC 3339 ``full-date``, the day within its month."""
    if not _DATE.fullmatch(text):
        return False
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
    if month == 2:
        return day <= (29 if _leap(year) else 28)
    return not (month in (4, 6, 9, 11) and day > 30)


def valid_datetime(text: str) -> bool:
    """graphql-scalars' ``validateDateTime``: RFC 3339 ``date-time`` (``t``/``z`` in any case),
    a valid date and time (no leap second), an offset in ``+``/``-`` (its ``[+|-]`` also lets
    ``|`` through the pattern, which ``Date.parse`` then refuses)."""
    text = text.upper()
    matched = _DATETIME.fullmatch(text)
    if matched is None or "|" in text[19:]:
        return False
    return valid_date(matched.group(1)) and _OFFSET_TIME.fullmatch(matched.group(2)) is not None


def _literal_text(node: ValueNode) -> str:
    """``'value' in ast && ast.value`` as graphql-scalars prints a non-string literal."""
    value = getattr(node, "value", None)
    if isinstance(node, BooleanValueNode):
        return "true" if value else "false"
    return str(value) if isinstance(value, str) else "false"


def _date_scalar(label: str, valid: Callable[[str], bool], non_string: str, invalid: str) -> Any:
    """graphql-scalars' ``Date``/``DateTime`` inputs with their messages (a literal's error is
    located on it, a variable's is not)."""

    def parse(value: Any) -> str:
        if not isinstance(value, str):
            raise ScalarError(f"{label} cannot represent {non_string} {js_stringify(value)}")
        if not valid(value):
            raise ScalarError(f"{label} cannot represent an invalid {invalid} {value}.")
        return value

    def parse_literal(node: ValueNode, variables: Any = None) -> str:
        if not isinstance(node, StringValueNode):
            raise ScalarError(f"{label} cannot represent {non_string} {_literal_text(node)}", node)
        if not valid(node.value):
            raise ScalarError(f"{label} cannot represent an invalid {invalid} {node.value}.", node)
        return node.value

    return parse, parse_literal


def _temporal_serializer(
    label: str, kind: str, native: type, text: Callable[[Any], str]
) -> Callable[[Any], str]:
    """How ``DateTime``, ``Date`` and ``Time`` answer a value: a ``native`` one as ``text``
    writes it, a string parsed as the attribute type ``kind`` first, anything else an error."""

    def serialize(value: Any) -> str:
        if isinstance(value, native):
            return text(value)
        if isinstance(value, str):
            return text(parse_value(kind, value))
        raise GraphQLError(f"{label} cannot represent value: {value!r}")

    return serialize


def _iso_date(value: date) -> str:
    """A date, or a datetime's date part."""
    return (value.date() if isinstance(value, datetime) else value).isoformat()


_serialize_datetime = _temporal_serializer("DateTime", "datetime", datetime, format_datetime)
_serialize_date = _temporal_serializer("Date", "date", date, _iso_date)
_serialize_time = _temporal_serializer("Time", "time", time, format_time)


#: Strapi's ``parseType({type: 'time'})`` pattern (its ``.`` before the fraction is any
#: character but a line terminator, as in JavaScript).
_STRAPI_TIME = re.compile(
    r"(2[0-3]|[01][0-9]):([0-5][0-9]):([0-5][0-9])([^\n\r\u2028\u2029][0-9]{1,3})?"
)


def _js_typeof(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def _parse_time(value: Any) -> str:
    """Strapi's ``Time.parseValue``: ``HH:mm:ss`` with up to 3 fraction digits, answered as
    ``HH:mm:ss.SSS``."""
    if not isinstance(value, str):
        raise ScalarInputError(f"Expected a string, got a {_js_typeof(value)}")
    matched = _STRAPI_TIME.fullmatch(value)
    if matched is None:
        raise ScalarInputError("Invalid time format, expected HH:mm:ss.SSS")
    hours, minutes, seconds, fraction = matched.groups()
    return f"{hours}:{minutes}:{seconds}.{(fraction or '.')[1:].ljust(3, '0')}"


def _parse_time_literal(node: ValueNode, variables: Any = None) -> str:
    if not isinstance(node, StringValueNode):
        raise ScalarInputError("Time cannot represent non string type")  # Strapi's ValidationError
    return _parse_time(node.value)


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
_parse_datetime, _parse_datetime_literal = _date_scalar(
    "DateTime", valid_datetime, "non string or Date type", "date-time-string"
)
_parse_date, _parse_date_literal = _date_scalar(
    "Date", valid_date, "non string type", "date-string"
)
DATETIME = GraphQLScalarType(
    "DateTime",
    serialize=_serialize_datetime,
    parse_value=_parse_datetime,
    parse_literal=_parse_datetime_literal,
)
DATE = GraphQLScalarType(
    "Date", serialize=_serialize_date, parse_value=_parse_date, parse_literal=_parse_date_literal
)
TIME = GraphQLScalarType(
    "Time", serialize=_serialize_time, parse_value=_parse_time, parse_literal=_parse_time_literal
)
LONG = GraphQLScalarType(
    "Long", serialize=_serialize_long, parse_value=_parse_long, parse_literal=_parse_long_literal
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
    """``I18NLocaleCode``, as Strapi's i18n plugin defines it: a literal must be ``all`` or one of
    its ISO locale codes (``contentapi/i18n/iso-locales.json``) — a well-formed code outside the
    list is refused. A variable's value is not checked (Strapi's ``parseValue`` is the identity):
    a string is taken as it is, matching nothing when no entry has that locale, and anything
    else as its JavaScript ``String(value)`` (``true``, ``[object Object]``), which matches
    nothing either."""

    def parse_value(value: Any) -> str:
        return value if isinstance(value, str) else js_string_of(value)

    def parse_literal(node: ValueNode, variables: Any = None) -> str:
        if not isinstance(node, StringValueNode):
            raise ScalarInputError("Locale cannot represent non string type")
        if node.value != "all" and node.value not in ISO_LOCALE_CODES:
            raise ScalarInputError("Unknown locale supplied")
        return node.value

    return GraphQLScalarType(
        "I18NLocaleCode",
        serialize=_identity,
        parse_value=parse_value,
        parse_literal=parse_literal,
    )


def dynamic_zone_input(name: str, components: Mapping[str, str]) -> GraphQLScalarType:
    """``<Type><Attr>DynamicZoneInput``: an object whose ``__typename`` names one of the zone's
    components (its GraphQL type name), turned into the REST item ``{__component: uid, ...}``.

    ``components`` maps each GraphQL type name to its component uid.
    """

    def parse(value: Any) -> Any:
        typename = value.get("__typename") if isinstance(value, Mapping) else None
        uid = components.get(typename) if isinstance(typename, str) else None
        if uid is None:  # Strapi's ApplicationError, prefixed by graphql-js as a plain error's
            raise ScalarInputError("Component not found. expected one of: " + ", ".join(components))
        item = {key: item for key, item in value.items() if key != "__typename"}
        return {"__component": uid, **item}

    def parse_literal(node: ValueNode, variables: Any = None) -> Any:
        if not isinstance(node, ObjectValueNode):
            return Undefined  # "Expected value of type …, found "x"."
        return parse(value_from_ast_untyped(node, variables))

    return GraphQLScalarType(
        name, serialize=_identity, parse_value=parse, parse_literal=parse_literal
    )
