"""``GET /api/i18n/locales``: the configured locales (``CONTENTAPI_LOCALES``) in Strapi's shape."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.responses import Response

from contentapi.auth.deps import require
from contentapi.rest.responses import OrjsonResponse
from contentapi.runtime import Runtime
from contentapi.values import format_datetime

__all__ = ["LOCALE_NAMES", "build_i18n_router"]

#: Display names Strapi gives common locales; other codes are shown as themselves.
LOCALE_NAMES = {
    "en": "English (en)",
    "fr": "French (fr)",
    "de": "German (de)",
    "es": "Spanish (es)",
    "it": "Italian (it)",
    "nl": "Dutch (nl)",
    "pt": "Portuguese (pt)",
    "ja": "Japanese (ja)",
    "zh": "Chinese (zh)",
    "ru": "Russian (ru)",
    "pl": "Polish (pl)",
    "sv": "Swedish (sv)",
}


def build_i18n_router(runtime: Runtime) -> APIRouter:
    router = APIRouter(prefix="/api/i18n")
    started = format_datetime(datetime.now(UTC))
    codes = runtime.settings.locale_codes
    locales = [
        {
            "id": index,
            "name": LOCALE_NAMES.get(code, code),
            "code": code,
            "createdAt": started,
            "updatedAt": started,
            "isDefault": index == 1,
        }
        for index, code in enumerate(codes, start=1)
    ]

    @router.get("/locales")
    async def list_locales(request: Request) -> Response:
        await require(request, "plugin::i18n.locales.listLocales")
        return OrjsonResponse(locales)

    return router
