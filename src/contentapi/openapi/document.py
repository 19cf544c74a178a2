"""The Registry and settings → one OpenAPI 3.1 document of the whole REST API, built once at
start-up (it only changes with the models) and kept as the bytes that are served.

FastAPI's own generated document is off (``create_app``: ``openapi_url=None``): routes are
generated from the models at run time and validated by hand, so FastAPI's view of them would
be both empty of meaning and a leak of internal routes; this document is written from the
same Registry the routes are.
"""

from __future__ import annotations

from typing import Any

import orjson

from contentapi import __version__
from contentapi.config import Settings
from contentapi.openapi.content import content_type_paths
from contentapi.openapi.custom_routes import customized_paths
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.plugin_schemas import PLUGIN_SCHEMAS, user_request_schemas
from contentapi.openapi.plugins import plugin_paths
from contentapi.openapi.responses import ERROR_RESPONSES
from contentapi.rest.customize import RestCustomization
from contentapi.schema.builtin import USER_UID
from contentapi.schema.registry import Registry
from contentapi.users.register_fields import register_keys

__all__ = ["OPENAPI_VERSION", "build_openapi", "openapi_bytes"]

OPENAPI_VERSION = "3.1.0"

_DESCRIPTION = """\
The Strapi v4 Content API of this server's models: REST under `/api/:pluralApiId`, the \
users-permissions, upload and i18n plugins' routes, and the health probes.

Queries use Strapi's bracket syntax, as `qs.stringify(query, {encodeValuesOnly: true})` writes \
it: `filters[title][$containsi]=hello&sort[0]=title:asc&pagination[pageSize]=10&populate=*`. \
Every error has one shape: `{"data": null, "error": {status, name, message, details}}`.

Authenticate with `Authorization: Bearer <token>`: a user's JWT (`POST /api/auth/local`) or an \
API token. Without it a request acts as the `public` role.
"""

_SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "a user's JWT from `POST /api/auth/local` or `/api/auth/local/register`",
    },
    "apiToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "an API token (`read-only`, `full-access` or `custom`)",
    },
}


def build_openapi(
    registry: Registry, settings: Settings, customization: RestCustomization | None = None
) -> dict[str, Any]:
    """The document as a dict (``openapi-spec-validator`` checks it in the tests);
    ``customization``: extensions' custom routes and disabled core actions."""
    models = ModelSchemas(registry, settings.locale_codes)
    user = registry.content_types[USER_UID]
    registering = register_keys(user, settings.register_allowed_fields)
    tags = [
        {"name": content_type.display_name, "description": content_type.description or None}
        for content_type in registry.content_types.values()
        if not content_type.is_builtin
    ]
    tags += [
        {"name": "Users-Permissions"},
        {"name": "Upload"},
        {"name": "Internationalization"},
        {"name": "Health"},
    ]
    paths = content_type_paths(models)
    if customization is not None:
        paths = customized_paths(paths, registry, customization)
    paths = {**paths, **plugin_paths(models)}
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "contentapi",
            "version": __version__,
            "description": _DESCRIPTION,
        },
        "servers": [{"url": settings.public_url or "/"}],
        "security": [{}, {"bearerAuth": []}, {"apiToken": []}],
        "tags": [{k: v for k, v in tag.items() if v is not None} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": {
                **models.all(),
                **PLUGIN_SCHEMAS,
                **user_request_schemas(models, registering),
            },
            "responses": ERROR_RESPONSES,
            "securitySchemes": _SECURITY_SCHEMES,
        },
    }


def openapi_bytes(
    registry: Registry, settings: Settings, customization: RestCustomization | None = None
) -> bytes:
    """The served document, serialized once."""
    return orjson.dumps(build_openapi(registry, settings, customization))
