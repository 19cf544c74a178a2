"""Entries → Strapi v4 REST shapes: ``{id, attributes}`` with values rendered as Strapi does.

Renderers are resolved once per content type (a tuple of (name, render) pairs), so rendering a
page is one loop per entry with no per-value lookups by type.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from contentapi.schema.model import ContentType, ScalarAttribute
from contentapi.values import render_value

__all__ = ["RestSerializer"]

_SYSTEM_TYPES = {"createdAt": "datetime", "updatedAt": "datetime", "publishedAt": "datetime"}


class RestSerializer:
    """Renders entries of one content type for REST."""

    def __init__(self, content_type: ContentType) -> None:
        renderers: dict[str, Callable[[Any], Any]] = {}
        for attribute in content_type.attributes.values():
            if isinstance(attribute, ScalarAttribute):
                renderers[attribute.name] = partial(render_value, attribute.type)
        for name, kind in _SYSTEM_TYPES.items():
            renderers[name] = partial(render_value, kind)
        self._renderers = renderers

    def entry(self, entry: dict[str, Any]) -> dict[str, Any]:
        """``{id, attributes}`` of one entry."""
        renderers = self._renderers
        attributes = {
            name: (renderers[name](value) if name in renderers else value)
            for name, value in entry.items()
            if name != "id"
        }
        return {"id": entry["id"], "attributes": attributes}
