"""The GraphQL plugin: Strapi v4's Shadow CRUD schema over the same query engine as REST.

``build_graphql(runtime)`` makes the schema from the registry once, and the router that serves
it at ``CONTENTAPI_GRAPHQL_ENDPOINT``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter
from graphql import GraphQLSchema

from contentapi.auth.ratelimit import RateLimiter
from contentapi.runtime import Runtime
from contentapi.upload.service import UploadService

if TYPE_CHECKING:
    from contentapi.extensions import App
    from contentapi.graphql.customize import Customized

__all__ = ["build_graphql", "graphql_schema"]


def graphql_schema(runtime: Runtime, app: App | None = None) -> GraphQLSchema:
    """The schema, with the extensions registered on ``app`` applied."""
    return _customized(runtime, app).schema


def _customized(runtime: Runtime, app: App | None) -> Customized:
    from contentapi.extensions import App
    from contentapi.graphql.customize import check_switches, customize
    from contentapi.graphql.schema import SchemaOptions, build_schema

    app = app or App(runtime.settings, runtime.registry)
    settings = runtime.settings
    upload = UploadService(runtime, runtime.storage, settings.upload_max_size)
    limiter = RateLimiter(
        runtime.database, settings.auth_rate_limit_max, settings.auth_rate_limit_seconds
    )
    check_switches(app.graphql.switches, runtime.registry)
    options = SchemaOptions(
        shadow_crud=settings.graphql_shadow_crud,
        locales=settings.locale_codes,
        amount_limit=settings.graphql_amount_limit,
        switches=app.graphql.switches,
    )
    schema = build_schema(runtime.registry, options, upload, limiter)
    return customize(
        schema,
        app.graphql.extension_service.extensions,
        policies=app.policies,
        middlewares=app.middlewares,
        app=app,
    )


def build_graphql(runtime: Runtime, app: App | None = None) -> APIRouter:
    from contentapi.graphql.execute import Engine
    from contentapi.graphql.http import build_graphql_router
    from contentapi.graphql.plan import Planner

    settings = runtime.settings
    customized = _customized(runtime, app)
    engine = Engine(
        customized.schema,
        depth_limit=settings.graphql_depth_limit,
        introspection=settings.env != "production",
        plugins=customized.plugins,
    )
    planner = Planner(runtime.registry, settings.graphql_amount_limit)
    return build_graphql_router(runtime, engine, planner)
