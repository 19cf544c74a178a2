"""Liveness and readiness for load balancers and container orchestrators.

``GET /_health`` answers 204 as Strapi's ``/_health`` does (with its ``strapi`` header): the
process is up and serving, whatever the database does — a liveness probe that restarted the
server whenever PostgreSQL blinked would make an outage worse.

``GET /_ready`` answers 200 only when the database answers and its system migrations are the
ones this code expects (``alembic_version`` at the newest revision); otherwise 503
``ServiceUnavailableError`` in the contract's error shape, with ``Retry-After``. The check is
one small statement under a time limit, so a database that hangs makes the instance not ready
instead of making the probe hang.

    app.include_router(build_health_router(runtime.database))

``GET /_cache`` (only with the response cache or the CDN purge on, and only for a full-access
API token) answers this worker's response cache counters: hits, misses, stores, refused
(raced with a change), evictions, dropped (size bound), bypasses, noCache, entries, size.
"""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request
from sqlalchemy import text
from starlette.responses import Response

from contentapi.auth.deps import CallerResolver
from contentapi.db.engine import Database
from contentapi.db.sync import head_revision
from contentapi.errors import ForbiddenError, ServiceUnavailableError
from contentapi.http.errors import error_response
from contentapi.http.response_cache import ResponseCache
from contentapi.http.responses import OrjsonResponse

__all__ = ["READY_TIMEOUT", "build_health_router", "readiness_problem"]

log = logging.getLogger("contentapi.health")

#: Seconds the readiness statement may take before the instance counts as not ready.
READY_TIMEOUT = 3.0
#: Strapi's ``/_health`` answer carries this header.
_STRAPI_HEADER = {"strapi": "You are so French!"}


async def _current_revision(database: Database) -> str | None:
    async with database.read() as conn:
        result = await conn.execute(text("SELECT version_num FROM alembic_version"))
        return result.scalar()


async def readiness_problem(database: Database, timeout: float = READY_TIMEOUT) -> str | None:
    """Why this instance cannot serve now, or ``None`` when it can."""
    try:
        revision = await asyncio.wait_for(_current_revision(database), timeout)
    except Exception as error:  # unreachable, refused, timed out, no alembic_version table …
        log.warning("not ready: the database does not answer: %r", error)
        return "The database is unavailable"
    if revision != head_revision():
        log.warning("not ready: migrations at %s, expected %s", revision, head_revision())
        return "The database migrations are not current"
    return None


def build_health_router(
    database: Database,
    responses: ResponseCache | None = None,
    callers: CallerResolver | None = None,
) -> APIRouter:
    router = APIRouter()
    if responses is not None and callers is not None:
        cache, resolver = responses, callers

        @router.get("/_cache")
        async def cache_stats(request: Request) -> Response:
            actor = await resolver.current_actor(request)
            if actor.kind != "api-token" or actor.token_type != "full-access":
                raise ForbiddenError()
            return OrjsonResponse(cache.stats())

    @router.api_route("/_health", methods=["GET", "HEAD"])
    async def health() -> Response:
        return Response(status_code=204, headers=_STRAPI_HEADER)

    @router.get("/_ready")
    async def ready() -> Response:
        problem = await readiness_problem(database)
        if problem is None:
            return OrjsonResponse({"status": "ready"})
        error = ServiceUnavailableError(problem)
        return error_response(error, headers={"Retry-After": str(error.retry_after)})

    return router
