"""The nested write plan a validated body becomes: ``EntryWrite`` / ``ModelWrite`` (column
values, values to check for uniqueness, passwords to hash, relations, media ids, component
items, each itself a ``ModelWrite``), and ``label``, Strapi's name for a path in messages.

Apart from ``input.py``, which builds the plan, because the writer, the media store and the
entry service read it without needing any validation rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contentapi.entries.relations import RelationWrite
from contentapi.schema.model import (
    Component,
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    ScalarAttribute,
)

__all__ = [
    "ComponentFieldWrite",
    "ComponentItemWrite",
    "EntryWrite",
    "MediaWrite",
    "ModelWrite",
    "Path",
    "label",
]

Path = tuple[str | int, ...]


@dataclass(slots=True)
class MediaWrite:
    """The file ids a media attribute holds after the write, in order."""

    attribute: MediaAttribute
    ids: list[int]
    path: Path


@dataclass(slots=True)
class ComponentItemWrite:
    """One component row to create (``id`` None) or to update in place."""

    component: Component
    id: int | None
    write: ModelWrite
    path: Path


@dataclass(slots=True)
class ComponentFieldWrite:
    """The complete new content of a component or dynamic-zone attribute, in order."""

    attribute: ComponentAttribute | DynamicZoneAttribute
    items: list[ComponentItemWrite]
    path: Path


@dataclass(slots=True)
class ModelWrite:
    """A validated write of one entry or component row."""

    model: Model
    columns: dict[str, Any] = field(default_factory=dict)
    unique: list[tuple[ScalarAttribute, Any, Path]] = field(default_factory=list)
    #: column → plain password; hashed by the service off the event loop before storing.
    passwords: dict[str, str] = field(default_factory=dict)
    relations: dict[str, RelationWrite] = field(default_factory=dict)
    media: dict[str, MediaWrite] = field(default_factory=dict)
    components: dict[str, ComponentFieldWrite] = field(default_factory=dict)

    def walk(self) -> list[ModelWrite]:
        """This write and every nested component write, depth first."""
        found = [self]
        for field_write in self.components.values():
            for item in field_write.items:
                found.extend(item.write.walk())
        return found


@dataclass(slots=True)
class EntryWrite(ModelWrite):
    """A validated write of an entry: plus its locale (set at creation only)."""

    locale: str | None = None


def label(path: Path) -> str:
    """Strapi's name for a path in messages: ``links[0].url``, ``seo.metaTitle``."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text
