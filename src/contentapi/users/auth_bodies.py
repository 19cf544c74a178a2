"""The bodies of the e-mail flows checked as users-permissions 4.25's yup schemas do.

``forgotPasswordSchema`` and ``resetPasswordSchema`` are ``noUnknown()`` (an unknown key is an
error, reported after the fields'); ``sendEmailConfirmationSchema`` and the confirmation query
accept other keys. Validation is strict (no casting) with ``abortEarly: false``, as
``validateYupSchema`` runs it: every problem, the message ``N errors occurred`` for several.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contentapi.errors import FieldError, ValidationError
from contentapi.users.validation import email_errors, string_errors

__all__ = [
    "confirmation_query",
    "forgot_password_body",
    "reset_password_body",
    "send_confirmation_body",
]


def _checked(
    body: Mapping[str, Any], strings: tuple[str, ...], emails: tuple[str, ...], *, closed: bool
) -> dict[str, str]:
    errors: list[FieldError] = []
    for name in (*emails, *strings):
        errors += email_errors(body, name) if name in emails else string_errors(body, name)
    if closed:
        unknown = [key for key in body if key not in (*emails, *strings)]
        if unknown:
            message = f"this field has unspecified keys: {', '.join(unknown)}"
            errors.append(FieldError((), message))
    if errors:
        raise ValidationError.from_errors(errors)
    return {name: str(body[name]) for name in (*emails, *strings)}


def forgot_password_body(body: Mapping[str, Any]) -> str:
    """The address of ``POST /api/auth/forgot-password``."""
    return _checked(body, (), ("email",), closed=True)["email"]


def reset_password_body(body: Mapping[str, Any]) -> tuple[str, str, str]:
    """``password``, ``passwordConfirmation``, ``code`` of ``POST /api/auth/reset-password``."""
    names = ("password", "passwordConfirmation", "code")
    values = _checked(body, names, (), closed=True)
    return values["password"], values["passwordConfirmation"], values["code"]


def send_confirmation_body(body: Mapping[str, Any]) -> str:
    return _checked(body, (), ("email",), closed=False)["email"]


def confirmation_query(query: Mapping[str, Any]) -> str:
    """``confirmation`` of ``GET /api/auth/email-confirmation`` (a list when repeated)."""
    return _checked(query, ("confirmation",), (), closed=False)["confirmation"]
