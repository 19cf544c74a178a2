"""Strapi v4's validation messages (yup's, as Strapi configures it), in one place.

Clients and SDKs show these strings to people, so they match Strapi 4.25's text exactly,
quirks included (the enumeration message ends with ``", "`` because Strapi's allowed list
carries a trailing ``null``). ``print_value`` is yup's ``printValue``.
"""

from __future__ import annotations

import json
from typing import Any

from contentapi.errors import ApplicationError
from contentapi.js import js_string

__all__ = ["MESSAGES", "RequestError", "print_value"]


class RequestError(ApplicationError):
    """Strapi's ``ApplicationError`` as its controllers throw it at a bad request: status 400,
    name ``ApplicationError`` (``locale is already used``, ``Email already taken``)."""

    status = 400


MESSAGES = {
    "required": "{path} must be defined.",
    "type": "{path} must be a `{type}` type, but the final value was: `{value}`.",
    "type_cast": (
        "{path} must be a `{type}` type, but the final value was: `NaN` "
        "(cast from the value `{value}`)."
    ),
    "integer": "{path} must be an integer",
    "range": "{path} is out of range",
    "min": "{path} must be greater than or equal to {min}",
    "max": "{path} must be less than or equal to {max}",
    "min_length": "{path} must be at least {min} characters",
    "max_length": "{path} must be at most {max} characters",
    "regex": '{path} must match the following: "/{regex}/"',
    "enum": "{path} must be one of the following values: {values}, ",
    "email": "{path} must be a valid email",
    "empty": "{path} cannot be empty",
    "unique": "This attribute must be unique",
    "nul": "{path} must not contain NUL characters",
    "depth": "{path} must not be nested more than {max} levels deep",
    "locale": "This locale doesn't exist",
    "min_items": "{path} field must have at least {min} items",
    "max_items": "{path} field must have less than or equal to {max} items",
}


def _simple(value: Any, quote_strings: bool) -> str | None:
    """A string, number, boolean or null as yup prints it: JavaScript's ``String(value)``,
    strings quoted if asked; ``None`` for anything else."""
    if isinstance(value, str):
        return f'"{value}"' if quote_strings else value
    if value is None or isinstance(value, int | float):
        return js_string(value)
    return None


def _leaves_printed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _leaves_printed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_leaves_printed(item) for item in value]
    return _simple(value, True)


def print_value(value: Any, quote_strings: bool = True) -> str:
    """yup's ``printValue``: simple values as JavaScript prints them, objects as indented JSON."""
    simple = _simple(value, quote_strings)
    if simple is not None:
        return simple
    return json.dumps(_leaves_printed(value), indent=2, ensure_ascii=False)
