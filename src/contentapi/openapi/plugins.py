"""The plugins' routes as OpenAPI path items: upload (``upload/routes.py``), i18n
(``i18n/routes.py``), the health probes (``health.py``) and the index (``index.py``), with the
users-permissions ones of ``users_paths.py``: ``plugin_paths``.

Their bodies and answers are Strapi's plain shapes (``plugin_schemas.py``): no ``data``
envelope, files as ``{id, ...attributes}``, lists as plain arrays.
"""

from __future__ import annotations

from typing import Any

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.responses import item_path, json_ok, operation, plain_list
from contentapi.openapi.shared_schemas import one_property, ref_to
from contentapi.openapi.users_paths import users_paths
from contentapi.schema.builtin import FILE_UID

__all__ = ["plugin_paths"]

_UPLOAD_TAG = "Upload"


def _upload_operation(summary: str, action: str, **parts: Any) -> Schema:
    """An upload operation: its id is ``upload.<action>``, its permission the action of the
    plugin's content API, its tag the plugin's."""
    permission = f"plugin::upload.content-api.{action}"
    return operation(summary, f"upload.{action}", _UPLOAD_TAG, permission=permission, **parts)


def _upload(models: ModelSchemas) -> dict[str, Schema]:
    file = ref_to(models.name(f"{FILE_UID}#plain"))
    return {
        "/api/upload": {
            "post": _upload_operation(
                "Upload files",
                "upload",
                ok=json_ok({"type": "array", "items": file}),
                errors=(400, 404, 413),
                body={
                    "required": True,
                    "content": {"multipart/form-data": {"schema": ref_to("UploadRequest")}},
                },
                description=(
                    "Images get `thumbnail`, `small`, `medium` and `large` formats where the "
                    "original is larger; `ref`, `refId` and `field` attach the files to an entry."
                ),
            )
        },
        "/api/upload/files": {
            "get": _upload_operation(
                "List files",
                "find",
                **plain_list(file),
            )
        },
        "/api/upload/files/{id}": item_path(
            "file",
            get=_upload_operation("Get a file", "findOne", ok=json_ok(file), errors=(404,)),
            delete=_upload_operation(
                "Delete a file (its bytes and attachments too)",
                "destroy",
                ok=json_ok(file),
                errors=(404,),
            ),
        ),
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
                "200": json_ok(one_property("status", {"const": "ready"})),
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
