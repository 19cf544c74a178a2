"""Routes generated from the registry: collection and single types under ``/api``, and the
custom routes extensions add (``rest/customize.py``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

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
from contentapi.schema.registry import Registry

__all__ = ["build_content_router"]


def build_content_router(
    registry: Registry,
    services: ContentServices,
    feed: ChangeFeed,
    customization: RestCustomization | None = None,
) -> APIRouter:
    router = APIRouter(prefix="/api")
    if customization is not None:
        # first: `/articles/featured` must not be read as the entry `featured`
        for route in customization.routes:
            router.add_api_route(
                route.path,
                _custom_endpoint(route, customization.route_rules(route), services),
                methods=[route.method],
                name=route.action,
            )

    for content_type in registry.content_types.values():
        if content_type.is_builtin:
            continue  # served by the users package with Strapi's own shapes
        uid = content_type.uid
        rules = customization.rules_of(uid) if customization is not None else None
        resource = Resource(content_type, services, rules)
        # the type's changes as server-sent events (before `/{entry_id}`, which it would match)
        path = content_type.singular_name if content_type.is_single else content_type.plural_name
        router.add_api_route(
            f"/{path}/events", EventStream(content_type, services, feed), methods=["GET"]
        )
        # one endpoint per path, for the methods whose action is served (none: no route, 404)
        endpoints = _endpoints(resource, content_type.is_single)
        methods: dict[str, list[str]] = {}
        handlers: dict[str, Callable[..., Any]] = {}
        for core in core_routes(content_type):
            if customization is None or customization.enabled(uid, core.action):
                methods.setdefault(core.path, []).append(core.method)
                handlers[core.path] = endpoints[core.action]
        for route_path, allowed in methods.items():
            router.add_api_route(route_path, handlers[route_path], methods=allowed)
    return router


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
