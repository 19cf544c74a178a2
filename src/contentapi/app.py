"""create_app(settings): the single composition root; every part is wired here and only here."""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from contentapi import __version__
from contentapi.auth.deps import CallerResolver
from contentapi.auth.ratelimit import RateLimiter
from contentapi.config import Settings
from contentapi.db.gate import RequestStartMiddleware
from contentapi.entries.service import EntryService
from contentapi.events.dispatch import Dispatcher
from contentapi.events.feed import ChangeFeed
from contentapi.extensions import load_extensions
from contentapi.graphql import build_graphql, customized_schema
from contentapi.graphql.context import GraphQLServices
from contentapi.health import build_health_router
from contentapi.http.conditional import CacheDirectives
from contentapi.http.errors import CatchAllMiddleware, install_error_handlers
from contentapi.http.limits import RequestLimitsMiddleware
from contentapi.http.read_position import LSN_HEADER_NAME, ReadPositionMiddleware
from contentapi.http.security_headers import SecurityHeadersMiddleware
from contentapi.http.services import ContentServices
from contentapi.i18n.routes import build_i18n_router
from contentapi.index import build_index_router
from contentapi.openapi import build_documentation_router
from contentapi.rest.global_middlewares import GlobalMiddlewares
from contentapi.rest.router import build_content_routes, build_custom_router
from contentapi.runtime import Runtime
from contentapi.schema.builtin import FILE_UID, USER_UID
from contentapi.upload.routes import UploadServices, UploadsStatic, build_upload_router
from contentapi.upload.service import UploadService
from contentapi.users.account_mail import AccountMail
from contentapi.users.flows import AuthFlows
from contentapi.users.roles import RolesService
from contentapi.users.routes import UsersServices, build_users_router
from contentapi.users.service import UsersService

__all__ = ["create_app", "create_server_app"]

log = logging.getLogger("contentapi")


def create_server_app() -> FastAPI:
    """What ``contentapi serve`` runs in each worker: ``create_app`` with the start-up heap
    frozen (``gc.freeze``): measured, p99 of the list scenario 104 → 31 ms. uvicorn configures
    only its own loggers; the worker's ``contentapi`` lines (its ready line) need a handler."""
    logger = logging.getLogger("contentapi")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return create_app(freeze_after_start=True)


def create_app(settings: Settings | None = None, *, freeze_after_start: bool = False) -> FastAPI:
    """The ASGI application. Invalid models raise ``ModelErrors`` here, before serving."""
    settings = settings or Settings()
    runtime = Runtime.build(settings)
    extensions = load_extensions(settings, runtime.registry, runtime)
    services = _Services.build(
        runtime, extensions.rest.custom_actions(), extensions.services.apply(runtime.entries)
    )
    #: this worker's live tail of the change feed, for the event streams (``GET /api/P/events``)
    feed = ChangeFeed(runtime.database, settings.events_queue_limit)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        # The webhooks' deliveries (events/dispatch.py) and the log line: here, not in
        # ``Runtime.start``: one-shot commands (migrate, tokens, settings) start a runtime too,
        # and nothing serves or delivers there.
        dispatcher = Dispatcher(
            runtime.database, settings, runtime.entries.events, extensions.events
        )
        await dispatcher.start()
        await runtime.database.start_replicas()  # only a server reads on them
        log.info(
            "contentapi ready: worker %d serving http://%s:%d",
            os.getpid(),
            settings.host,
            settings.port,
        )
        # Everything built so far (models, tables, schema, compiled plans) lives as long as the
        # process: keep it out of every later garbage collection, which otherwise walks it
        # again and again and shows as tail latency under load (docs/benchmarks.md).
        if freeze_after_start:
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            await feed.stop()
            await dispatcher.stop()
            await runtime.stop()

    app = FastAPI(
        title="contentapi",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    # for the tests and tools that reach into a running app; no route reads it
    app.state.runtime = runtime
    install_error_handlers(app)
    # First: most requests are content requests, and the routes are tried in this order. The
    # custom routes extensions add come before the core ones they could shadow; nothing else
    # can be: content paths are /api/<plural or singular name>, and the names the other
    # routers use under /api are reserved (schema/document_rules.py).
    if extensions.rest.routes:
        app.include_router(build_custom_router(extensions.rest, services.content))
    app.router.routes.append(
        build_content_routes(runtime.registry, services.content, feed, extensions.rest)
    )
    app.include_router(
        build_health_router(runtime.database, runtime.response_cache, services.callers)
    )
    if settings.documentation_enabled:
        app.include_router(build_documentation_router(runtime.registry, settings, extensions.rest))
    app.include_router(build_index_router(settings))
    app.include_router(build_users_router(services.users))
    app.include_router(build_upload_router(services.upload))
    app.include_router(build_i18n_router(services.callers, runtime.database))
    if settings.graphql_enabled:
        customized = customized_schema(settings, runtime.registry, services.uploads, extensions)
        app.include_router(
            build_graphql(
                settings,
                customized,
                services.callers,
                services.graphql,
                feed,
                # not through an extension's resolvers, which may read who asks
                None if extensions.graphql.extension_service.extensions else runtime.response_cache,
            )
        )
    if settings.upload_provider == "local":  # S3 objects are served by their bucket (or CDN)
        settings.uploads_dir.mkdir(parents=True, exist_ok=True)
        app.mount("/uploads", UploadsStatic(directory=settings.uploads_dir), name="uploads")
    if extensions.rest.global_middlewares:
        # extensions' own (Strapi's config/middlewares), inside every one of ours: their
        # answers get the limits, CORS and security headers, their errors the error shape
        app.add_middleware(GlobalMiddlewares, middlewares=extensions.rest.global_middlewares)
    if runtime.database.replicas is not None:
        # which reads a replica may serve, and the read-your-writes token after a write
        app.add_middleware(ReadPositionMiddleware)
    # Innermost of ours (but for the one above): its answers get the CORS and security
    # headers; what its ``receive`` raises reaches the routes' error handlers.
    app.add_middleware(
        RequestLimitsMiddleware,
        body_limit=settings.body_limit,
        # GraphQL's multipart limit; REST's upload route holds its own, lower (``hold_body_to``)
        multipart_limit=settings.upload_max_size + 1024 * 1024,
        query_string_limit=settings.query_string_limit,
    )
    origins = [origin.strip() for origin in settings.cors_origins.split(",") if origin.strip()]
    # with replicas, a browser's script may send and read the read-your-writes token
    token = [LSN_HEADER_NAME] if runtime.database.replicas is not None else []
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        allow_headers=["Content-Type", "Authorization", "Origin", "Accept", *token],
        expose_headers=token,
        allow_credentials="*" not in origins,
    )
    app.add_middleware(CatchAllMiddleware)
    # Outermost, so that every answer carries them, the catch-all's 500 included.
    playground = settings.graphql_endpoint if settings.graphql_enabled else None
    app.add_middleware(SecurityHeadersMiddleware, playground_path=playground)
    if runtime.database.read_gate is not None:
        # Outermost but for the proxy headers: a request's reads queue by when it arrived
        app.add_middleware(RequestStartMiddleware)
    if settings.trusted_proxy_list:
        # The client address (rate limits) and scheme from X-Forwarded-* only when the peer is
        # a configured proxy; `serve` runs uvicorn with its own proxy handling off.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxy_list)
    return app


