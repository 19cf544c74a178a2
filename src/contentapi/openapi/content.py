"""The routes ``rest/router.py`` generates for each content type, as OpenAPI path items:
collection types (find, findOne, create, update, delete, and createLocalization where i18n is
on) and single types (find, update, delete, and createLocalization where i18n is on)."""

from __future__ import annotations

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.parameters import entry_parameters, list_parameters
from contentapi.openapi.responses import json_body, json_ok, operation, path_id
from contentapi.schema.model import ContentType

__all__ = ["content_type_paths"]


def _collection(content_type: ContentType, models: ModelSchemas) -> dict[str, Schema]:
    uid, plural = content_type.uid, content_type.plural_name
    tag, name = content_type.display_name, content_type.display_name
    locales = models.locales
    entry = entry_parameters(content_type, locales)
    single = json_ok(models.ref(f"{uid}#response"))
    paths: dict[str, Schema] = {
        f"/api/{plural}": {
            "get": operation(
                f"List {plural}",
                f"{plural}.find",
                tag,
                ok=json_ok(models.ref(f"{uid}#list")),
                errors=(400,),
                parameters=list_parameters(content_type, locales),
                permission=f"{uid}.find",
            ),
            "post": operation(
                f"Create {name}",
                f"{plural}.create",
                tag,
                ok=single,
                errors=(400, 413),
                parameters=entry,
                body=json_body(models.ref(f"{uid}#create")),
                description="Published at once unless `publishedAt` is null (a draft).",
                permission=f"{uid}.create",
            ),
        },
        f"/api/{plural}/{{id}}": {
            "parameters": [path_id()],
            "get": operation(
                f"Get {name}",
                f"{plural}.findOne",
                tag,
                ok=single,
                errors=(400, 404),
                parameters=entry,
                permission=f"{uid}.findOne",
            ),
            "put": operation(
                f"Update {name}",
                f"{plural}.update",
                tag,
                ok=single,
                errors=(400, 404, 413),
                parameters=entry,
                body=json_body(models.ref(f"{uid}#update")),
                description="Only the attributes sent change.",
                permission=f"{uid}.update",
            ),
            "delete": operation(
                f"Delete {name}",
                f"{plural}.delete",
                tag,
                ok=single,
                errors=(400, 404),
                parameters=entry,
                description="Answers the deleted entry.",
                permission=f"{uid}.delete",
            ),
        },
    }
    if content_type.localized:
        item = _localization(content_type, models, f"{plural}.createLocalization")
        paths[f"/api/{plural}/{{id}}/localizations"] = {"parameters": [path_id()], **item}
    return paths


def _localization(content_type: ContentType, models: ModelSchemas, operation_id: str) -> Schema:
    """``POST …/localizations``: the i18n plugin's route (``/api/P/:id/…`` or ``/api/S/…``)."""
    uid, name = content_type.uid, content_type.display_name
    source = "the single type's entry" if content_type.is_single else "the entry"
    return {
        "post": operation(
            f"Create a localization of {name}",
            operation_id,
            name,
            ok=json_ok(
                {
                    "type": "object",
                    "required": ["id", "locale", "localizations"],
                    "properties": {
                        "id": {"type": "integer"},
                        "locale": {"type": "string"},
                        "localizations": {"type": "array", "items": {"type": "object"}},
                    },
                    "description": "the new entry, flat (no `{id, attributes}`), with "
                    "the other entries of its group",
                }
            ),
            errors=(400, 404, 413),
            parameters=entry_parameters(content_type, models.locales),
            body=json_body(models.ref(f"{uid}#localization")),
            description=(
                f"Made from {source}. The body is the new locale's attributes, without a "
                "`data` envelope; non-localized attributes it lacks come from that entry, "
                "and the new entry's are then copied to its whole group."
            ),
            permission=f"{uid}.createLocalization",
        ),
    }


def _single(content_type: ContentType, models: ModelSchemas) -> dict[str, Schema]:
    uid, singular = content_type.uid, content_type.singular_name
    tag, name = content_type.display_name, content_type.display_name
    entry = entry_parameters(content_type, models.locales)
    single = json_ok(models.ref(f"{uid}#response"))
    paths: dict[str, Schema] = {
        f"/api/{singular}": {
            "get": operation(
                f"Get the {name}",
                f"{singular}.find",
                tag,
                ok=single,
                errors=(400, 404),
                parameters=entry,
                permission=f"{uid}.find",
            ),
            "put": operation(
                f"Create or update the {name}",
                f"{singular}.update",
                tag,
                ok=single,
                errors=(400, 413),
                parameters=entry,
                body=json_body(models.ref(f"{uid}#update")),
                description="Creates the entry when there is none (its required attributes "
                "are then needed).",
                permission=f"{uid}.update",
            ),
            "delete": operation(
                f"Delete the {name}",
                f"{singular}.delete",
                tag,
                ok=single,
                errors=(400, 404),
                parameters=entry,
                permission=f"{uid}.delete",
            ),
        }
    }
    if content_type.localized:
        item = _localization(content_type, models, f"{singular}.createLocalization")
        paths[f"/api/{singular}/localizations"] = item
    return paths


def content_type_paths(models: ModelSchemas) -> dict[str, Schema]:
    paths: dict[str, Schema] = {}
    for content_type in models.registry.content_types.values():
        if content_type.is_builtin:
            continue  # the plugins' routes (openapi/plugins.py)
        build = _single if content_type.is_single else _collection
        paths.update(build(content_type, models))
    return paths
