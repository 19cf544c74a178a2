"""The GraphQL plugin: Strapi v4's Shadow CRUD schema over the same query engine as REST.

``customized_schema`` makes the schema from the registry once (the extensions applied) and
``build_graphql`` the router that serves it at ``CONTENTAPI_GRAPHQL_ENDPOINT``; both receive
the services they use from the composition root (``app.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from fastapi import APIRouter
from graphql import GraphQLSchema

from contentapi.auth.deps import CallerResolver
from contentapi.config import Settings
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries import EntryService
from contentapi.events.feed import ChangeFeed
from contentapi.http.response_cache import ResponseCache
from contentapi.schema.registry import Registry
from contentapi.upload.service import UploadService
from contentapi.upload.storage import StorageProvider

if TYPE_CHECKING:
    from contentapi.extensions import App
    from contentapi.graphql.context import GraphQLServices
    from contentapi.graphql.customize import Customized

__all__ = ["build_graphql", "customized_schema", "graphql_schema"]


def customized_schema(
    settings: Settings,
    registry: Registry,
    upload: UploadService,
    app: App,
) -> Customized:
    """The schema with the extensions registered on ``app`` applied, and their plugins."""
    from contentapi.graphql.customize import check_switches, customize
    from contentapi.graphql.schema import SchemaOptions, build_schema

    check_switches(app.graphql.switches, registry)
    options = SchemaOptions(
        shadow_crud=settings.graphql_shadow_crud,
        locales=settings.locale_codes,
        amount_limit=settings.graphql_amount_limit,
        switches=app.graphql.switches,
        subscriptions=settings.graphql_subscriptions,
    )
    schema = build_schema(registry, options, upload)
    return customize(
        schema,
        app.graphql.extension_service.extensions,
        policies=app.policies,
        middlewares=app.middlewares,
        app=app,
    )


class SchemaSources(Protocol):
    """What ``graphql_schema`` reads of a built (not started) server: ``Runtime`` has it."""

    settings: Settings
    registry: Registry
    tables: ContentTables
    database: Database
    entries: EntryService
    storage: StorageProvider


def graphql_schema(sources: SchemaSources, app: App) -> GraphQLSchema:
    """The schema alone, for ``contentapi graphql-schema`` (printed, never served: the upload
    service it is built with is never called)."""
    settings = sources.settings
    upload = UploadService(
        sources.database,
        sources.tables,
        sources.registry,
        sources.entries,
        sources.storage,
        settings.upload_max_size,
    )
    return customized_schema(settings, sources.registry, upload, app).schema


def build_graphql(
    settings: Settings,
    customized: Customized,
    callers: CallerResolver,
    services: GraphQLServices,
    feed: ChangeFeed,
    responses: ResponseCache | None = None,
) -> APIRouter:
    """``responses``: the response cache GET queries are answered through (``None``: none)."""
    from contentapi.graphql.budget import Budget
    from contentapi.graphql.execute import Engine
    from contentapi.graphql.http import build_graphql_router
    from contentapi.graphql.plan import Planner

    engine = Engine(
        customized.schema,
        depth_limit=settings.graphql_depth_limit,
        introspection=settings.env != "production",
        budget=Budget(
            limit=settings.graphql_cost_limit,
            batch_limit=settings.graphql_batch_limit,
            amount_limit=settings.graphql_amount_limit,
        ),
        token_limit=settings.graphql_token_limit,
        plugins=customized.plugins,
    )
    planner = Planner(services.registry, settings.graphql_amount_limit)
    return build_graphql_router(settings, callers, services, engine, planner, feed, responses)
