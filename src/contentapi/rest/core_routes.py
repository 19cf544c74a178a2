"""The core REST routes of a content type, as one table: method, path and action. The router
serves them, an extension's core router leaves some out, the OpenAPI document lists them and
custom routes must not collide with them — all read it here."""

from __future__ import annotations

from dataclasses import dataclass

from contentapi.schema.model import ContentType

__all__ = ["CoreRoute", "core_routes"]


@dataclass(frozen=True, slots=True)
class CoreRoute:
    method: str
    #: the path under ``/api`` (FastAPI's syntax, the entry's id as ``{entry_id}``)
    path: str
    action: str


def core_routes(content_type: ContentType) -> tuple[CoreRoute, ...]:
    """Every core route of ``content_type`` (none for a built-in type)."""
    if content_type.is_builtin:
        return ()
    if content_type.is_single:
        base = f"/{content_type.singular_name}"
        routes = [
            CoreRoute("GET", base, "find"),
            CoreRoute("PUT", base, "update"),
            CoreRoute("DELETE", base, "delete"),
        ]
        if content_type.localized:
            routes.append(CoreRoute("POST", f"{base}/localizations", "createLocalization"))
        return tuple(routes)
    base = f"/{content_type.plural_name}"
    item = f"{base}/{{entry_id}}"
    routes = [
        CoreRoute("GET", base, "find"),
        CoreRoute("POST", base, "create"),
        CoreRoute("GET", item, "findOne"),
        CoreRoute("PUT", item, "update"),
        CoreRoute("DELETE", item, "delete"),
    ]
    if content_type.localized:
        routes.append(CoreRoute("POST", f"{item}/localizations", "createLocalization"))
    return tuple(routes)
