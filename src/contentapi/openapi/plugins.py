"""The plugins' routes as OpenAPI path items: upload (``upload/routes.py``), i18n
(``i18n/routes.py``), the health probes (``health.py``) and the index (``index.py``), with the
users-permissions ones of ``users_paths.py``: ``plugin_paths``.

Their bodies and answers are Strapi's plain shapes (``plugin_schemas.py``): no ``data``
envelope, files as ``{id, ...attributes}``, lists as plain arrays.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.parameters import PLUGIN_LIST_QUERY
from contentapi.openapi.responses import json_ok, operation, path_id
from contentapi.openapi.shared_schemas import ref_to
from contentapi.openapi.users_paths import users_paths
from contentapi.schema.builtin import FILE_UID

__all__ = ["plugin_paths"]

_UPLOAD_TAG = "Upload"


def _upload(models: ModelSchemas) -> dict[str, Schema]:
    file = ref_to(models.name(f"{FILE_UID}#plain"))
    upload = "plugin::upload.content-api"
    return {
        "/api/upload": {
            "post": operation(
                "Upload files",
                "upload.upload",
                _UPLOAD_TAG,
                ok=json_ok({"type": "array", "items": file}),
                errors=(400, 404, 413),
                body={
                    "required": True,
                    "content": {"multipart/form-data": {"schema": ref_to("UploadRequest")}},
                },
                permission=f"{upload}.upload",
                description=(
                    "Images get `thumbnail`, `small`, `medium` and `large` formats where the "
                    "original is larger; `ref`, `refId` and `field` attach the files to an entry."
                ),
            )
        },
        "/api/upload/files": {
            "get": operation(
                "List files",
                "upload.find",
                _UPLOAD_TAG,
                ok=json_ok({"type": "array", "items": file}),
                errors=(400,),
                parameters=PLUGIN_LIST_QUERY,
                permission=f"{upload}.find",
            )
        },
        "/api/upload/files/{id}": {
            "parameters": [path_id(description="the file's id")],
            "get": operation(
                "Get a file",
                "upload.findOne",
                _UPLOAD_TAG,
                ok=json_ok(file),
                errors=(404,),
                permission=f"{upload}.findOne",
            ),
            "delete": operation(
                "Delete a file (its bytes and attachments too)",
                "upload.destroy",
                _UPLOAD_TAG,
                ok=json_ok(file),
                errors=(404,),
                permission=f"{upload}.destroy",
            ),
        },
    }


_I18N: dict[str, Schema] = {
    "/api/i18n/locales": {
        "get": operation(
            "List locales",
            "i18n.listLocales",
            "Internationalization",
            ok=json_ok({"type": "array", "items": ref_to("Locale")}),
            errors=(),
            permission="plugin::i18n.locales.listLocales",
        )
    }
}

_HEALTH: dict[str, Schema] = {
    "/_health": {
        "get": {
            "summary": "Liveness: the process serves",
            "operationId": "health",
            "tags": ["Health"],
            "security": [],
            "responses": {"204": {"description": "alive (no body)"}},
        }
    },
    "/_ready": {
        "get": {
            "summary": "Readiness: the database answers and its migrations are current",
            "operationId": "ready",
            "tags": ["Health"],
            "security": [],
            "responses": {
                "200": json_ok(
                    {
                        "type": "object",
                        "required": ["status"],
                        "properties": {"status": {"const": "ready"}},
                    }
                ),
                "503": {"$ref": "#/components/responses/ServiceUnavailable"},
            },
        }
    },
}


_NULLABLE_PATH = {"type": ["string", "null"]}

#: ``GET /`` (``index.py``): where the API, GraphQL and this documentation are
_INDEX: dict[str, Schema] = {
    "/": {
        "get": {
            "summary": "The server's index: where its API, GraphQL endpoint and documentation are",
            "operationId": "index",
            "tags": ["Health"],
            "security": [],
            "responses": {
                "200": json_ok(
                    {
                        "type": "object",
                        "required": ["name", "version", "api", "graphql", "documentation"],
                        "properties": {
                            "name": {"const": "contentapi"},
                            "version": {"type": "string"},
                            "api": {"type": "string"},
                            "graphql": _NULLABLE_PATH,
                            "documentation": _NULLABLE_PATH,
                            "uploads": _NULLABLE_PATH,
                        },
                    }
                )
            },
        }
    },
}


def plugin_paths(models: ModelSchemas) -> dict[str, Schema]:
    return {**users_paths(models), **_upload(models), **_I18N, **_HEALTH, **_INDEX}
