"""Extensions' REST customization in the OpenAPI document: their custom routes as operations
(path parameters typed, the answer's schema when the handler declares one as its
``response_schema`` attribute, a JSON Schema), and the core operations a core router does not
serve left out (``rest/customize.py``)."""

from __future__ import annotations

from typing import Any

from contentapi.openapi.responses import json_ok, operation
from contentapi.rest.core_routes import core_routes
from contentapi.rest.customize import RestCustomization
from contentapi.schema.registry import Registry

__all__ = ["customized_paths"]

Schema = dict[str, Any]

_TYPES = {int: "integer", float: "number", str: "string"}


def customized_paths(
    paths: dict[str, Schema], registry: Registry, customization: RestCustomization
) -> dict[str, Schema]:
    """``paths`` without the disabled core operations, with the custom routes added."""
    paths = {path: dict(item) for path, item in paths.items()}
    for content_type in registry.content_types.values():
        for core in core_routes(content_type):
            # the document names the entry's id `id`
            path = "/api" + core.path.replace("{entry_id}", "{id}")
            item = paths.get(path)
            if item is not None and not customization.enabled(content_type.uid, core.action):
                item.pop(core.method.lower(), None)
                if not any(key != "parameters" for key in item):
                    del paths[path]
    for route in customization.routes:
        content_type = registry.content_types[route.uid]
        declared = getattr(route.handler, "response_schema", None)
        parameters = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": {"type": _TYPES[kind]},
            }
            for name, kind in route.parameters.items()
        ]
        rules = customization.route_rules(route)
        summary = (route.handler.__doc__ or "").strip().split("\n")[0] or route.name
        paths.setdefault(f"/api{route.path}", {})[route.method.lower()] = operation(
            summary,
            route.action,
            content_type.display_name,
            ok=json_ok(declared if isinstance(declared, dict) else {"type": "object"}),
            errors=(400,),
            parameters=parameters or None,
            permission=None if rules.auth is False else route.action,
            description=f"A custom route of extension `{route.source}`.",
        )
    return paths
