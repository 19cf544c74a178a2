"""The GraphQL plugin: Strapi v4's Shadow CRUD schema over the same query engine as REST.

``build_graphql(runtime)`` makes the schema from the registry once, and the router that serves
it at ``CONTENTAPI_GRAPHQL_ENDPOINT``.
"""

from __future__ import annotations

from fastapi import APIRouter
from graphql import GraphQLSchema

from contentapi.auth.ratelimit import RateLimiter
from contentapi.runtime import Runtime
from contentapi.upload.service import UploadService
from contentapi.upload.storage import LocalStorage

__all__ = ["build_graphql", "graphql_schema"]


def graphql_schema(runtime: Runtime) -> GraphQLSchema:
    from contentapi.graphql.schema import SchemaOptions, build_schema

    settings = runtime.settings
    upload = UploadService(runtime, LocalStorage(settings.uploads_dir), settings.upload_max_size)
    limiter = RateLimiter(
        runtime.database, settings.auth_rate_limit_max, settings.auth_rate_limit_seconds
    )
    options = SchemaOptions(
        shadow_crud=settings.graphql_shadow_crud,
        locales=settings.locale_codes,
        amount_limit=settings.graphql_amount_limit,
    )
    return build_schema(runtime.registry, options, upload, limiter)


def build_graphql(runtime: Runtime) -> APIRouter:
    from contentapi.graphql.execute import Engine
    from contentapi.graphql.http import build_graphql_router
    from contentapi.graphql.plan import Planner

    settings = runtime.settings
    engine = Engine(
        graphql_schema(runtime),
        depth_limit=settings.graphql_depth_limit,
        introspection=settings.env != "production",
    )
    planner = Planner(runtime.registry, settings.graphql_amount_limit)
    return build_graphql_router(runtime, engine, planner)
