"""Extensions' REST customization in the OpenAPI document: their custom routes as operations
(path parameters typed, the answer's schema when the handler declares one as its
``response_schema`` attribute, a JSON Schema), and the core operations a core router does not
serve left out (``rest/customize.py``)."""

from __future__ import annotations

from typing import Any

from contentapi.openapi.responses import json_ok, operation
from contentapi.rest.customize import RestCustomization
from contentapi.schema.registry import Registry

__all__ = ["customized_paths"]

Schema = dict[str, Any]

_TYPES = {int: "integer", float: "number", str: "string"}
#: a core operation's (method, document path suffix, action)
_COLLECTION = (
    ("get", "", "find"),
    ("post", "", "create"),
    ("get", "/{id}", "findOne"),
    ("put", "/{id}", "update"),
    ("delete", "/{id}", "delete"),
    ("post", "/{id}/localizations", "createLocalization"),
)
_SINGLE = (
    ("get", "", "find"),
    ("put", "", "update"),
    ("delete", "", "delete"),
    ("post", "/localizations", "createLocalization"),
)


def customized_paths(
    paths: dict[str, Schema], registry: Registry, customization: RestCustomization
) -> dict[str, Schema]:
    """``paths`` without the disabled core operations, with the custom routes added."""
    paths = {path: dict(item) for path, item in paths.items()}
    for content_type in registry.content_types.values():
        if content_type.is_builtin:
            continue
        base = (
            f"/api/{content_type.singular_name}"
            if content_type.is_single
            else f"/api/{content_type.plural_name}"
        )
        for method, suffix, action in _SINGLE if content_type.is_single else _COLLECTION:
            item = paths.get(base + suffix)
            if item is not None and not customization.enabled(content_type.uid, action):
                item.pop(method, None)
                if not any(key != "parameters" for key in item):
                    del paths[base + suffix]
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
