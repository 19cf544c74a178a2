"""Which keys of a sign-up body are written: users-permissions 4.25's ``register.allowedFields``.

Strapi 4.25's register controller *picks* the allowed keys from the body and silently drops
the rest (v5 turned the drop into a 400 ``Invalid parameters``; 4.25 does not — checked on the
reference: ``{"role": 1, "bogus": 3, "job": "chef"}`` registers, with the default role and the
job). The allowed keys are ``username``, ``password``, ``email`` and

- with ``register.allowedFields`` configured (``CONTENTAPI_REGISTER_ALLOWED_FIELDS``, a
  comma-separated list; empty for none): exactly those, private ones included (Strapi does not
  filter the list: the project chose it);
- unset (Strapi v4's default): every attribute of the user model that is not private and not
  one the plugin or the server sets (``confirmed``, ``blocked``, the tokens, ``provider``,
  ``role``, ``id``, timestamps…) — so a user extension's ``job`` or ``picture`` is accepted.

The flow then overrides ``provider``, ``role``, ``confirmed``, ``email`` and ``username``
whatever was allowed, as Strapi does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contentapi.schema.model import ContentType

__all__ = ["pick_register_fields", "register_keys"]

ALWAYS_ALLOWED = ("username", "password", "email")
#: never taken from a sign-up body under the default (the plugin's list, v4.25)
_NEVER_BY_DEFAULT = frozenset(
    {
        "confirmed",
        "blocked",
        "confirmationToken",
        "resetPasswordToken",
        "provider",
        "id",
        "role",
        "createdAt",
        "updatedAt",
        "createdBy",
        "updatedBy",
        "publishedAt",
        "strapi_reviewWorkflows_stage",
    }
)


def register_keys(user: ContentType, allowed_fields: str | None) -> frozenset[str]:
    """The keys a sign-up body may set, for the user model and the configured list."""
    if allowed_fields is not None:
        configured = (name.strip() for name in allowed_fields.split(","))
        return frozenset({*ALWAYS_ALLOWED, *(name for name in configured if name)})
    return frozenset(
        {
            *ALWAYS_ALLOWED,
            *(
                name
                for name, attribute in user.attributes.items()
                if not attribute.private and name not in _NEVER_BY_DEFAULT
            ),
        }
    )


def pick_register_fields(body: Mapping[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """The body's allowed keys (lodash ``pick``: the others are dropped, not refused)."""
    return {name: value for name, value in body.items() if name in keys}
