"""Entries → Strapi v4 REST shapes, populated attributes included.

- an entry: ``{id, attributes}``, scalar values rendered as Strapi does;
- a populated relation: ``{data: entry | null}`` (to-one) or ``{data: [entries]}`` (to-many);
- populated media: ``{data: file | null}``, ``{data: [files]}`` — and ``{data: null}`` for an
  empty multiple media field, as Strapi 4.25 answers;
- a component: the object itself (``id`` and its attributes), no ``data`` wrapper;
- a dynamic zone: a list of such objects, each with ``__component``.

Renderers are resolved once per model, so rendering is one dictionary lookup per value.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from contentapi.query.parse import LOCALIZATIONS
from contentapi.query.populate import RelationCount
from contentapi.schema.builtin import FILE_UID, ROLE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from contentapi.values import renderer_for

__all__ = ["RestSerializer"]

Render = Callable[[Any], Any]
#: Strapi's users-permissions plugin removes a role's users from every content-API answer
#: (its `content-api.output` sanitizer): `/api/users?populate[role][populate]=users` answers
#: the role without them. Filters through them still apply.
_ROLE_USERS = ("users",)
_SYSTEM_TYPES = {"createdAt": "datetime", "updatedAt": "datetime", "publishedAt": "datetime"}


class RestSerializer:
    """Renders entries of every model of a registry for REST."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._renderers: dict[str, dict[str, Render]] = {}

    # ------------------------------------------------------------ public

    def entry(self, model: ContentType, entry: dict[str, Any]) -> dict[str, Any]:
        """``{id, attributes}`` of one entry."""
        return {"id": entry["id"], "attributes": self._attributes(model, entry)}

    def entries(self, model: ContentType, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.entry(model, entry) for entry in entries]

    def plain(self, model: Model, entry: dict[str, Any]) -> dict[str, Any]:
        """The users-permissions shape: ``{id, ...attributes}`` at every depth — relations and
        media as plain objects or lists, a relation count as ``{count}`` (``GET /api/users``,
        ``/api/users/me``, register and login answers; Strapi's user controllers answer the
        entity service's objects without the REST transform)."""
        result: dict[str, Any] = {"id": entry["id"]} if "id" in entry else {}
        hidden = _ROLE_USERS if model.uid == ROLE_UID else ()
        for name, value in entry.items():
            if name != "id" and name not in hidden:
                result[name] = self._plain_value(model, name, value)
        return result

    def _plain_value(self, model: Model, name: str, value: Any) -> Any:
        attribute = model.attributes.get(name)
        if isinstance(value, RelationCount):
            return {"count": value.count}
        target: Model | None = None
        if isinstance(attribute, RelationAttribute):
            target = self.registry.content_types[attribute.target]
        elif isinstance(attribute, MediaAttribute):
            target = self.registry.content_types[FILE_UID]
        elif isinstance(attribute, ComponentAttribute):
            target = self.registry.components[attribute.component]
        elif name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
            target = model
        elif isinstance(attribute, DynamicZoneAttribute):
            # ``__component`` first, as Strapi's database layer returns a zone's items
            return [
                {
                    "__component": item["__component"],
                    **self.plain(self.registry.components[item["__component"]], item),
                }
                for item in value or []
            ]
        if target is not None:
            if value is None:
                return None
            if isinstance(value, list):
                if not value and isinstance(attribute, MediaAttribute):
                    return None  # an empty multiple media field, as in REST's ``{data: null}``
                return [self.plain(target, item) for item in value]
            return self.plain(target, value)
        renderers = self._renderers_of(model)
        return renderers[name](value) if name in renderers else value

    # ------------------------------------------------------------ internals

    def _attributes(self, model: Model, entry: dict[str, Any]) -> dict[str, Any]:
        renderers = self._renderers_of(model)
        attributes = dict(entry)
        del attributes["id"]
        for name, render in renderers.items():  # only the values that need rendering
            if name in attributes:
                attributes[name] = render(attributes[name])
        return attributes

    def _renderers_of(self, model: Model) -> dict[str, Render]:
        found = self._renderers.get(model.uid)
        if found is None:
            found = self._build(model)
            self._renderers[model.uid] = found
        return found

    def _build(self, model: Model) -> dict[str, Render]:
        renderers: dict[str, Render] = {}
        for name, attribute in model.attributes.items():
            if isinstance(attribute, ScalarAttribute):
                render = renderer_for(attribute.type)
                if render is not None:
                    renderers[name] = render
            elif isinstance(attribute, RelationAttribute):
                target = self.registry.content_types[attribute.target]
                renderers[name] = partial(self._relation, target, attribute.is_to_many)
            elif isinstance(attribute, MediaAttribute):
                renderers[name] = partial(self._media, attribute.multiple)
            elif isinstance(attribute, ComponentAttribute):
                component = self.registry.components[attribute.component]
                renderers[name] = partial(self._component_field, component)
            elif isinstance(attribute, DynamicZoneAttribute):
                renderers[name] = self._zone
        for name, kind in _SYSTEM_TYPES.items():
            system_render = renderer_for(kind)
            assert system_render is not None
            renderers[name] = system_render
        if isinstance(model, ContentType) and model.localized:
            renderers[LOCALIZATIONS] = partial(self._relation, model, True)
        return renderers

    def _relation(self, target: ContentType, to_many: bool, value: Any) -> dict[str, Any]:
        if isinstance(value, RelationCount):
            return {"data": {"attributes": {"count": value.count}}}
        if to_many:
            return {"data": [self.entry(target, item) for item in value or []]}
        return {"data": self.entry(target, value) if value is not None else None}

    def _media(self, multiple: bool, value: Any) -> dict[str, Any]:
        files = self.registry.content_types[FILE_UID]
        if multiple:
            return {"data": [self.entry(files, item) for item in value] if value else None}
        return {"data": self.entry(files, value) if value is not None else None}

    def _component(self, item: dict[str, Any]) -> dict[str, Any]:
        uid = item.get("__component")
        component = self.registry.components[uid] if uid else None
        return item if component is None else self._inline(component, item)

    def _inline(self, component: Model, item: dict[str, Any]) -> dict[str, Any]:
        renderers = self._renderers_of(component)
        return {
            name: (renderers[name](value) if name in renderers else value)
            for name, value in item.items()
        }

    def _component_field(self, component: Model, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, list):
            return [self._inline(component, item) for item in value]
        return self._inline(component, value)

    def _zone(self, value: Any) -> list[dict[str, Any]]:
        return [self._component(item) for item in value or []]
