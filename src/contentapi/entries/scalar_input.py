"""One scalar value of a write body: cast to the attribute's type (``values.py``), then the
model's rules — lengths as JavaScript counts them, ``varchar(255)``, regex, min/max, enum,
yup's e-mail test, the uid alphabet, no NUL — each broken rule as Strapi's message.

Apart from ``input.py``'s walk over the body because these rules see one value at a time;
``valid_email`` is yup's test the users' bodies use too, ``UID_PATTERN`` the pattern the
OpenAPI document states.
"""

from __future__ import annotations

import re
from typing import Any

from contentapi.entries.messages import MESSAGES, print_value
from contentapi.schema.model import ScalarAttribute
from contentapi.values import MAX_JSON_DEPTH, NestingTooDeep, TypeMismatch, parse_value

__all__ = ["UID_PATTERN", "contains_nul", "parse_scalar", "type_error", "valid_email"]

# yup's email rule (what Strapi validates with), in Python's regex dialect.
_ATEXT = r"[a-z0-9!#$%&'*+\-/=?^_`{|}~\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_LABEL = r"[a-z0-9\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_EMAIL = re.compile(
    rf"^{_ATEXT}+(\.{_ATEXT}+)*@(({_LABEL}|{_LABEL}[a-z0-9\-._~\u00A0-\uD7FF]*{_LABEL})\.)+"
    rf"([a-z\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]|[a-z\u00A0-\uD7FF][a-z0-9\-._~\u00A0-\uD7FF]*"
    rf"[a-z\u00A0-\uD7FF])$",
    re.IGNORECASE,
)


def valid_email(text: str) -> bool:
    """yup's ``string().email()`` test."""
    return _EMAIL.match(text) is not None


UID_PATTERN = "^[A-Za-z0-9-_.~]*$"
_UID = re.compile(UID_PATTERN)
#: Columns that are ``varchar(255)``; longer values would fail in PostgreSQL.
_VARCHAR_TYPES = frozenset({"string", "email", "uid", "enumeration", "password"})
_TEXT_TYPES = frozenset({"string", "text", "richtext", "email", "uid", "enumeration", "password"})
_NUMBER_TYPES = frozenset({"integer", "biginteger", "float", "decimal"})
_JS_TYPE = {
    "string": "string",
    "text": "string",
    "richtext": "string",
    "email": "string",
    "password": "string",
    "uid": "string",
    "enumeration": "string",
    "integer": "number",
    "biginteger": "number",
    "float": "number",
    "decimal": "number",
    "boolean": "boolean",
    "array": "array",
    "blocks": "array",
}


def _js_length(text: str) -> int:
    """String length as JavaScript counts it (UTF-16 code units), as Strapi's limits do."""
    return len(text.encode("utf-16-le")) // 2


def contains_nul(value: Any) -> bool:
    """PostgreSQL text and jsonb cannot hold U+0000; catch it here, not as a database error."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(contains_nul(item) for item in value)
    if isinstance(value, dict):
        return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
    return False


def _number_text(number: float | int) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _check_rules(attribute: ScalarAttribute, value: Any, name: str, is_draft: bool) -> str | None:
    """The first rule ``value`` breaks, as Strapi's message, or ``None``.

    As in Strapi, ``minLength`` is not enforced on drafts (a draft may be unfinished).
    """
    kind = attribute.type
    if contains_nul(value):
        return MESSAGES["nul"].format(path=name)
    if kind in _TEXT_TYPES:
        length = _js_length(value)
        if attribute.min_length is not None and length < attribute.min_length and not is_draft:
            return MESSAGES["min_length"].format(path=name, min=attribute.min_length)
        limit = attribute.max_length
        if kind in _VARCHAR_TYPES and kind != "password":
            limit = min(limit, 255) if limit is not None else 255
        if limit is not None and length > limit:
            return MESSAGES["max_length"].format(path=name, max=limit)
        if attribute.regex is not None and value != "" and not re.search(attribute.regex, value):
            return MESSAGES["regex"].format(path=name, regex=attribute.regex)
    if kind in _NUMBER_TYPES:
        if attribute.min is not None and value < attribute.min:
            return MESSAGES["min"].format(path=name, min=_number_text(attribute.min))
        if attribute.max is not None and value > attribute.max:
            return MESSAGES["max"].format(path=name, max=_number_text(attribute.max))
    if kind == "enumeration" and value not in attribute.enum:
        return MESSAGES["enum"].format(path=name, values=", ".join(attribute.enum))
    if kind == "email":
        if value == "":
            return MESSAGES["empty"].format(path=name)
        if not _EMAIL.match(value):
            return MESSAGES["email"].format(path=name)
    if kind == "uid" and not _UID.match(value):
        return MESSAGES["regex"].format(path=name, regex=UID_PATTERN)
    return None


def type_error(attribute: ScalarAttribute, raw: Any, name: str) -> str:
    """yup's ``typeError`` for a value that does not cast to the attribute's type."""
    js_type = _JS_TYPE.get(attribute.type)
    if js_type is None:
        return MESSAGES["required"].format(path=name)
    if js_type == "number" and raw is not None:
        return MESSAGES["type_cast"].format(path=name, type=js_type, value=print_value(raw))
    return MESSAGES["type"].format(path=name, type=js_type, value=print_value(raw))


def parse_scalar(
    attribute: ScalarAttribute, raw: Any, name: str, is_draft: bool
) -> tuple[Any, str | None]:
    """(stored value, Strapi's message for the first problem or ``None``)."""
    try:
        value = parse_value(attribute.type, raw)
    except TypeMismatch:
        return None, type_error(attribute, raw, name)
    except NestingTooDeep:
        return None, MESSAGES["depth"].format(path=name, max=MAX_JSON_DEPTH)
    except ValueError as problem:
        text = str(problem)
        if text == "must be an integer":
            return None, MESSAGES["integer"].format(path=name)
        if text == "is out of range":
            return None, MESSAGES["range"].format(path=name)
        return None, text  # date, time and datetime formats: Strapi's own sentences
    return value, _check_rules(attribute, value, name, is_draft)
