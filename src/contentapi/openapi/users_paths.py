"""The users-permissions plugin's routes (``users/routes.py``) as OpenAPI path items: log in,
register, the e-mail flows, change-password, the users and the roles.

Their bodies and answers are Strapi's plain shapes (``plugin_schemas.py``): no ``data``
envelope, users as ``{id, ...attributes}``, lists as plain arrays. The longest of the plugins'
route tables, so apart from the others (``plugins.py``).
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.parameters import PLUGIN_LIST_QUERY
from contentapi.openapi.responses import json_body, json_ok, operation, path_id
from contentapi.openapi.shared_schemas import ref_to
from contentapi.schema.builtin import USER_UID

__all__ = ["users_paths"]

_UP = "plugin::users-permissions"
_USERS_TAG = "Users-Permissions"

_OK = {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}}


def users_paths(models: ModelSchemas) -> dict[str, Schema]:
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
                parameters=[PLUGIN_LIST_QUERY[0]],
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
                parameters=PLUGIN_LIST_QUERY,
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
