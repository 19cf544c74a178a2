"""The users-permissions plugin's routes (``users/routes.py``) as OpenAPI path items: log in,
register, the e-mail flows, change-password, the users and the roles.

Their bodies and answers are Strapi's plain shapes (``plugin_schemas.py``): no ``data``
envelope, users as ``{id, ...attributes}``, lists as plain arrays. The longest of the plugins'
route tables, so apart from the others (``plugins.py``).
"""

from __future__ import annotations

from typing import Any

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.parameters import PLUGIN_LIST_QUERY
from contentapi.openapi.responses import item_path, json_body, json_ok, operation, plain_list
from contentapi.openapi.shared_schemas import one_property, ref_to
from contentapi.schema.builtin import USER_UID

__all__ = ["users_paths"]

_UP = "plugin::users-permissions"
_USERS_TAG = "Users-Permissions"

_OK = one_property("ok", {"const": True})


def _operation(summary: str, action: str, **parts: Any) -> Schema:
    """A users-permissions operation: its id is the plugin's action (``auth.callback``), its
    permission that action under the plugin's uid, its tag the plugin's."""
    return operation(summary, action, _USERS_TAG, permission=f"{_UP}.{action}", **parts)


def _auth_flow(
    summary: str, action: str, request: str, ok: Schema, description: str | None = None
) -> Schema:
    """An auth flow's path item: a ``POST`` of the ``request`` schema, which the flow's rate
    limit (``users/flows.py``) may refuse with 429."""
    body = json_body(ref_to(request))
    return {
        "post": _operation(
            summary, action, ok=ok, errors=(400, 413, 429), body=body, description=description
        )
    }


def _update(summary: str, action: str, request: str, ok: Schema) -> Schema:
    """A ``PUT`` of a user or a role by id: a JSON body of the ``request`` schema; an unknown
    id answers 404."""
    body = json_body(ref_to(request))
    return _operation(summary, action, ok=ok, errors=(400, 404, 413), body=body)


def users_paths(models: ModelSchemas) -> dict[str, Schema]:
    user = ref_to(models.name(f"{USER_UID}#plain"))
    auth = json_ok(ref_to("AuthResponse"))
    return {
        "/api/auth/local": _auth_flow(
            "Log in",
            "auth.callback",
            "LoginRequest",
            auth,
            "A wrong identifier or password answers 400.",
        ),
        "/api/auth/local/register": _auth_flow(
            "Register",
            "auth.register",
            "RegisterRequest",
            json_ok(ref_to("RegisterResponse")),
            "The new user gets the `authenticated` role.",
        ),
        "/api/auth/forgot-password": _auth_flow(
            "Ask for a password-reset mail",
            "auth.forgotPassword",
            "EmailRequest",
            json_ok(_OK),
            "The same answer whether an account has the address or not; the mail"
            " (the plugin's `reset_password` template) carries a one-time code.",
        ),
        "/api/auth/reset-password": _auth_flow(
            "Set a new password with the code of a reset mail",
            "auth.resetPassword",
            "ResetPasswordRequest",
            auth,
            "A used or unknown code answers 400 `Incorrect code provided`.",
        ),
        "/api/auth/email-confirmation": {
            "get": _operation(
                "Confirm an address with the code of a confirmation mail",
                "auth.emailConfirmation",
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
            )
        },
        "/api/auth/send-email-confirmation": _auth_flow(
            "Send the address-confirmation mail again",
            "auth.sendEmailConfirmation",
            "EmailRequest",
            json_ok(ref_to("ConfirmationSent")),
            "The same answer whether an account has the address or not.",
        ),
        "/api/auth/change-password": _auth_flow(
            "Change one's password", "auth.changePassword", "ChangePasswordRequest", auth
        ),
        "/api/users/me": {
            "get": _operation(
                "The signed-in user",
                "user.me",
                ok=json_ok(user),
                errors=(400,),
                description="401 without a user's JWT.",
            )
        },
        "/api/users/count": {
            "get": _operation(
                "Count users",
                "user.count",
                ok=json_ok({"type": "integer", "minimum": 0}),
                errors=(400,),
                parameters=[PLUGIN_LIST_QUERY[0]],
            )
        },
        "/api/users": {
            "get": _operation(
                "List users",
                "user.find",
                **plain_list(user),
                description="A plain array (no envelope).",
            ),
            "post": _operation(
                "Create a user",
                "user.create",
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
            ),
        },
        "/api/users/{id}": item_path(
            "user",
            get=_operation("Get a user", "user.findOne", ok=json_ok(user), errors=(400, 404)),
            put=_update("Update a user", "user.update", "UserRequest", json_ok(user)),
            delete=_operation("Delete a user", "user.destroy", ok=json_ok(user), errors=(400, 404)),
        ),
        "/api/users-permissions/roles": {
            "get": _operation(
                "List roles",
                "role.find",
                ok=json_ok(one_property("roles", {"type": "array", "items": ref_to("Role")})),
                errors=(),
            ),
            "post": _operation(
                "Create a role",
                "role.createRole",
                ok=json_ok(_OK),
                errors=(400, 413),
                body=json_body(ref_to("RoleRequest")),
            ),
        },
        "/api/users-permissions/roles/{id}": item_path(
            "role",
            get=_operation(
                "Get a role with its permissions tree",
                "role.findOne",
                ok=json_ok(one_property("role", ref_to("Role"))),
                errors=(404,),
            ),
            put=_update(
                "Update a role (its enabled actions become the tree's)",
                "role.updateRole",
                "RoleRequest",
                json_ok(_OK),
            ),
            delete=_operation(
                "Delete a role (its users move to `authenticated`)",
                "role.deleteRole",
                ok=json_ok(_OK),
                errors=(400, 404),
            ),
        ),
        "/api/users-permissions/permissions": {
            "get": _operation(
                "Every action a role may be given",
                "permissions.getPermissions",
                ok=json_ok(one_property("permissions", ref_to("PermissionsTree"))),
                errors=(),
            )
        },
    }
