"""``resolvers_config``: authorization, middlewares and policies around one resolver.

The order is Strapi's (``wrapResolvers``): the auth check first, then the middlewares in the
order given, each calling ``next(parent, args, context, info)``, then the policies, then the
resolver itself. Only the fields named in ``resolvers_config`` (and custom root fields, which
need the auth check) are wrapped; every other field keeps its plain resolver.

- ``auth``: ``False`` bypasses authorization; ``{"scope": [...]}`` requires every listed
  permission (``api::article.article.find``); absent, a generated root operation keeps its own
  permission and a custom root field needs an authenticated caller (a signed-in user or a
  full-access API token), as Strapi's ``auth.verify`` without a scope does. Any refusal is
  ``Forbidden access`` (``FORBIDDEN``).
- ``policies``: registered names or callables ``(context, app)`` where ``context`` is a
  ``PolicyContext``; a falsy result refuses with ``Policy Failed`` (``PolicyError``,
  ``FORBIDDEN``). Python has no ``undefined``: a policy that returns nothing refuses.
- ``middlewares``: registered names or callables ``(next, parent, args, context, info)``; they
  may change the arguments they pass on and the result they return.

Resolvers, policies and middlewares may each be sync or async.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLResolveInfo

from contentapi.auth.actor import Actor, may
from contentapi.errors import ForbiddenError, PolicyError

__all__ = ["NO_AUTH_CONFIG", "PolicyContext", "ResolverConfig", "check_auth"]

Next = Callable[[Any, dict[str, Any], Any, GraphQLResolveInfo], Awaitable[Any]]

#: ``auth`` not given in the configuration (``None`` would read as "no scope")
NO_AUTH_CONFIG: Any = object()


async def settle(value: Any) -> Any:
    """A sync or async callable's result."""
    return await value if inspect.isawaitable(value) else value


@dataclass(frozen=True, slots=True)
class PolicyContext:
    """What a GraphQL policy receives, as Strapi's ``createGraphQLPolicyContext``: the field's
    ``parent``, ``args``, the request ``context``, ``info``, the HTTP request (``http``) and the
    caller (``state``, an ``Actor``)."""

    parent: Any
    args: dict[str, Any]
    context: Any
    info: GraphQLResolveInfo
    type: str = "graphql"

    @property
    def http(self) -> Any:
        return self.context.request

    @property
    def state(self) -> Actor:
        return self.context.actor


def check_auth(actor: Actor, auth: Any) -> None:
    """Strapi's ``strapi.auth.verify(auth, config)`` as a GraphQL resolver applies it."""
    if auth is False:
        return
    scopes = auth.get("scope") if isinstance(auth, Mapping) else None
    if isinstance(scopes, str):
        scopes = [scopes]
    if not scopes:
        if actor.kind == "user" or (
            actor.kind == "api-token" and actor.token_type == "full-access"
        ):
            return
        raise ForbiddenError("Forbidden access")
    if not all(may(actor, scope) for scope in scopes):
        raise ForbiddenError("Forbidden access")


@dataclass(slots=True)
class ResolverConfig:
    """The merged ``resolvers_config`` of one ``Type.field``, its names resolved."""

    key: str
    auth: Any = NO_AUTH_CONFIG
    policies: list[Callable[..., Any]] = field(default_factory=list)
    middlewares: list[Callable[..., Any]] = field(default_factory=list)
    #: check ``auth`` here (custom root fields; generated roots check it themselves)
    check_auth: bool = False
    app: Any = None

    def runs_anything(self) -> bool:
        return self.check_auth or bool(self.policies or self.middlewares)

    async def call(
        self,
        base: Callable[..., Any],
        parent: Any,
        info: GraphQLResolveInfo,
        args: dict[str, Any],
    ) -> Any:
        """``base(parent, info, **args)`` behind the auth check, middlewares and policies."""
        context = info.context
        if self.check_auth:
            check_auth(context.actor, None if self.auth is NO_AUTH_CONFIG else self.auth)

        async def resolve(parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
            for policy in self.policies:
                allowed = await settle(policy(PolicyContext(parent, args, context, info), self.app))
                if not allowed:
                    raise PolicyError()
            return await settle(base(parent, info, **args))

        chain: Next = resolve
        for middleware in reversed(self.middlewares):
            chain = _bind(middleware, chain)
        return await chain(parent, dict(args), context, info)


def _bind(middleware: Callable[..., Any], following: Next) -> Next:
    async def step(parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
        return await settle(middleware(following, parent, args, context, info))

    return step
