"""The ``sort`` parameter → ``SortKey``s, in every form Strapi takes: ``title:desc``, comma
lists, arrays, objects (``sort[author][name]=asc``) and paths through relations and components
(``author.name:asc``). A name the caller may not read, an array attribute or a direction other
than ``asc``/``desc`` is a 400; a repeated key keeps its first direction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contentapi.errors import ValidationError
from contentapi.query.ast import SortKey
from contentapi.query.fields import invalid_parameter, scalar_field
from contentapi.query.parse.scope import ModelScope
from contentapi.query.parse.shapes import as_list, indexed
from contentapi.schema.model import ComponentAttribute, Model, RelationAttribute

__all__ = ["SortParser"]


class SortParser(ModelScope):
    """``sort`` of any model of the registry, for one caller."""

    __slots__ = ()

    def sort(self, model: Model, value: Any) -> tuple[SortKey, ...]:
        keys: list[SortKey] = []
        items = [value] if isinstance(value, Mapping) and not indexed(value) else as_list(value)
        if any(isinstance(i, str) for i in items) and any(isinstance(i, Mapping) for i in items):
            # Strapi reads an array mixing strings and objects (`sort[0]=title&sort[1][views]=
            # desc`) as an object, whose first key "0" is no attribute.
            raise invalid_parameter("0")
        for item in items:
            if isinstance(item, str):
                for part in item.split(","):
                    if part.strip():
                        keys.append(self._sort_text(model, part.strip()))
            elif isinstance(item, Mapping):
                keys.extend(self._sort_object(model, item, ()))
            else:
                raise ValidationError("Invalid sort parameter")
        unique: dict[tuple[tuple[str, ...], str], SortKey] = {}
        for key in keys:  # `sort[0]=title:asc&sort[1]=title:desc`: the first one wins
            unique.setdefault((key.path, key.column), key)
        return tuple(unique.values())

    def _sort_text(self, model: Model, text: str) -> SortKey:
        name, _, direction = text.partition(":")
        return self._sort_key(model, tuple(name.split(".")), direction or "asc")

    def _sort_object(
        self, model: Model, value: Mapping[str, Any], prefix: tuple[str, ...]
    ) -> list[SortKey]:
        keys: list[SortKey] = []
        for name, direction in value.items():
            if isinstance(direction, Mapping):
                keys.extend(self._sort_object(model, direction, (*prefix, name)))
            elif isinstance(direction, str):
                keys.append(self._sort_key(model, (*prefix, name), direction))
            else:
                raise ValidationError("Invalid sort parameter")
        return keys

    def _sort_key(self, model: Model, path: tuple[str, ...], direction: str) -> SortKey:
        lowered = direction.strip().lower()
        if lowered not in ("asc", "desc"):
            raise ValidationError(f"Invalid sort direction {direction!r}: use asc or desc")
        current = model
        for step in path[:-1]:
            attribute = current.attributes.get(step)
            if (
                isinstance(attribute, RelationAttribute)
                and not attribute.private
                and self._readable(attribute)
            ):
                current = self.registry.content_types[attribute.target]
            elif isinstance(attribute, ComponentAttribute) and not attribute.private:
                current = self.registry.components[attribute.component]
            else:
                raise invalid_parameter(step)
        field = scalar_field(current, path[-1])
        if field is None:
            raise invalid_parameter(path[-1])
        if field.kind == "array":
            raise ValidationError(f"Cannot sort on {field.kind} attribute {path[-1]}")
        return SortKey(path[:-1], field.column, field.kind, lowered == "desc")
