"""The body of ``POST /api/users`` checked as users-permissions 4.25's ``createUserBodySchema``.

yup with ``abortEarly: false``: every field's problems in schema order (email, username,
password, role), each with yup's message; a type error stops that field's other tests, an
empty string fails both ``min(1)`` and ``required``. The reference answered a body without
``role`` with ``role is a required field`` (Strapi 4.25 requires it; it no longer falls back
to the default role).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contentapi.entries.messages import MESSAGES, print_value
from contentapi.entries.scalar_input import valid_email
from contentapi.errors import FieldError, ValidationError

__all__ = ["email_errors", "string_errors", "validate_create_body"]

_REQUIRED = "{path} is a required field"


def _type_error(path: str, type_name: str, value: Any) -> str:
    return MESSAGES["type"].format(path=path, type=type_name, value=print_value(value))


def _string(body: Mapping[str, Any], name: str, *, email: bool) -> list[FieldError]:
    if name not in body:
        return [FieldError((name,), _REQUIRED.format(path=name))]
    value = body[name]
    if not isinstance(value, str):
        return [FieldError((name,), _type_error(name, "string", value))]
    errors: list[FieldError] = []
    if email:
        if value and not valid_email(value):
            errors.append(FieldError((name,), MESSAGES["email"].format(path=name)))
    elif not value:
        errors.append(FieldError((name,), MESSAGES["min_length"].format(path=name, min=1)))
    if not value:
        errors.append(FieldError((name,), _REQUIRED.format(path=name)))
    return errors


def string_errors(body: Mapping[str, Any], name: str) -> list[FieldError]:
    """``yup.string().required()``, strict: a type error, or ``is a required field``."""
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        return [FieldError((name,), _type_error(name, "string", value))]
    if not value:
        return [FieldError((name,), _REQUIRED.format(path=name))]
    if "\x00" in value:  # PostgreSQL text cannot hold U+0000
        return [FieldError((name,), MESSAGES["nul"].format(path=name))]
    return []


def email_errors(body: Mapping[str, Any], name: str) -> list[FieldError]:
    """``yup.string().email().required()``, strict."""
    if body.get(name) is None:
        return [FieldError((name,), _REQUIRED.format(path=name))]
    return _string(body, name, email=True)


def _role(body: Mapping[str, Any]) -> list[FieldError]:
    if "role" not in body:
        return [FieldError(("role",), _REQUIRED.format(path="role"))]
    role = body["role"]
    if role is None or isinstance(role, list):
        # typeof null and typeof [] are "object" in JavaScript: the object schema applies.
        return [FieldError(("role",), _type_error("role", "object", role))]
    if isinstance(role, Mapping):
        connect = role.get("connect")
        if connect is None:
            path = ("role", "connect")
            return [FieldError(path, _REQUIRED.format(path="role.connect"))]
        if isinstance(connect, list) and not connect:
            return [FieldError(("role", "connect"), "Users must have a role")]
        return []
    if isinstance(role, bool) or not isinstance(role, int | str):
        return [FieldError(("role",), _type_error("role", "strapiID", role))]
    return []


def validate_create_body(body: Mapping[str, Any]) -> None:
    """``ValidationError`` with every problem of the body, as Strapi reports them."""
    errors = [
        *_string(body, "email", email=True),
        *_string(body, "username", email=False),
        *_string(body, "password", email=False),
        *_role(body),
    ]
    if errors:
        raise ValidationError.from_errors(errors)
