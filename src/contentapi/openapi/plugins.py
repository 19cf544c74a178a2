"""The plugins' routes as OpenAPI path items: users-permissions (``users/routes.py``), upload
(``upload/routes.py``), i18n (``i18n/routes.py``), and the health probes (``health.py``).

Their bodies and answers are Strapi's plain shapes: no ``data`` envelope, users and files as
``{id, ...attributes}``, lists as plain arrays.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema, input_schema
from contentapi.openapi.models import ModelSchemas, ref_to
from contentapi.openapi.responses import json_body, json_ok, operation, path_id
from contentapi.schema.builtin import BUILTIN_DOCUMENTS, FILE_UID, USER_UID

__all__ = ["PLUGIN_SCHEMAS", "plugin_paths", "user_request_schemas"]

_UP = "plugin::users-permissions"
_USERS_TAG = "Users-Permissions"
_UPLOAD_TAG = "Upload"

_OK = {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}}
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


def _query(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "query",
        "style": "deepObject" if name == "filters" else "form",
        "explode": True,
        "description": description,
        "schema": {"type": "object"} if name == "filters" else {"type": "string"},
    }


_LIST_QUERY = [
    _query("filters", "as on content types: `filters[username][$eq]=ann`"),
    _query("sort", "as on content types: `sort=username:asc`"),
    # Strapi's entity service paging, not the content API's `pagination[...]`
    # (query/entity_paging.py)
    _query("start", "rows to skip (top-level, as Strapi reads it here: `start=20`)"),
    _query("limit", "rows to answer, at most the maximum; -1 or 0: as many as allowed"),
]


def _users(models: ModelSchemas) -> dict[str, Schema]:
    user = ref_to(models.name(f"{USER_UID}#plain"))
    auth = json_ok(ref_to("AuthResponse"))
    return {
        "/api/auth/local": {
            "post": operation(
                "Log in",
                "auth.callback",
                _USERS_TAG,
                ok=auth,
                errors=(400, 413, 429),
                body=json_body(ref_to("LoginRequest")),
                permission=f"{_UP}.auth.callback",
                description="A wrong identifier or password answers 400.",
            )
        },
        "/api/auth/local/register": {
            "post": operation(
                "Register",
                "auth.register",
                _USERS_TAG,
                ok=json_ok(ref_to("RegisterResponse")),
                errors=(400, 413, 429),
                body=json_body(ref_to("RegisterRequest")),
                permission=f"{_UP}.auth.register",
                description="The new user gets the `authenticated` role.",
            )
        },
        "/api/auth/forgot-password": {
            "post": operation(
                "Ask for a password-reset mail",
                "auth.forgotPassword",
                _USERS_TAG,
                ok=json_ok(_OK),
                errors=(400, 413, 429),
                body=json_body(ref_to("EmailRequest")),
                permission=f"{_UP}.auth.forgotPassword",
                description="The same answer whether an account has the address or not; the mail"
                " (the plugin's `reset_password` template) carries a one-time code.",
            )
        },
        "/api/auth/reset-password": {
            "post": operation(
                "Set a new password with the code of a reset mail",
                "auth.resetPassword",
                _USERS_TAG,
                ok=auth,
                errors=(400, 413, 429),
                body=json_body(ref_to("ResetPasswordRequest")),
                permission=f"{_UP}.auth.resetPassword",
                description="A used or unknown code answers 400 `Incorrect code provided`.",
            )
        },
        "/api/auth/email-confirmation": {
            "get": operation(
                "Confirm an address with the code of a confirmation mail",
                "auth.emailConfirmation",
                _USERS_TAG,
                ok={
                    "description": "to the plugin's `email_confirmation_redirection` setting",
                    "headers": {"Location": {"schema": {"type": "string"}}},
                },
                status=302,
                errors=(400,),
                parameters=[
                    {
                        "name": "confirmation",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "the code of the confirmation mail",
                    }
                ],
                permission=f"{_UP}.auth.emailConfirmation",
            )
        },
        "/api/auth/send-email-confirmation": {
            "post": operation(
                "Send the address-confirmation mail again",
                "auth.sendEmailConfirmation",
                _USERS_TAG,
                ok=json_ok(ref_to("ConfirmationSent")),
                errors=(400, 413, 429),
                body=json_body(ref_to("EmailRequest")),
                permission=f"{_UP}.auth.sendEmailConfirmation",
                description="The same answer whether an account has the address or not.",
            )
        },
        "/api/auth/change-password": {
            "post": operation(
                "Change one's password",
                "auth.changePassword",
                _USERS_TAG,
                ok=auth,
                errors=(400, 413, 429),
                body=json_body(ref_to("ChangePasswordRequest")),
                permission=f"{_UP}.auth.changePassword",
            )
        },
        "/api/users/me": {
            "get": operation(
                "The signed-in user",
                "user.me",
                _USERS_TAG,
                ok=json_ok(user),
                errors=(400,),
                permission=f"{_UP}.user.me",
                description="401 without a user's JWT.",
            )
        },
        "/api/users/count": {
            "get": operation(
                "Count users",
                "user.count",
                _USERS_TAG,
                ok=json_ok({"type": "integer", "minimum": 0}),
                errors=(400,),
                parameters=[_LIST_QUERY[0]],
                permission=f"{_UP}.user.count",
            )
        },
        "/api/users": {
            "get": operation(
                "List users",
                "user.find",
                _USERS_TAG,
                ok=json_ok({"type": "array", "items": user}),
                errors=(400,),
                parameters=_LIST_QUERY,
                permission=f"{_UP}.user.find",
                description="A plain array (no envelope).",
            ),
            "post": operation(
                "Create a user",
                "user.create",
                _USERS_TAG,
                ok=json_ok(user, "Created"),
                status=201,
                errors=(400, 413),
                body=json_body(
                    {
                        "allOf": [
                            ref_to("UserRequest"),
                            {"required": ["username", "email", "password", "role"]},
                        ]
                    }
                ),
                permission=f"{_UP}.user.create",
            ),
        },
        "/api/users/{id}": {
            "parameters": [path_id(description="the user's id")],
            "get": operation(
                "Get a user",
                "user.findOne",
                _USERS_TAG,
                ok=json_ok(user),
                errors=(400, 404),
                permission=f"{_UP}.user.findOne",
            ),
            "put": operation(
                "Update a user",
                "user.update",
                _USERS_TAG,
                ok=json_ok(user),
                errors=(400, 404, 413),
                body=json_body(ref_to("UserRequest")),
                permission=f"{_UP}.user.update",
            ),
            "delete": operation(
                "Delete a user",
                "user.destroy",
                _USERS_TAG,
                ok=json_ok(user),
                errors=(400, 404),
                permission=f"{_UP}.user.destroy",
            ),
        },
        "/api/users-permissions/roles": {
            "get": operation(
                "List roles",
                "role.find",
                _USERS_TAG,
                ok=json_ok(
                    {
                        "type": "object",
                        "required": ["roles"],
                        "properties": {"roles": {"type": "array", "items": ref_to("Role")}},
                    }
                ),
                errors=(),
                permission=f"{_UP}.role.find",
            ),
            "post": operation(
                "Create a role",
                "role.createRole",
                _USERS_TAG,
                ok=json_ok(_OK),
                errors=(400, 413),
                body=json_body(ref_to("RoleRequest")),
                permission=f"{_UP}.role.createRole",
            ),
        },
        "/api/users-permissions/roles/{id}": {
            "parameters": [path_id(description="the role's id")],
            "get": operation(
                "Get a role with its permissions tree",
                "role.findOne",
                _USERS_TAG,
                ok=json_ok(
                    {
                        "type": "object",
                        "required": ["role"],
                        "properties": {"role": ref_to("Role")},
                    }
                ),
                errors=(404,),
                permission=f"{_UP}.role.findOne",
            ),
            "put": operation(
                "Update a role (its enabled actions become the tree's)",
                "role.updateRole",
                _USERS_TAG,
                ok=json_ok(_OK),
                errors=(400, 404, 413),
                body=json_body(ref_to("RoleRequest")),
                permission=f"{_UP}.role.updateRole",
            ),
            "delete": operation(
                "Delete a role (its users move to `authenticated`)",
                "role.deleteRole",
                _USERS_TAG,
                ok=json_ok(_OK),
                errors=(400, 404),
                permission=f"{_UP}.role.deleteRole",
            ),
        },
        "/api/users-permissions/permissions": {
            "get": operation(
                "Every action a role may be given",
                "permissions.getPermissions",
                _USERS_TAG,
                ok=json_ok(
                    {
                        "type": "object",
                        "required": ["permissions"],
                        "properties": {"permissions": ref_to("PermissionsTree")},
                    }
                ),
                errors=(),
                permission=f"{_UP}.permissions.getPermissions",
            )
        },
    }


def _upload(models: ModelSchemas) -> dict[str, Schema]:
    file = ref_to(models.name(f"{FILE_UID}#plain"))
    upload = "plugin::upload.content-api"
    return {
        "/api/upload": {
            "post": operation(
                "Upload files",
                "upload.upload",
                _UPLOAD_TAG,
                ok=json_ok({"type": "array", "items": file}),
                errors=(400, 404, 413),
                body={
                    "required": True,
                    "content": {"multipart/form-data": {"schema": ref_to("UploadRequest")}},
                },
                permission=f"{upload}.upload",
                description=(
                    "Images get `thumbnail`, `small`, `medium` and `large` formats where the "
                    "original is larger; `ref`, `refId` and `field` attach the files to an entry."
                ),
            )
        },
        "/api/upload/files": {
            "get": operation(
                "List files",
                "upload.find",
                _UPLOAD_TAG,
                ok=json_ok({"type": "array", "items": file}),
                errors=(400,),
                parameters=_LIST_QUERY,
                permission=f"{upload}.find",
            )
        },
        "/api/upload/files/{id}": {
            "parameters": [path_id(description="the file's id")],
            "get": operation(
                "Get a file",
                "upload.findOne",
                _UPLOAD_TAG,
                ok=json_ok(file),
                errors=(404,),
                permission=f"{upload}.findOne",
            ),
            "delete": operation(
                "Delete a file (its bytes and attachments too)",
                "upload.destroy",
                _UPLOAD_TAG,
                ok=json_ok(file),
                errors=(404,),
                permission=f"{upload}.destroy",
            ),
        },
    }


_I18N: dict[str, Schema] = {
    "/api/i18n/locales": {
        "get": operation(
            "List locales",
            "i18n.listLocales",
            "Internationalization",
            ok=json_ok({"type": "array", "items": ref_to("Locale")}),
            errors=(),
            permission="plugin::i18n.locales.listLocales",
        )
    }
}

_HEALTH: dict[str, Schema] = {
    "/_health": {
        "get": {
            "summary": "Liveness: the process serves",
            "operationId": "health",
            "tags": ["Health"],
            "security": [],
            "responses": {"204": {"description": "alive (no body)"}},
        }
    },
    "/_ready": {
        "get": {
            "summary": "Readiness: the database answers and its migrations are current",
            "operationId": "ready",
            "tags": ["Health"],
            "security": [],
            "responses": {
                "200": json_ok(
                    {
                        "type": "object",
                        "required": ["status"],
                        "properties": {"status": {"const": "ready"}},
                    }
                ),
                "503": {"$ref": "#/components/responses/ServiceUnavailable"},
            },
        }
    },
}


_NULLABLE_PATH = {"type": ["string", "null"]}

#: ``GET /`` (``index.py``): where the API, GraphQL and this documentation are
_INDEX: dict[str, Schema] = {
    "/": {
        "get": {
            "summary": "The server's index: where its API, GraphQL endpoint and documentation are",
            "operationId": "index",
            "tags": ["Health"],
            "security": [],
            "responses": {
                "200": json_ok(
                    {
                        "type": "object",
                        "required": ["name", "version", "api", "graphql", "documentation"],
                        "properties": {
                            "name": {"const": "contentapi"},
                            "version": {"type": "string"},
                            "api": {"type": "string"},
                            "graphql": _NULLABLE_PATH,
                            "documentation": _NULLABLE_PATH,
                            "uploads": _NULLABLE_PATH,
                        },
                    }
                )
            },
        }
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


def plugin_paths(models: ModelSchemas) -> dict[str, Schema]:
    return {**_users(models), **_upload(models), **_I18N, **_HEALTH, **_INDEX}
