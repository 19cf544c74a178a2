"""REST customization from Python extensions: what a Strapi v4 project writes in its routers,
controllers, policies and middlewares (``docs/customization.md`` maps each to its form here).

``register(app)`` reaches it as ``app.rest``:

- ``core_router(uid, only=…, exclude=…, config={action: {...}})`` — Strapi's
  ``createCoreRouter(uid, {only, except, config})``: the core actions kept, and per action
  ``auth`` (``False``: public, no permission checked; ``{"scope": [...]}``: those permissions
  instead of the action's), ``policies`` and ``middlewares``;
- ``route(method, path, handler, uid=…, name=…, config=…)`` — a custom route under ``/api``
  (Strapi's ``routes/01-custom.js`` with a controller action): its action ``<uid>.<name>`` is
  listed in the roles' permission tree and checked like a core one;
- ``controller(uid, action, fn)`` — replace or wrap a core action: ``fn(context, default)``
  where ``await default()`` answers as the core action would (Strapi's ``super.find(ctx)``);
- ``use(middleware)`` — a global middleware ``(request, call_next)``, in the order used
  (Strapi's ``config/middlewares.js``).

Policies and middlewares are the named registries GraphQL's ``resolvers_config`` uses
(``app.policies``, ``app.middlewares``) or inline callables. The order around an action is
Strapi's (``compose-endpoint.js``): authentication and the permission check, the policies, the
route's middlewares, then the action. A policy ``(context, app)`` passes by returning a truthy
value; a falsy one — ``None`` included, as in GraphQL's policies, so that one policy means the
same in both protocols and one that forgets to answer refuses — answers 403 ``PolicyError``
"Policy Failed" (Strapi's REST lets ``undefined`` through; Python has no such value). A
middleware ``(context, call_next)`` returns the response, ``call_next()``'s
or its own. With nothing customized the core routes run exactly as before: a type's actions
look up their rules once, and find none.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from starlette.responses import Response

from contentapi.auth.actor import Actor, may
from contentapi.errors import ForbiddenError, PolicyError, UnauthorizedError, ValidationError
from contentapi.http.body import read_json_object
from contentapi.http.params import query_params
from contentapi.http.responses import OrjsonResponse
from contentapi.http.services import ContentServices
from contentapi.query.ast import ReadQuery
from contentapi.query.parse import QueryParser
from contentapi.rest.core_routes import core_routes
from contentapi.schema.model import ContentType

__all__ = [
    "CORE_ACTIONS",
    "ActionRules",
    "CustomRoute",
    "RestContext",
    "RestCustomization",
    "RestCustomizationError",
]

#: the core actions of a collection type's REST routes (a single type has no findOne, create)
CORE_ACTIONS = ("find", "findOne", "create", "update", "delete", "createLocalization")
SINGLE_ACTIONS = ("find", "update", "delete", "createLocalization")
_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
#: ``:name`` path parameters (Strapi's koa-router syntax) or ``{name}`` (FastAPI's)
_PARAMETER = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CONFIG_KEYS = frozenset({"auth", "policies", "middlewares"})

Next = Callable[[], Awaitable[Response]]


class RestCustomizationError(ValueError):
    """A customization that cannot be applied (start-up fails with it, in one line)."""


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


@dataclass(slots=True)
class RestContext:
    """What a policy, a route middleware, a custom handler and a controller receive: the
    request, the caller (``state``: an ``Actor``; ``state.user_id`` for a signed-in user), the
    route (``action``: ``api::article.article.find``) and its path parameters (``params``, also
    as ``args`` so that one policy reads an ``id`` the same way in GraphQL and REST)."""

    request: Request
    state: Actor
    action: str
    params: dict[str, Any]
    #: the content services: ``entries`` (the entry service, extensions' overrides applied),
    #: ``query_parser``, ``serializer``, ``callers``
    services: ContentServices
    type: str = "koa"

    @property
    def http(self) -> Request:
        return self.request

    @property
    def args(self) -> dict[str, Any]:
        return self.params

    async def body(self) -> dict[str, Any]:
        """The request's JSON object, read as the core routes read theirs: within the body
        limit, a malformed or non-object body answered 400 in the contract's shape."""
        return await read_json_object(self.request)

    def content_type(self, uid: str) -> ContentType:
        return self.services.entries.registry.content_types[uid]

    def list_query(self, uid: str, params: Mapping[str, Any] | None = None) -> ReadQuery:
        """``params`` (the request's query string when None) read as a list query of
        ``uid`` with the core's rules for this caller: private attributes refused, populate
        only through what the caller may ``find``."""
        return self._parser().read_query(self.content_type(uid), self._params(params))

    def entry_query(self, uid: str, params: Mapping[str, Any] | None = None) -> ReadQuery:
        """As ``list_query``, for one entry (``fields``, ``populate``, ``locale`` …)."""
        return self._parser().entry_query(self.content_type(uid), self._params(params))

    def _parser(self) -> QueryParser:
        actor = self.state
        return self.services.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))

    def _params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        return query_params(self.request) if params is None else dict(params)


