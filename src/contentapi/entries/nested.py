"""What an entry owns beyond its scalars — related ids, file ids, its component tree — read
through the same ``Populator`` as ``populate``: a full-depth populate tree over components,
with relations and media reduced to ids. Used to verify writes (tests) and by tooling.
"""

from __future__ import annotations

from typing import Any

from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    Populate,
    RelationPopulate,
)
from contentapi.schema.model import (
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["full_populate", "ids_only"]


def full_populate(registry: Registry, model: Model) -> Populate:
    """Every relation and media attribute (ids only) and every component, to any depth."""
    populate: Populate = {}
    for name, attribute in model.attributes.items():
        if isinstance(attribute, RelationAttribute):
            populate[name] = RelationPopulate(fields=("id",))
        elif isinstance(attribute, MediaAttribute):
            populate[name] = MediaPopulate(fields=())
        elif isinstance(attribute, ComponentAttribute):
            component = registry.components[attribute.component]
            populate[name] = ComponentPopulate(None, full_populate(registry, component))
        elif isinstance(attribute, DynamicZoneAttribute):
            on = {
                uid: ComponentPopulate(None, full_populate(registry, registry.components[uid]))
                for uid in attribute.components
            }
            populate[name] = DynamicZonePopulate(on=on)
    return populate


def ids_only(registry: Registry, model: Model, entry: dict[str, Any]) -> dict[str, Any]:
    """A populated entry with related entries and files replaced by their ids."""
    state: dict[str, Any] = {}
    for name, value in entry.items():
        attribute = model.attributes.get(name)
        if isinstance(attribute, RelationAttribute | MediaAttribute):
            state[name] = (
                [item["id"] for item in value]
                if isinstance(value, list)
                else (value["id"] if value is not None else None)
            )
        elif isinstance(attribute, ComponentAttribute | DynamicZoneAttribute):
            state[name] = _components(registry, attribute, value)
        else:
            state[name] = value
    return state


def _components(
    registry: Registry, attribute: ComponentAttribute | DynamicZoneAttribute, value: Any
) -> Any:
    if value is None:
        return None
    if isinstance(attribute, ComponentAttribute) and not attribute.repeatable:
        return ids_only(registry, registry.components[attribute.component], value)
    items = []
    for item in value:
        uid = item.get("__component", getattr(attribute, "component", None))
        items.append(ids_only(registry, registry.components[uid], item))
    return items
