"""The users-permissions plugin's GraphQL operations, over the same services as its REST routes.

``me``, ``login``, ``register``, ``changePassword``, the e-mail flows (``forgotPassword``,
``resetPassword``, ``emailConfirmation``: the REST routes' services and answers), plus the
plugin's replacements of Shadow CRUD mutations for users (``…UserEntityResponse!``) and roles
(``{ok}`` payloads). Types and names are the plugin's. The auth flows are ``users.flows``, REST's
own, so sign-in, sign-up and the password flows count against the same rate limits as REST's;
like Strapi's resolvers (``auth: false``), they ask no permission but ``changePassword``.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLField,
    GraphQLID,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLString,
)

from contentapi.auth.permissions import PLUGIN
from contentapi.auth.ratelimit import client_address
from contentapi.errors import ForbiddenError, NotFoundError
from contentapi.graphql.context import GraphQLContext
from contentapi.graphql.crud import ContentTypeResolvers, entry_id, input_data
from contentapi.graphql.errors import PlainResolverError
from contentapi.graphql.selection import Selection
from contentapi.graphql.types import OutputTypes
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.schema.builtin import ROLE_UID, USER_UID
from contentapi.schema.registry import Registry
from contentapi.users.flows import AuthFlows, SignedIn
from contentapi.users.validation import validate_create_body

__all__ = ["UsersPermissionsFields"]

_ME_ROLE = GraphQLObjectType(
    "UsersPermissionsMeRole",
    {
        "id": GraphQLField(GraphQLNonNull(GraphQLID)),
        "name": GraphQLField(GraphQLNonNull(GraphQLString)),
        "description": GraphQLField(GraphQLString),
        "type": GraphQLField(GraphQLString),
    },
)
_ME = GraphQLObjectType(
    "UsersPermissionsMe",
    {
        "id": GraphQLField(GraphQLNonNull(GraphQLID)),
        "username": GraphQLField(GraphQLNonNull(GraphQLString)),
        "email": GraphQLField(GraphQLString),
        "confirmed": GraphQLField(GraphQLBoolean),
        "blocked": GraphQLField(GraphQLBoolean),
        "role": GraphQLField(_ME_ROLE),
    },
)
_LOGIN_PAYLOAD = GraphQLObjectType(
    "UsersPermissionsLoginPayload",
    {"jwt": GraphQLField(GraphQLString), "user": GraphQLField(GraphQLNonNull(_ME))},
)
_PASSWORD_PAYLOAD = GraphQLObjectType(
    "UsersPermissionsPasswordPayload", {"ok": GraphQLField(GraphQLNonNull(GraphQLBoolean))}
)
_REGISTER_INPUT = GraphQLInputObjectType(
    "UsersPermissionsRegisterInput",
    {
        name: GraphQLInputField(GraphQLNonNull(GraphQLString))
        for name in ("username", "email", "password")
    },
)
_LOGIN_INPUT = GraphQLInputObjectType(
    "UsersPermissionsLoginInput",
    {
        "identifier": GraphQLInputField(GraphQLNonNull(GraphQLString)),
        "password": GraphQLInputField(GraphQLNonNull(GraphQLString)),
        "provider": GraphQLInputField(GraphQLNonNull(GraphQLString), default_value="local"),
    },
)


def _ok_payload(name: str) -> GraphQLObjectType:
    return GraphQLObjectType(name, {"ok": GraphQLField(GraphQLNonNull(GraphQLBoolean))})


def _me_value(user: dict[str, Any]) -> dict[str, Any]:
    """A user as ``UsersPermissionsMe`` (the role, when read, as ``UsersPermissionsMeRole``)."""
    role = user.get("role")
    return {
        "id": str(user["id"]),
        "username": user.get("username"),
        "email": user.get("email"),
        "confirmed": user.get("confirmed"),
        "blocked": user.get("blocked"),
        "role": None if role is None else {**role, "id": str(role["id"])},
    }


def _client(info: GraphQLResolveInfo) -> str:
    return client_address(info.context.request)


def _strings(*names: str) -> dict[str, GraphQLArgument]:
    """Required ``String!`` arguments by name: all the e-mail flows' mutations take."""
    return {name: GraphQLArgument(GraphQLNonNull(GraphQLString)) for name in names}


def _wanted(id: str, what: str) -> int:
    """The entry a mutation's ``id`` names, or Strapi's 404 for ``what`` (``User``, ``Role``)
    when it names none."""
    wanted = entry_id(id)
    if wanted is None:
        raise NotFoundError(f"{what} not found")
    return wanted


