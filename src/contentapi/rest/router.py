"""The REST routes of the content types under ``/api``, and the custom routes extensions add
(``rest/customize.py``).

The core routes of every content type are one Starlette route, ``ContentRoutes``: the path's
first segment under ``/api`` names the type (a dictionary lookup), the rest says which of its
paths it is. FastAPI's own routes cost a content request a regular expression per route tried
and its dependency solving for a handler that takes only the request — about a third of a list
page's CPU in-process (``docs/benchmarks.md``). The custom routes, whose paths an extension
writes, stay FastAPI routes, tried before these.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from contentapi.events.feed import ChangeFeed
from contentapi.http.services import ContentServices
from contentapi.rest.core_routes import core_routes
from contentapi.rest.customize import (
    ActionRules,
    CustomRoute,
    RestContext,
    RestCustomization,
    typed_parameters,
)
from contentapi.rest.event_stream import EventStream
from contentapi.rest.handlers import Resource
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry

__all__ = ["ContentRoutes", "build_content_routes", "build_custom_router"]

PREFIX = "/api/"
#: the one-segment paths after a type's name that are not an entry's id
_NAMED_SEGMENTS = frozenset({"events", "localizations"})
#: where ``matches`` leaves the path it found, for ``handle``
_SERVED = "contentapi.served_path"


@dataclass(frozen=True, slots=True)
class ServedPath:
    """One path of a content type: the methods served there and their handler
    ``(request, **path_params)``; any other method is a 405 listing ``methods``."""

    #: the path as documented (``/api/books/{entry_id}``)
    path: str
    methods: tuple[str, ...]
    handler: Callable[..., Awaitable[Response]]
    #: ``HEAD`` answered as ``GET`` without its body (the core reads; not the event stream).
    #: Not listed in ``Allow``, which keeps Strapi's methods.
    head: bool = False

    def serves(self, method: str) -> bool:
        return method in self.methods or (method == "HEAD" and self.head)


class ContentRoutes(BaseRoute):
    """Every content type's core routes, found by the type's name (see the module's text)."""

    def __init__(self, paths: dict[tuple[str, str], ServedPath]) -> None:
        #: ``(name, shape)`` → path; shapes: ``""``, ``/{entry_id}``, ``/events``,
        #: ``/localizations``, ``/{entry_id}/localizations``
        self.paths = paths

    def served(self) -> Iterator[ServedPath]:
        """Every path served (the OpenAPI document's test compares them with it)."""
        return iter(self.paths.values())

    def _find(self, path: str) -> tuple[ServedPath, dict[str, str]] | None:
        """The path served at ``path`` (under ``/api/``) and its parameters, if any. An empty
        segment (``/api/books/``) is no path: the router redirects it without the slash."""
        name, *rest = path.split("/")
        if not all(rest):
            return None
        if not rest:
            served = self.paths.get((name, ""))
            return None if served is None else (served, {})
        if len(rest) == 1:
            # ``/events`` (and a single type's ``/localizations``) before an entry's id
            named = self.paths.get((name, f"/{rest[0]}")) if rest[0] in _NAMED_SEGMENTS else None
            if named is not None:
                return named, {}
            served = self.paths.get((name, "/{entry_id}"))
            return None if served is None else (served, {"entry_id": rest[0]})
        if len(rest) == 2 and rest[1] == "localizations":
            served = self.paths.get((name, "/{entry_id}/localizations"))
            if served is not None:
                return served, {"entry_id": rest[0]}
        return None

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):  # as Starlette's routes read it
            path = path[len(root) :]
        if not path.startswith(PREFIX):
            return Match.NONE, {}
        found = self._find(path[len(PREFIX) :])
        if found is None:
            return Match.NONE, {}
        served, params = found
        child = {_SERVED: served, "path_params": {**scope.get("path_params", {}), **params}}
        # another method of a served path: a partial match, a 405 unless another route serves it
        return (Match.FULL if served.serves(scope["method"]) else Match.PARTIAL), child

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        served: ServedPath = scope[_SERVED]
        if not served.serves(scope["method"]):
            raise HTTPException(status_code=405, headers={"Allow": ", ".join(served.methods)})
        request = Request(scope, receive, send)
        response = await served.handler(request, **scope["path_params"])
        await response(scope, receive, send)


def build_content_routes(
    registry: Registry,
    services: ContentServices,
    feed: ChangeFeed,
    customization: RestCustomization | None = None,
) -> ContentRoutes:
    """The core routes of every content type but the built-in ones (the users package serves
    those with Strapi's own shapes), less the actions an extension's core router leaves out."""
    paths: dict[tuple[str, str], ServedPath] = {}
    for content_type in registry.content_types.values():
        if content_type.is_builtin:
            continue
        name = content_type.singular_name if content_type.is_single else content_type.plural_name
        # the type's changes as server-sent events
        events = EventStream(content_type, services, feed)
        paths[(name, "/events")] = ServedPath(f"/api/{name}/events", ("GET",), events)
        for shape, served in _core_paths(content_type, name, services, customization).items():
            paths[(name, shape)] = served
    return ContentRoutes(paths)


def _core_paths(
    content_type: ContentType,
    name: str,
    services: ContentServices,
    customization: RestCustomization | None,
) -> dict[str, ServedPath]:
    """One handler per path after ``/{name}``, for the methods whose action is served (none:
    no path, 404)."""
    uid = content_type.uid
    rules = customization.rules_of(uid) if customization is not None else None
    endpoints = _endpoints(Resource(content_type, services, rules), content_type.is_single)
    base = f"/{name}"
    methods: dict[str, list[str]] = {}
    handlers: dict[str, Callable[..., Any]] = {}
    for core in core_routes(content_type):
        if customization is None or customization.enabled(uid, core.action):
            methods.setdefault(core.path, []).append(core.method)
            handlers[core.path] = endpoints[core.action]
    return {
        path[len(base) :]: ServedPath(
            f"/api{path}", tuple(allowed), handlers[path], head="GET" in allowed
        )
        for path, allowed in methods.items()
    }


def _endpoints(resource: Resource, single: bool) -> dict[str, Callable[..., Any]]:
    """The handler of each core action (one handler per path: a 405 lists its methods)."""
    if single:
        return {
            "find": resource.single,
            "update": resource.single,
            "delete": resource.single,
            "createLocalization": resource.single_localizations,
        }
    return {
        "find": resource.collection,
        "create": resource.collection,
        "findOne": resource.item,
        "update": resource.item,
        "delete": resource.item,
        "createLocalization": resource.localizations,
    }


def build_custom_router(customization: RestCustomization, services: ContentServices) -> APIRouter:
    """The routes extensions add, tried before the core ones: ``/articles/featured`` must not
    be read as the entry ``featured``."""
    router = APIRouter(prefix="/api")
    for route in customization.routes:
        router.add_api_route(
            route.path,
            _custom_endpoint(route, customization.route_rules(route), services),
            methods=[route.method],
            name=route.action,
        )
    return router


def _custom_endpoint(
    route: CustomRoute, rules: ActionRules, services: ContentServices
) -> Callable[[Request], Any]:
    """A custom route's endpoint: its caller checked, its parameters typed, its policies and
    middlewares around ``handler(context)``."""

    async def endpoint(request: Request) -> Response:
        actor = await rules.caller(services.callers, request)
        params = typed_parameters(route, request.path_params)
        context = RestContext(request, actor, route.action, params, services)

        async def handle() -> Any:
            answer = route.handler(context)
            return await answer if inspect.isawaitable(answer) else answer

        return await rules.run(context, handle)

    return endpoint