@dataclass(frozen=True)
class _Services:
    """Every service a protocol surface uses, each built once from the runtime: the routers
    and GraphQL's resolvers receive the ones they use, never the runtime."""

    callers: CallerResolver
    uploads: UploadService
    content: ContentServices
    users: UsersServices
    upload: UploadServices
    graphql: GraphQLServices

    @classmethod
    def build(
        cls,
        runtime: Runtime,
        custom_actions: Mapping[str, tuple[str, ...]] | None = None,
        entries: EntryService | None = None,
    ) -> _Services:
        """``entries``: the entry service the protocols use, extensions' overrides applied
        (``entries/overrides.py``); the runtime's by default."""
        settings = runtime.settings
        database, tables, registry = runtime.database, runtime.tables, runtime.registry
        parser, serializer = runtime.query_parser, runtime.serializer
        core_entries = runtime.entries
        entries = entries or core_entries
        callers = CallerResolver(
            database, tables, runtime.secrets, runtime.caller_cache, runtime.token_usage
        )
        uploads = UploadService(
            database, tables, registry, core_entries, runtime.storage, settings.upload_max_size
        )
        limiter = RateLimiter(
            database, settings.auth_rate_limit_max, settings.auth_rate_limit_seconds
        )
        mail = AccountMail(
            database, tables, registry, core_entries, serializer, settings, runtime.outbox
        )
        users = UsersService(
            database, tables, registry, core_entries, settings, runtime.secrets, mail
        )
        roles = RolesService(database, tables, registry, custom_actions)
        flows = AuthFlows(users, mail, limiter)
        cache = CacheDirectives.configured(settings)
        content = ContentServices(
            callers, entries, parser, serializer, cache, runtime.response_cache
        )
        return cls(
            callers=callers,
            uploads=uploads,
            content=content,
            users=UsersServices(
                content=content,
                users=users,
                flows=flows,
                roles=roles,
                user_type=registry.content_types[USER_UID],
                max_limit=settings.rest_max_limit,
            ),
            upload=UploadServices(
                content=content,
                uploads=uploads,
                registry=registry,
                database=database,
                tables=tables,
                file_type=registry.content_types[FILE_UID],
                max_size=settings.upload_max_size,
                max_limit=settings.rest_max_limit,
            ),
            graphql=GraphQLServices(
                registry=registry,
                database=database,
                entries=entries,
                query_parser=parser,
                users=users,
                flows=flows,
                roles=roles,
            ),
        )