class UsersPermissionsFields:
    """Builds the plugin's root fields; resolvers use the services found in the context."""

    def __init__(self, registry: Registry, types: OutputTypes):
        self.registry = registry
        self.types = types
        self.users_crud = ContentTypeResolvers(registry.content_types[USER_UID])

    # ------------------------------------------------------------ queries

    def queries(self) -> dict[str, GraphQLField]:
        return {"me": GraphQLField(_ME, resolve=self.me)}

    async def me(self, _parent: Any, info: GraphQLResolveInfo) -> Any:
        ctx: GraphQLContext = info.context
        if ctx.actor.kind == "public":
            raise ForbiddenError("Forbidden access")
        if ctx.actor.user_id is None:
            raise PlainResolverError("Authentication requested")  # Strapi: a plain Error
        query = ReadQuery(populate={"role": RelationPopulate()})
        user = await ctx.services.users.user(ctx.actor.user_id, query)
        return None if user is None else _me_value(user)

    # ------------------------------------------------------------ mutations

    def mutations(self) -> dict[str, GraphQLField]:
        role = self.registry.content_types[ROLE_UID]
        user = self.registry.content_types[USER_UID]
        user_response = GraphQLNonNull(self.types.entity_response(user))
        role_input = GraphQLNonNull(self.types.inputs.input(role))
        user_input = GraphQLNonNull(self.types.inputs.input(user))
        required_id = GraphQLArgument(GraphQLNonNull(GraphQLID))
        return {
            "createUsersPermissionsRole": GraphQLField(
                _ok_payload("UsersPermissionsCreateRolePayload"),
                args={"data": GraphQLArgument(role_input)},
                resolve=self.create_role,
            ),
            "updateUsersPermissionsRole": GraphQLField(
                _ok_payload("UsersPermissionsUpdateRolePayload"),
                args={"id": required_id, "data": GraphQLArgument(role_input)},
                resolve=self.update_role,
            ),
            "deleteUsersPermissionsRole": GraphQLField(
                _ok_payload("UsersPermissionsDeleteRolePayload"),
                args={"id": required_id},
                resolve=self.delete_role,
            ),
            "createUsersPermissionsUser": GraphQLField(
                user_response, args={"data": GraphQLArgument(user_input)}, resolve=self.create_user
            ),
            "updateUsersPermissionsUser": GraphQLField(
                user_response,
                args={"id": required_id, "data": GraphQLArgument(user_input)},
                resolve=self.update_user,
            ),
            "deleteUsersPermissionsUser": GraphQLField(
                user_response, args={"id": required_id}, resolve=self.delete_user
            ),
            "login": GraphQLField(
                GraphQLNonNull(_LOGIN_PAYLOAD),
                args={"input": GraphQLArgument(GraphQLNonNull(_LOGIN_INPUT))},
                resolve=self.login,
            ),
            "register": GraphQLField(
                GraphQLNonNull(_LOGIN_PAYLOAD),
                args={"input": GraphQLArgument(GraphQLNonNull(_REGISTER_INPUT))},
                resolve=self.register,
            ),
            "forgotPassword": GraphQLField(
                _PASSWORD_PAYLOAD,
                args=_strings("email"),
                resolve=self.forgot_password,
            ),
            "resetPassword": GraphQLField(
                _LOGIN_PAYLOAD,
                args=_strings("password", "passwordConfirmation", "code"),
                resolve=self.reset_password,
            ),
            "changePassword": GraphQLField(
                _LOGIN_PAYLOAD,
                args=_strings("currentPassword", "password", "passwordConfirmation"),
                resolve=self.change_password,
            ),
            "emailConfirmation": GraphQLField(
                _LOGIN_PAYLOAD,
                args=_strings("confirmation"),
                resolve=self.email_confirmation,
            ),
        }

    def _flows(self, ctx: GraphQLContext) -> AuthFlows:
        return ctx.services.flows

    async def login(self, _parent: Any, info: GraphQLResolveInfo, input: dict) -> Any:
        ctx: GraphQLContext = info.context
        provider = input.get("provider", "local")
        signed_in = await self._flows(ctx).login(input, _client(info), provider=provider)
        return await self._payload(ctx, signed_in)

    async def register(self, _parent: Any, info: GraphQLResolveInfo, input: dict) -> Any:
        ctx: GraphQLContext = info.context
        return await self._payload(ctx, await self._flows(ctx).register(input, _client(info)))

    async def change_password(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{PLUGIN}.auth.changePassword")
        if ctx.actor.user_id is None:
            raise ForbiddenError("Forbidden access")
        flows = self._flows(ctx)
        return await self._payload(
            ctx, await flows.change_password(ctx.actor.user_id, args, _client(info))
        )

    async def _payload(self, ctx: GraphQLContext, signed_in: SignedIn) -> dict[str, Any]:
        """``UsersPermissionsLoginPayload``: the user read again, with its role."""
        query = ReadQuery(populate={"role": RelationPopulate()})
        user = await ctx.services.users.user(signed_in.user_id, query)
        assert user is not None
        return {"jwt": signed_in.jwt, "user": _me_value(user)}

    async def forgot_password(self, _parent: Any, info: GraphQLResolveInfo, email: str) -> Any:
        ctx: GraphQLContext = info.context
        await self._flows(ctx).forgot_password({"email": email}, _client(info))
        return {"ok": True}

    async def reset_password(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        return await self._payload(ctx, await self._flows(ctx).reset_password(args, _client(info)))

    async def email_confirmation(
        self, _parent: Any, info: GraphQLResolveInfo, confirmation: str
    ) -> Any:
        ctx: GraphQLContext = info.context
        flows = self._flows(ctx)
        user_id = await flows.confirm_email({"confirmation": confirmation})
        return await self._payload(ctx, flows.sign_in(user_id))

    # ------------------------------------------------------------ user and role CRUD

    def _user_mutation(
        self, info: GraphQLResolveInfo, action: str
    ) -> tuple[GraphQLContext, Selection, ReadQuery]:
        """What a user mutation starts with, in Strapi's order: the permission checked, then
        the compiled selection of its ``response`` and the query reading the user back."""
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{PLUGIN}.user.{action}")
        selection = self.users_crud._selection(info, "response")
        query = ReadQuery(fields=tuple(selection.fields), populate=selection.populate)
        return ctx, selection, query

    async def create_user(self, _parent: Any, info: GraphQLResolveInfo, data: dict) -> Any:
        ctx, selection, query = self._user_mutation(info, "create")
        body = input_data(data)
        validate_create_body(body)  # Strapi's GraphQL runs the REST controller's checks
        entry = await ctx.services.users.create(body, query)
        return await self.users_crud._respond(info, selection, entry)

    async def update_user(self, _parent: Any, info: GraphQLResolveInfo, id: str, data: dict) -> Any:
        ctx, selection, query = self._user_mutation(info, "update")
        wanted = _wanted(id, "User")
        entry = await ctx.services.users.update(wanted, input_data(data), query)
        return await self.users_crud._respond(info, selection, entry)

    async def delete_user(self, _parent: Any, info: GraphQLResolveInfo, id: str) -> Any:
        ctx, selection, query = self._user_mutation(info, "destroy")
        entry = await ctx.services.entries.delete(USER_UID, _wanted(id, "User"), query)
        return await self.users_crud._respond(info, selection, entry)

    @staticmethod
    def _role_body(data: dict[str, Any]) -> dict[str, Any]:
        """The GraphQL role input as the REST routes' body, read as Strapi 4.25 reads it.

        Strapi's resolvers hand ``data`` to the role service, which reads ``permissions`` as
        the nested tree: an ``[ID]`` list (or null) has no enabled action in it, so a create
        grants nothing and an update leaves the role without permissions (an empty tree here).
        ``users`` is never read (left out on create, not picked on update).
        """
        body = {k: v for k, v in data.items() if k in ("name", "description", "type")}
        if "permissions" in data:
            body["permissions"] = {}
        return body

    async def create_role(self, _parent: Any, info: GraphQLResolveInfo, data: dict) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{ROLE_UID}.createRole")
        await ctx.services.roles.create(self._role_body(data))
        return {"ok": True}

    async def update_role(self, _parent: Any, info: GraphQLResolveInfo, id: str, data: dict) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{ROLE_UID}.updateRole")
        await ctx.services.roles.update(_wanted(id, "Role"), self._role_body(data))
        return {"ok": True}

    async def delete_role(self, _parent: Any, info: GraphQLResolveInfo, id: str) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{ROLE_UID}.deleteRole")
        await ctx.services.roles.delete(_wanted(id, "Role"))
        return {"ok": True}
