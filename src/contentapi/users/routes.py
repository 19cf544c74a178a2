"""The users-permissions routes, with Strapi v4's request and response shapes.

Bodies are plain JSON objects (no ``data`` envelope); users are answered as plain objects and
the users list as a plain array. Every route asks the one permission check for its plugin
action (``plugin::users-permissions.<controller>.<action>``). The ``/api/auth/*`` routes read the
body, call their flow (``users.flows``: the rate limit, then the service, as GraphQL's
mutations do) and shape its answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from contentapi.auth.actor import Actor, may
from contentapi.auth.permissions import PLUGIN
from contentapi.auth.ratelimit import client_address
from contentapi.errors import NotFoundError, UnauthorizedError
from contentapi.http.body import read_json_object
from contentapi.http.params import parse_entry_id, query_params
from contentapi.http.responses import OrjsonResponse
from contentapi.http.services import ContentServices
from contentapi.query.ast import ReadQuery
from contentapi.query.entity_paging import with_entity_paging
from contentapi.schema.builtin import USER_UID
from contentapi.schema.model import ContentType
from contentapi.users.flows import AuthFlows, SignedIn
from contentapi.users.roles import RolesService
from contentapi.users.service import UsersService
from contentapi.users.validation import validate_create_body

__all__ = ["UsersServices", "build_users_router"]


@dataclass(frozen=True)
class UsersServices:
    """What the users-permissions routes use, built once by the composition root (``app.py``)."""

    #: who is asking, and how users are read and rendered
    content: ContentServices
    users: UsersService
    #: the auth flows (``users/flows.py``), shared with GraphQL
    flows: AuthFlows
    roles: RolesService
    user_type: ContentType
    #: ``CONTENTAPI_REST_MAX_LIMIT``: the users list's size when no pagination is asked
    max_limit: int


def _user_query(
    services: UsersServices, request: Request, actor: Actor, *, listing: bool
) -> ReadQuery:
    parser = services.content.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))
    content_type = services.user_type
    params = query_params(request)
    if not listing:
        return parser.entry_query(content_type, params)
    # paged as Strapi's entity service pages (top-level start/limit), at most maxLimit rows
    query = parser.read_query(content_type, {k: v for k, v in params.items() if k != "pagination"})
    return with_entity_paging(query, params, services.max_limit)


def _written_user_query(services: UsersServices, actor: Actor) -> ReadQuery:
    """The answer of ``POST /api/users`` and ``PUT /api/users/:id``: Strapi's ``add`` and
    ``edit`` populate the role whatever the query string says (it is not read), and its output
    sanitizer leaves the role out for a caller who may not find roles."""
    parser = services.content.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))
    return parser.entry_query(services.user_type, {"populate": "role"})


def build_users_router(services: UsersServices) -> APIRouter:
    router = APIRouter(prefix="/api")
    users = services.users
    roles = services.roles
    flows = services.flows
    require = services.content.callers.require

    def _user(request: Request, entry: dict[str, Any]) -> dict[str, Any]:
        return services.content.serializer.plain(services.user_type, entry)

    async def auth_answer(request: Request, signed_in: SignedIn) -> Response:
        user = signed_in.user if signed_in.user is not None else await _read_user(signed_in)
        if signed_in.jwt is None:  # a sign-up that must confirm its address first
            return OrjsonResponse({"user": _user(request, user)})
        return OrjsonResponse({"jwt": signed_in.jwt, "user": _user(request, user)})

    async def _read_user(signed_in: SignedIn) -> dict[str, Any]:
        user = await users.user(signed_in.user_id)
        if user is None:  # deleted between the write and this read
            raise NotFoundError("User not found")
        return user

    async def sign_in(
        request: Request,
        action: str,
        flow: Callable[[Mapping[str, Any], str], Awaitable[SignedIn]],
    ) -> Response:
        """The flows that answer with a signed-in user (log in, register, reset a password):
        the permission checked before the body is read, then the flow run for the client."""
        await require(request, f"{PLUGIN}.auth.{action}")
        body = await read_json_object(request)
        return await auth_answer(request, await flow(body, client_address(request)))

    # ---------------------------------------------------------------- auth

    @router.post("/auth/local")
    async def login(request: Request) -> Response:
        return await sign_in(request, "callback", flows.login)

    @router.post("/auth/local/register")
    async def register(request: Request) -> Response:
        return await sign_in(request, "register", flows.register)

    @router.post("/auth/change-password")
    async def change_password(request: Request) -> Response:
        actor = await require(request, f"{PLUGIN}.auth.changePassword")
        if actor.user_id is None:
            raise UnauthorizedError("You must be authenticated to reset your password")
        body = await read_json_object(request)
        changed = await flows.change_password(actor.user_id, body, client_address(request))
        return await auth_answer(request, changed)

    @router.post("/auth/forgot-password")
    async def forgot_password(request: Request) -> Response:
        await require(request, f"{PLUGIN}.auth.forgotPassword")
        body = await read_json_object(request)
        await flows.forgot_password(body, client_address(request))
        return OrjsonResponse({"ok": True})

    @router.post("/auth/reset-password")
    async def reset_password(request: Request) -> Response:
        return await sign_in(request, "resetPassword", flows.reset_password)

    @router.get("/auth/email-confirmation")
    async def email_confirmation(request: Request) -> Response:
        await require(request, f"{PLUGIN}.auth.emailConfirmation")
        params = request.query_params
        values = params.getlist("confirmation")
        await flows.confirm_email(
            {"confirmation": values if len(values) > 1 else params.get("confirmation")}
        )
        return RedirectResponse(await flows.confirmation_redirect(), status_code=302)

    @router.post("/auth/send-email-confirmation")
    async def send_email_confirmation(request: Request) -> Response:
        await require(request, f"{PLUGIN}.auth.sendEmailConfirmation")
        body = await read_json_object(request)
        return OrjsonResponse(await flows.send_email_confirmation(body, client_address(request)))

    # ---------------------------------------------------------------- users

    @router.get("/users/me")
    async def me(request: Request) -> Response:
        actor = await require(request, f"{PLUGIN}.user.me")
        if actor.user_id is None:  # an API token: Strapi's `ctx.unauthorized()`
            raise UnauthorizedError("Unauthorized")
        user = await users.user(actor.user_id, _user_query(services, request, actor, listing=False))
        if user is None:
            raise UnauthorizedError()
        return OrjsonResponse(_user(request, user))

    @router.get("/users/count")
    async def count(request: Request) -> Response:
        actor = await require(request, f"{PLUGIN}.user.count")
        query = _user_query(services, request, actor, listing=True)
        return OrjsonResponse(await services.content.entries.count(USER_UID, query))

    @router.api_route("/users", methods=["GET", "POST"])
    async def users_collection(request: Request) -> Response:
        if request.method == "POST":
            actor = await require(request, f"{PLUGIN}.user.create")
            body = await read_json_object(request)
            validate_create_body(body)
            created = await users.create(body, _written_user_query(services, actor))
            return OrjsonResponse(_user(request, created), status_code=201)
        actor = await require(request, f"{PLUGIN}.user.find")
        page = await services.content.entries.find_many(
            USER_UID, _user_query(services, request, actor, listing=True)
        )
        return OrjsonResponse([_user(request, entry) for entry in page.entries])

    @router.api_route("/users/{user_id}", methods=["GET", "PUT", "DELETE"])
    async def user_item(request: Request, user_id: str) -> Response:
        action = {"PUT": "update", "DELETE": "destroy"}.get(request.method, "findOne")
        actor = await require(request, f"{PLUGIN}.user.{action}")
        if action == "update":
            query = _written_user_query(services, actor)
            entry = await users.update(
                parse_entry_id(user_id), await read_json_object(request), query
            )
        elif action == "destroy":  # Strapi's remove: the deleted row, the query not read
            entry = await services.content.entries.delete(
                USER_UID, parse_entry_id(user_id), ReadQuery()
            )
        else:
            # Strapi's findOne validates the query before it reads the id: a bad query string
            # is a 400 whatever the id (`/api/users/abc?fields[0]=password`)
            query = _user_query(services, request, actor, listing=False)
            found = await users.user(parse_entry_id(user_id), query)
            if found is None:
                raise NotFoundError()
            entry = found
        return OrjsonResponse(_user(request, entry))

    # ---------------------------------------------------------------- roles

    @router.api_route("/users-permissions/roles", methods=["GET", "POST"])
    async def roles_collection(request: Request) -> Response:
        if request.method == "POST":
            await require(request, f"{PLUGIN}.role.createRole")
            await roles.create(await read_json_object(request))
            return OrjsonResponse({"ok": True})
        await require(request, f"{PLUGIN}.role.find")
        return OrjsonResponse({"roles": await roles.list()})

    @router.api_route("/users-permissions/roles/{role_id}", methods=["GET", "PUT", "DELETE"])
    async def role_item(request: Request, role_id: str) -> Response:
        action = {"PUT": "updateRole", "DELETE": "deleteRole"}.get(request.method, "findOne")
        await require(request, f"{PLUGIN}.role.{action}")
        parsed = parse_entry_id(role_id)
        if action == "updateRole":
            await roles.update(parsed, await read_json_object(request))
            return OrjsonResponse({"ok": True})
        if action == "deleteRole":
            await roles.delete(parsed)
            return OrjsonResponse({"ok": True})
        return OrjsonResponse({"role": await roles.get(parsed)})

    @router.get("/users-permissions/permissions")
    async def permissions(request: Request) -> Response:
        await require(request, f"{PLUGIN}.permissions.getPermissions")
        return OrjsonResponse({"permissions": roles.all_permissions()})

    return router
