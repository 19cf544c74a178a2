"""The routes ``rest/router.py`` generates for each content type, as OpenAPI path items:
collection types (find, findOne, create, update, delete, and createLocalization where i18n is
on), single types (find, update, delete, and createLocalization where i18n is on), and the
event stream of each."""

from __future__ import annotations

from contentapi.openapi.attributes import Schema
from contentapi.openapi.models import ModelSchemas
from contentapi.openapi.parameters import entry_parameters, list_parameters
from contentapi.openapi.responses import json_body, json_ok, operation, path_id
from contentapi.schema.model import ContentType

__all__ = ["content_type_paths"]


def _entry_operation(
    content_type: ContentType,
    models: ModelSchemas,
    route: str,
    action: str,
    summary: str,
    errors: tuple[int, ...],
    *,
    body: str | None = None,
    description: str | None = None,
) -> Schema:
    """A route that answers one entry (every route but the list and the localization one):
    its id, tag, answer, parameters and permission all follow from the type and the action,
    so each route states only its summary, errors, body and description."""
    uid = content_type.uid
    return operation(
        summary,
        f"{route}.{action}",
        content_type.display_name,
        ok=json_ok(models.ref(f"{uid}#response")),
        errors=errors,
        parameters=entry_parameters(content_type, models.locales),
        body=json_body(models.ref(f"{uid}#{body}")) if body else None,
        description=description,
        permission=f"{uid}.{action}",
    )


def _collection(content_type: ContentType, models: ModelSchemas) -> dict[str, Schema]:
    uid, plural, name = content_type.uid, content_type.plural_name, content_type.display_name

    def entry(action: str, summary: str, errors: tuple[int, ...], **more: str) -> Schema:
        return _entry_operation(content_type, models, plural, action, summary, errors, **more)

    paths: dict[str, Schema] = {
        f"/api/{plural}": {
            "get": operation(
                f"List {plural}",
                f"{plural}.find",
                name,
                ok=json_ok(models.ref(f"{uid}#list")),
                errors=(400,),
                parameters=list_parameters(content_type, models.locales),
                permission=f"{uid}.find",
            ),
            "post": entry(
                "create",
                f"Create {name}",
                (400, 413),
                body="create",
                description="Published at once unless `publishedAt` is null (a draft).",
            ),
        },
        f"/api/{plural}/{{id}}": {
            "parameters": [path_id()],
            "get": entry("findOne", f"Get {name}", (400, 404)),
            "put": entry(
                "update",
                f"Update {name}",
                (400, 404, 413),
                body="update",
                description="Only the attributes sent change.",
            ),
            "delete": entry(
                "delete", f"Delete {name}", (400, 404), description="Answers the deleted entry."
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


def _events(content_type: ContentType, models: ModelSchemas, path: str) -> dict[str, Schema]:
    """``GET /api/P/events``: the type's changes as server-sent events (``docs/events.md``)."""
    name = content_type.display_name
    resume: Schema = {
        "name": "Last-Event-ID",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "the last event id received: what came after it is sent first",
    }
    stream: Schema = {
        "description": "a stream of `id:`, `event:` (`entry.create`, `entry.update`, "
        "`entry.delete`, …) and `data:` lines, the data an entry as `GET` of one answers it",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
    return {
        f"/api/{path}/events": {
            "get": operation(
                f"Changes of {name} as server-sent events",
                f"{path}.events",
                name,
                ok=stream,
                errors=(400,),
                parameters=[*list_parameters(content_type, models.locales), resume],
                description="Each committed create, update and delete, from every server; "
                "`filters`, `fields`, `populate`, `locale` and `publicationState` shape and "
                "filter the entries sent. Ends with an `error` event when the caller may no "
                "longer read the type or does not keep up.",
                permission=f"{content_type.uid}.find",
            )
        }
    }


def _single(content_type: ContentType, models: ModelSchemas) -> dict[str, Schema]:
    singular, name = content_type.singular_name, content_type.display_name

    def entry(action: str, summary: str, errors: tuple[int, ...], **more: str) -> Schema:
        return _entry_operation(content_type, models, singular, action, summary, errors, **more)

    paths: dict[str, Schema] = {
        f"/api/{singular}": {
            "get": entry("find", f"Get the {name}", (400, 404)),
            "put": entry(
                "update",
                f"Create or update the {name}",
                (400, 413),
                body="update",
                description="Creates the entry when there is none (its required attributes "
                "are then needed).",
            ),
            "delete": entry("delete", f"Delete the {name}", (400, 404)),
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
        name = content_type.singular_name if content_type.is_single else content_type.plural_name
        paths.update(_events(content_type, models, name))
    return paths
