"""Routes generated from the registry: collection and single types under ``/api``."""

from __future__ import annotations

from fastapi import APIRouter

from contentapi.events.feed import ChangeFeed
from contentapi.http.services import ContentServices
from contentapi.rest.event_stream import EventStream
from contentapi.rest.handlers import Resource
from contentapi.schema.registry import Registry

__all__ = ["build_content_router"]


def build_content_router(
    registry: Registry, services: ContentServices, feed: ChangeFeed
) -> APIRouter:
    router = APIRouter(prefix="/api")
    for content_type in registry.content_types.values():
        if content_type.is_builtin:
            continue  # served by the users package with Strapi's own shapes
        resource = Resource(content_type, services)
        # the type's changes as server-sent events (before `/{entry_id}`, which it would match)
        path = content_type.singular_name if content_type.is_single else content_type.plural_name
        router.add_api_route(
            f"/{path}/events", EventStream(content_type, services, feed), methods=["GET"]
        )
        if content_type.is_single:
            router.add_api_route(
                f"/{content_type.singular_name}",
                resource.single,
                methods=["GET", "PUT", "DELETE"],
                include_in_schema=True,
            )
            if content_type.localized:
                router.add_api_route(
                    f"/{content_type.singular_name}/localizations",
                    resource.single_localizations,
                    methods=["POST"],
                )
            continue
        router.add_api_route(
            f"/{content_type.plural_name}", resource.collection, methods=["GET", "POST"]
        )
        router.add_api_route(
            f"/{content_type.plural_name}/{{entry_id}}",
            resource.item,
            methods=["GET", "PUT", "DELETE"],
        )
        if content_type.localized:
            router.add_api_route(
                f"/{content_type.plural_name}/{{entry_id}}/localizations",
                resource.localizations,
                methods=["POST"],
            )
    return router