@dataclass(slots=True)
class ActionRules:
    """The resolved configuration of one action: who may call it, the policies, the
    middlewares around it, and the controller replacing it (if any)."""

    action: str
    #: ``None``: the action's own permission; ``False``: nobody is checked; a list: scopes
    auth: Any = None
    policies: list[Callable[..., Any]] = field(default_factory=list)
    middlewares: list[Callable[..., Any]] = field(default_factory=list)
    controller: Callable[..., Any] | None = None
    app: Any = None

    async def caller(self, callers: Any, request: Request) -> Actor:
        """Authentication and the permission check, as Strapi's ``authenticate`` and
        ``authorize`` with the route's ``config.auth``."""
        if self.auth is False:
            # public: no permission checked; a caller who sends credentials is still who
            # populate and the policies see (a bad one is the public role, not a 401)
            try:
                return await callers.current_actor(request)
            except UnauthorizedError:
                return await callers.current_actor(_without_credentials(request))
        actor = await callers.current_actor(request)
        scopes = [self.action] if self.auth is None else self.auth
        if not all(may(actor, scope) for scope in scopes):
            raise ForbiddenError()
        return actor

    async def run(self, context: RestContext, action: Callable[[], Awaitable[Any]]) -> Response:
        """The policies, then the middlewares around the controller (or the action)."""
        for policy in self.policies:
            if not await _settle(policy(context, self.app)):
                raise PolicyError()

        async def innermost() -> Response:
            if self.controller is None:
                return _response(await action())
            return _response(await _settle(self.controller(context, action)))

        call: Next = innermost
        for middleware in reversed(self.middlewares):
            call = _bound(middleware, context, call)
        return await call()


def _bound(middleware: Callable[..., Any], context: RestContext, call_next: Next) -> Next:
    async def call() -> Response:
        answer = await _settle(middleware(context, call_next))
        if not isinstance(answer, Response):
            raise TypeError(f"the middleware {middleware!r} returned no response")
        return answer

    return call


def _response(value: Any) -> Response:
    """A controller's or handler's return: a response as it is, anything else as JSON."""
    return value if isinstance(value, Response) else OrjsonResponse(value)


def _without_credentials(request: Request) -> Request:
    scope = dict(request.scope)
    scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k != b"authorization"]
    return Request(scope, request.receive)


@dataclass(slots=True)
class CustomRoute:
    """A custom REST route: its method, its path under ``/api`` (FastAPI's syntax), the
    handler, its action (``<uid>.<name>``) and the types of its path parameters."""

    method: str
    path: str
    handler: Callable[..., Any]
    action: str
    uid: str
    name: str
    config: dict[str, Any]
    parameters: dict[str, type]
    source: str


@dataclass(slots=True)
class _CoreRouter:
    only: tuple[str, ...] | None
    exclude: tuple[str, ...]
    config: dict[str, dict[str, Any]]
    source: str


