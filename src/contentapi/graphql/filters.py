"""GraphQL ``…FiltersInput`` values → the REST ``filters`` object, for the one filter parser.

Strapi's ``graphQLFiltersToStrapiQuery`` does the same: operators gain their ``$`` (``eq`` →
``$eq``, ``and`` → ``$and``) and relation or component keys recurse into the target's filters.
The REST parser then applies every rule (visibility, operators per type, value coercion), so a
filter means the same in both protocols.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contentapi.query.parse import LOCALIZATIONS
from contentapi.schema.model import ComponentAttribute, ContentType, Model, RelationAttribute
from contentapi.schema.registry import Registry

__all__ = ["to_rest_filters"]

_LOGICAL = ("and", "or")


def to_rest_filters(registry: Registry, model: Model, value: Mapping[str, Any]) -> dict[str, Any]:
    """``{title: {eq: "x"}, author: {name: {in: [..]}}, or: [...]}`` → ``{title: {$eq: "x"},
    author: {name: {$in: [..]}}, $or: [...]}``."""
    rest: dict[str, Any] = {}
    for key, node in value.items():
        if key in _LOGICAL:
            rest[f"${key}"] = [
                to_rest_filters(registry, model, item) for item in node or () if item is not None
            ]
        elif key == "not":
            if node is not None:
                rest["$not"] = to_rest_filters(registry, model, node)
        else:
            target = _target(registry, model, key)
            if node is None:
                # Strapi: `{title: null}` is `title IS NULL` (as `{title: {eq: null}}`); a null
                # relation or component (`{tags: null}`) is no condition
                if target is None:
                    rest[key] = {"$eq": None}
                continue
            rest[key] = (
                to_rest_filters(registry, target, node) if target is not None else _operators(node)
            )
    return rest


def _target(registry: Registry, model: Model, key: str) -> Model | None:
    if key == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
        return model
    attribute = model.attributes.get(key)
    if isinstance(attribute, RelationAttribute):
        return registry.content_types[attribute.target]
    if isinstance(attribute, ComponentAttribute):
        return registry.components[attribute.component]
    return None


def _operators(node: Mapping[str, Any]) -> dict[str, Any]:
    """A scalar ``…FilterInput``: ``{eq: 1, not: {in: [2]}}`` → ``{$eq: 1, $not: {$in: [2]}}``."""
    rest: dict[str, Any] = {}
    for operator, operand in node.items():
        if operator == "not" and isinstance(operand, Mapping):
            rest["$not"] = _operators(operand)
        elif operator in _LOGICAL:
            rest[f"${operator}"] = [{"$eq": item} for item in operand or ()]
        else:
            rest[f"${operator}"] = operand
    return rest
