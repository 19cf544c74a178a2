"""``GET /api/i18n/locales``: the database's locales (``i18n_locale``) in Strapi's shape."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from contentapi.auth.deps import CallerResolver
from contentapi.db.engine import Database
from contentapi.http.responses import OrjsonResponse
from contentapi.i18n.store import read_locales

__all__ = ["build_i18n_router"]


def build_i18n_router(callers: CallerResolver, database: Database) -> APIRouter:
    router = APIRouter(prefix="/api/i18n")

    @router.get("/locales")
    async def list_locales(request: Request) -> Response:
        await callers.require(request, "plugin::i18n.locales.listLocales")
        async with database.read() as conn:
            return OrjsonResponse(await read_locales(conn))

    return router
