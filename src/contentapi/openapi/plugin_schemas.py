"""The plugins' own bodies and answers as ``components.schemas``: users-permissions (log in,
register, the e-mail flows, users, roles and their permissions tree), i18n's locales and the
upload form; ``user_request_schemas`` adds a user extension's attributes to the user bodies.

Apart from the plugins' path items (``users_paths.py``, ``plugins.py``), which refer to these
by name: the shapes are data, the paths are routes.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema, input_schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.shared_schemas import ref_to
from contentapi.schema.builtin import BUILTIN_DOCUMENTS, USER_UID

__all__ = ["PLUGIN_SCHEMAS", "user_request_schemas"]

_STRING = {"type": "string", "minLength": 1}

#: Shapes of the plugins' own bodies and answers (``components.schemas``).
PLUGIN_SCHEMAS: dict[str, Schema] = {
    "AuthResponse": {
        "type": "object",
        "required": ["jwt", "user"],
        "properties": {
            "jwt": {"type": "string", "description": "send as `Authorization: Bearer <jwt>`"},
            "user": ref_to("UsersPermissionsUser"),
        },
    },
    "LoginRequest": {
        "type": "object",
        "required": ["identifier", "password"],
        "properties": {
            "identifier": {**_STRING, "description": "e-mail or username", "example": "ann"},
            "password": {**_STRING, "example": "a good secret"},
        },
    },
    "RegisterRequest": {
        "type": "object",
        "required": ["username", "email", "password"],
        "properties": {
            "username": {"type": "string", "minLength": 3, "example": "ann"},
            "email": {"type": "string", "format": "email", "example": "ann@example.com"},
            "password": {"type": "string", "minLength": 6, "example": "a good secret"},
        },
    },
    "RegisterResponse": {
        "description": "`{jwt, user}`, or `{user}` alone while the plugin's `email_confirmation`"
        " setting asks new users to confirm their address first",
        "oneOf": [
            ref_to("AuthResponse"),
            {
                "type": "object",
                "required": ["user"],
                "properties": {"user": ref_to("UsersPermissionsUser")},
                "additionalProperties": False,
            },
        ],
    },
    "EmailRequest": {
        "type": "object",
        "required": ["email"],
        "properties": {
            "email": {"type": "string", "format": "email", "example": "ann@example.com"}
        },
    },
    "ResetPasswordRequest": {
        "type": "object",
        "required": ["code", "password", "passwordConfirmation"],
        "properties": {
            "code": {**_STRING, "description": "the code of the reset link the user received"},
            "password": {"type": "string", "minLength": 6},
            "passwordConfirmation": {"type": "string", "minLength": 6},
        },
    },
    "ConfirmationSent": {
        "type": "object",
        "required": ["email", "sent"],
        "properties": {"email": {"type": "string"}, "sent": {"const": True}},
    },
    "ChangePasswordRequest": {
        "type": "object",
        "required": ["currentPassword", "password", "passwordConfirmation"],
        "properties": {
            "currentPassword": _STRING,
            "password": {"type": "string", "minLength": 6},
            "passwordConfirmation": {"type": "string", "minLength": 6},
        },
    },
    "UserRequest": {
        "type": "object",
        "description": "an account (created by an administrator: `role` is required)",
        "properties": {
            "username": {"type": "string", "minLength": 3},
            "email": {"type": "string", "format": "email"},
            "password": {"type": "string", "minLength": 6},
            "role": ref_to("EntryId"),
            "confirmed": {"type": "boolean"},
            "blocked": {"type": "boolean"},
        },
    },
    "Role": {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "description": {"type": ["string", "null"]},
            "type": {"type": ["string", "null"]},
            "createdAt": {"type": ["string", "null"], "format": "date-time"},
            "updatedAt": {"type": ["string", "null"], "format": "date-time"},
            "nb_users": {"type": "integer"},
            "permissions": ref_to("PermissionsTree"),
        },
    },
    "RoleRequest": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 3},
            "description": {"type": ["string", "null"]},
            "type": {"type": "string"},
            "permissions": ref_to("PermissionsTree"),
        },
    },
    "PermissionsTree": {
        "type": "object",
        "description": (
            "`{<api or plugin>: {controllers: {<controller>: {<action>: {enabled, policy}}}}}`"
        ),
        "additionalProperties": {
            "type": "object",
            "properties": {
                "controllers": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "properties": {
                                "enabled": {"type": "boolean"},
                                "policy": {"type": "string"},
                            },
                        },
                    },
                }
            },
        },
        "example": {"api::article": {"controllers": {"article": {"find": {"enabled": True}}}}},
    },
    "Locale": {
        "type": "object",
        "required": ["id", "name", "code", "isDefault"],
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string", "example": "English (en)"},
            "code": {"type": "string", "example": "en"},
            "createdAt": {"type": ["string", "null"], "format": "date-time"},
            "updatedAt": {"type": ["string", "null"], "format": "date-time"},
            "isDefault": {"type": "boolean"},
        },
    },
    "UploadRequest": {
        "type": "object",
        "required": ["files"],
        "properties": {
            "files": {
                "type": "array",
                "items": {"type": "string", "contentMediaType": "application/octet-stream"},
            },
            "fileInfo": {
                "type": "string",
                "description": "JSON `{name, alternativeText, caption}` per file",
            },
            "ref": {"type": "string", "description": "the entry's content type uid"},
            "refId": {"type": "string", "description": "the entry's id"},
            "field": {"type": "string", "description": "the media attribute"},
        },
    },
}


def user_request_schemas(models: ModelSchemas, register_keys: frozenset[str]) -> dict[str, Schema]:
    """``RegisterRequest`` and ``UserRequest`` with the attributes a user extension adds
    (``schema/extensions.py``): register with those ``register_keys`` allows
    (``users/register_fields.py``; the extension's required ones required), the administrator's
    bodies with all of them."""
    user = models.registry.content_types[USER_UID]
    own = BUILTIN_DOCUMENTS[USER_UID]["attributes"]
    added = {
        name: schema
        for name, attribute in user.attributes.items()
        if name not in own and (schema := input_schema(attribute, models.ref)) is not None
    }
    register = PLUGIN_SCHEMAS["RegisterRequest"]
    required = [name for name in added if name in register_keys and user.attributes[name].required]
    return {
        "RegisterRequest": {
            **register,
            "description": "Keys that are not allowed are dropped, not refused (Strapi 4.25).",
            "required": [*register["required"], *required],
            "properties": {
                **register["properties"],
                **{name: schema for name, schema in added.items() if name in register_keys},
            },
        },
        "UserRequest": {
            **PLUGIN_SCHEMAS["UserRequest"],
            "properties": {**PLUGIN_SCHEMAS["UserRequest"]["properties"], **added},
        },
    }