class RestCustomization:
    """``app.rest``: collected while the extensions register, resolved once they all have."""

    def __init__(self, registry: Any, policies: Any, middlewares: Any) -> None:
        self.registry = registry
        self.policies = policies
        self.middlewares = middlewares
        self._core: dict[str, _CoreRouter] = {}
        self._controllers: dict[tuple[str, str], tuple[Callable[..., Any], str]] = {}
        self.routes: list[CustomRoute] = []
        #: global middlewares ``(request, call_next)``, in order
        self.global_middlewares: list[Callable[..., Any]] = []
        #: the extension module registering now (errors name it)
        self.current_source = ""
        self.app: Any = None
        self._rules: dict[str, dict[str, ActionRules]] = {}

    # ------------------------------------------------------------ what extensions call

    def core_router(
        self,
        uid: str,
        *,
        only: list[str] | tuple[str, ...] | None = None,
        exclude: list[str] | tuple[str, ...] = (),
        config: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Strapi's ``createCoreRouter(uid, {only, except, config})``."""
        content_type = self._content_type(uid)
        actions = self._core_actions(content_type)
        for name in [*(only or ()), *exclude, *(config or {})]:
            if name not in actions:
                raise self._error(
                    f"{uid} has no core action {name!r} (it has {', '.join(actions)})"
                )
        if uid in self._core:
            raise self._error(f"the core router of {uid} is configured twice")
        for action, options in (config or {}).items():
            self._check_config(options, f"{uid}.{action}")
        self._core[uid] = _CoreRouter(
            tuple(only) if only is not None else None,
            tuple(exclude),
            {name: dict(options) for name, options in (config or {}).items()},
            self.current_source,
        )

    def route(
        self,
        method: str,
        path: str,
        handler: Callable[..., Any],
        *,
        uid: str,
        name: str,
        config: Mapping[str, Any] | None = None,
        parameters: Mapping[str, type] | None = None,
    ) -> None:
        """A custom route ``method path`` (under ``/api``; ``:id`` or ``{id}`` parameters,
        converted to ``parameters``' types: ``int``, ``float`` or ``str``) answered by
        ``handler(context)``; its permission is ``<uid>.<name>``."""
        self._content_type(uid)
        method = method.upper()
        if method not in _METHODS:
            raise self._error(f"{method} {path}: not an HTTP method a route may have")
        if not callable(handler):
            raise self._error(f"{method} {path}: the handler is not callable")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
            raise self._error(f"{method} {path}: {name!r} is not an action name")
        if name in self._core_actions(self.registry.content_types[uid]):
            raise self._error(f"{method} {path}: {name!r} is a core action of {uid}")
        if not path.startswith("/"):
            raise self._error(f"{method} {path}: a path starts with /")
        fastapi_path = _PARAMETER.sub(lambda m: "{" + (m.group(1) or m.group(2)) + "}", path)
        if fastapi_path.startswith("/api/"):
            fastapi_path = fastapi_path[len("/api") :]
        names = [m.group(1) or m.group(2) for m in _PARAMETER.finditer(path)]
        types = dict(parameters or {})
        for parameter, kind in types.items():
            if parameter not in names:
                raise self._error(f"{method} {path}: no path parameter {parameter!r}")
            if kind not in (int, float, str):
                raise self._error(f"{method} {path}: {parameter!r} is int, float or str")
        self._check_config(config or {}, f"{method} {path}")
        self.routes.append(
            CustomRoute(
                method,
                fastapi_path,
                handler,
                f"{uid}.{name}",
                uid,
                name,
                dict(config or {}),
                {name_: types.get(name_, str) for name_ in names},
                self.current_source,
            )
        )

    def controller(self, uid: str, action: str, fn: Callable[..., Any]) -> None:
        """Replace or wrap core ``action`` of ``uid``: ``fn(context, default)``."""
        content_type = self._content_type(uid)
        if action not in self._core_actions(content_type):
            raise self._error(f"{uid} has no core action {action!r}")
        if not callable(fn):
            raise self._error(f"the controller of {uid}.{action} is not callable")
        if (uid, action) in self._controllers:
            raise self._error(f"the controller of {uid}.{action} is set twice")
        self._controllers[(uid, action)] = (fn, self.current_source)

    def use(self, middleware: Callable[..., Any]) -> None:
        """A global middleware ``(request, call_next)`` around every request."""
        if not callable(middleware):
            raise self._error("a global middleware is a callable (request, call_next)")
        self.global_middlewares.append(middleware)

    # ------------------------------------------------------------ what the server reads

    def resolve(self, app: Any) -> None:
        """Resolve every name and check the routes, once every extension has registered."""
        self.app = app
        rules: dict[str, dict[str, ActionRules]] = {}
        for uid, router in self._core.items():
            for action, options in router.config.items():
                rules.setdefault(uid, {})[action] = self._rules_of(
                    f"{uid}.{action}", options, router.source
                )
        for (uid, action), (fn, _source) in self._controllers.items():
            found = rules.setdefault(uid, {}).get(action)
            if found is None:
                found = rules[uid][action] = ActionRules(f"{uid}.{action}", app=app)
            found.controller = fn
        self._rules = rules
        self._route_rules = {
            id(route): self._rules_of(route.action, route.config, route.source)
            for route in self.routes
        }
        self._check_conflicts()

    def enabled(self, uid: str, action: str) -> bool:
        router = self._core.get(uid)
        if router is None:
            return True
        if router.only is not None and action not in router.only:
            return False
        return action not in router.exclude

    def rules_of(self, uid: str) -> dict[str, ActionRules]:
        """The configured actions of ``uid`` (none for most types)."""
        return self._rules.get(uid, {})

    def route_rules(self, route: CustomRoute) -> ActionRules:
        return self._route_rules[id(route)]

    def custom_actions(self) -> dict[str, tuple[str, ...]]:
        """uid → the names of its custom routes' actions (the permission tree lists them)."""
        found: dict[str, tuple[str, ...]] = {}
        for route in self.routes:
            if route.name not in found.get(route.uid, ()):
                found[route.uid] = (*found.get(route.uid, ()), route.name)
        return found

    # ------------------------------------------------------------ helpers

    def _rules_of(self, action: str, options: Mapping[str, Any], source: str) -> ActionRules:
        where = f"extension {source!r}: {action}"
        try:
            policies = [self.policies.resolve(p, where) for p in options.get("policies") or []]
            middlewares = [
                self.middlewares.resolve(m, where) for m in options.get("middlewares") or []
            ]
        except Exception as error:
            raise RestCustomizationError(str(error)) from error
        auth = options.get("auth", None)
        if isinstance(auth, Mapping):
            scopes = auth.get("scope")
            auth = [scopes] if isinstance(scopes, str) else list(scopes or [])
        return ActionRules(action, auth, policies, middlewares, app=self.app)

    def _check_conflicts(self) -> None:
        seen: dict[tuple[str, str], CustomRoute] = {}
        core = self._core_paths()
        for route in self.routes:
            key = (route.method, _shape(route.path))
            if key in seen:
                other = seen[key]
                raise RestCustomizationError(
                    f"extension {route.source!r}: route {route.method} /api{route.path} "
                    f"conflicts with {other.method} /api{other.path} of extension "
                    f"{other.source!r}"
                )
            if key in core:
                raise RestCustomizationError(
                    f"extension {route.source!r}: route {route.method} /api{route.path} "
                    f"conflicts with the core route {core[key]}"
                )
            seen[key] = route

    def _core_paths(self) -> dict[tuple[str, str], str]:
        """(method, path shape) → the core action answering it, for every enabled action."""
        return {
            (route.method, _shape(route.path)): (
                f"{route.method} /api{route.path} ({content_type.uid}.{route.action})"
            )
            for content_type in self.registry.content_types.values()
            for route in core_routes(content_type)
            if self.enabled(content_type.uid, route.action)
        }

    def _content_type(self, uid: str) -> Any:
        content_type = self.registry.content_types.get(uid)
        if content_type is None or content_type.is_builtin:
            raise self._error(f"no content type {uid!r} has REST routes")
        return content_type

    @staticmethod
    def _core_actions(content_type: Any) -> tuple[str, ...]:
        return SINGLE_ACTIONS if content_type.is_single else CORE_ACTIONS

    def _check_config(self, options: Any, where: str) -> None:
        if not isinstance(options, Mapping):
            raise self._error(f"{where}: a route's config is a mapping")
        unknown = set(options) - _CONFIG_KEYS
        if unknown:
            raise self._error(f"{where}: unknown config keys {sorted(unknown)}")
        auth = options.get("auth", None)
        if not (auth is None or auth is False or isinstance(auth, Mapping)):
            raise self._error(f"{where}: auth is False or {{'scope': [...]}}")

    def _error(self, message: str) -> RestCustomizationError:
        return RestCustomizationError(f"extension {self.current_source!r}: {message}")


def _shape(path: str) -> str:
    """A path with its parameters' names left out: ``/a/{x}`` and ``/a/{y}`` collide."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def typed_parameters(route: CustomRoute, values: Mapping[str, str]) -> dict[str, Any]:
    """The path parameters converted to their declared types; 400 for one that is not."""
    converted: dict[str, Any] = {}
    for name, kind in route.parameters.items():
        raw = values[name]
        try:
            converted[name] = kind(raw)
        except ValueError:
            raise ValidationError(
                f"Invalid parameter {name}: {raw!r} is not {kind.__name__}"
            ) from None
    return converted
