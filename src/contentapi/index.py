"""``GET /``: where things are, for whoever opens the server's address in a browser or curl.

Strapi answers its root with the admin panel's welcome page; an API-only server says where its
API, GraphQL endpoint, documentation and (local) uploads are instead, and which version answers.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from contentapi import __version__
from contentapi.config import Settings
from contentapi.http.responses import OrjsonResponse

__all__ = ["DOCUMENTATION_PATH", "build_index_router"]

#: the OpenAPI documentation's path, named in the index when the app serves it
DOCUMENTATION_PATH = "/documentation"


def build_index_router(settings: Settings) -> APIRouter:
    router = APIRouter()
    graphql = settings.graphql_endpoint if settings.graphql_enabled else None
    # the same setting decides whether app.py mounts the documentation routes
    documentation = DOCUMENTATION_PATH if settings.documentation_enabled else None

    @router.get("/", include_in_schema=False)
    async def index() -> OrjsonResponse:
        body: dict[str, Any] = {
            "name": "contentapi",
            "version": __version__,
            "api": "/api",
            "graphql": graphql,
            "documentation": documentation,
            # files of the local provider; S3's are served by their bucket
            "uploads": "/uploads" if settings.upload_provider == "local" else None,
        }
        return OrjsonResponse(body)

    return router
