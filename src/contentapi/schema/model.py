"""Typed, immutable content-type models: the vocabulary every other stage speaks.

A model file becomes a ``ContentType`` or ``Component`` holding ``Attribute`` variants.
Relations are resolved to their storage (``RelationLink``) once, in the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "SCALAR_TYPES",
    "Attribute",
    "Component",
    "ComponentAttribute",
    "ContentType",
    "DynamicZoneAttribute",
    "MediaAttribute",
    "Model",
    "RelationAttribute",
    "RelationKind",
    "RelationLink",
    "ScalarAttribute",
]

RelationKind = Literal["oneToOne", "oneToMany", "manyToOne", "manyToMany"]

#: Attribute types that live in a column of the entry's own table.
SCALAR_TYPES = frozenset(
    {
        "string",
        "text",
        "richtext",
        "enumeration",
        "email",
        "password",
        "uid",
        "date",
        "time",
        "datetime",
        "timestamp",
        "integer",
        "biginteger",
        "float",
        "decimal",
        "boolean",
        "array",
        "json",
        "blocks",
    }
)


@dataclass(frozen=True, slots=True)
class ScalarAttribute:
    """A value stored in one column: every type of ``SCALAR_TYPES``."""

    name: str
    type: str
    column: str
    required: bool = False
    unique: bool = False
    private: bool = False
    has_default: bool = False
    default: Any = None
    min: float | int | None = None
    max: float | int | None = None
    min_length: int | None = None
    max_length: int | None = None
    regex: str | None = None
    enum: tuple[str, ...] = ()
    target_field: str | None = None
    localized: bool = True
    #: ``pluginOptions.contentapi.index``: a database index on the column (db/tables.py)
    indexed: bool = False
    #: the custom field's uid (``"type": "customField"``) whose underlying type is ``type``
    custom_field: str | None = None


@dataclass(frozen=True, slots=True)
class RelationAttribute:
    """A relation to entries of ``target``; the owning side holds the link table."""

    name: str
    relation: RelationKind
    target: str
    inversed_by: str | None = None
    mapped_by: str | None = None
    private: bool = False
    required: bool = False
    localized: bool = True
    type: str = "relation"

    @property
    def is_owner(self) -> bool:
        return self.mapped_by is None

    @property
    def is_to_many(self) -> bool:
        return self.relation in ("oneToMany", "manyToMany")

    @property
    def is_bidirectional(self) -> bool:
        return self.inversed_by is not None or self.mapped_by is not None


@dataclass(frozen=True, slots=True)
class MediaAttribute:
    """One file (``multiple`` false) or an ordered list of files, via ``files_related_morphs``."""

    name: str
    multiple: bool = False
    allowed_types: tuple[str, ...] = ()
    required: bool = False
    private: bool = False
    localized: bool = True
    type: str = "media"


@dataclass(frozen=True, slots=True)
class ComponentAttribute:
    """A single or repeatable component, stored in its own table via ``<table>_components``."""

    name: str
    component: str
    repeatable: bool = False
    required: bool = False
    private: bool = False
    min: int | None = None
    max: int | None = None
    localized: bool = True
    type: str = "component"


@dataclass(frozen=True, slots=True)
class DynamicZoneAttribute:
    """An ordered list of items, each one of the allowed ``components``."""

    name: str
    components: tuple[str, ...]
    required: bool = False
    private: bool = False
    min: int | None = None
    max: int | None = None
    localized: bool = True
    type: str = "dynamiczone"


Attribute = (
    ScalarAttribute | RelationAttribute | MediaAttribute | ComponentAttribute | DynamicZoneAttribute
)
#: An attribute whose value is rows of another model (``Registry.target``): a relation's
#: entries, a component's rows — what a filter reaches through to that model's fields.
NestingAttribute = RelationAttribute | ComponentAttribute


@dataclass(frozen=True, slots=True)
class RelationLink:
    """Where one side of a relation is stored, seen from that side.

    ``source_column`` holds this side's id, ``target_column`` the related entry's id;
    ``order_column`` orders the related entries of one source entry (to-many sides only);
    ``inverse_order_column`` is the order kept for the other side. ``source_to_one``: an entry
    of this side has at most one related entry; ``target_to_one``: a related entry belongs to
    at most one entry of this side (connecting it takes it away from its previous owner).
    """

    table: str
    source_column: str
    target_column: str
    order_column: str | None
    inverse_order_column: str | None
    owner: bool
    source_to_one: bool = False
    target_to_one: bool = False


@dataclass(frozen=True, slots=True)
class ContentType:
    """A collection or single type: one table, one REST resource."""

    uid: str
    kind: Literal["collectionType", "singleType"]
    table: str
    singular_name: str
    plural_name: str
    display_name: str
    attributes: dict[str, Attribute]
    source: Path
    draft_and_publish: bool = True
    localized: bool = False
    populate_creator_fields: bool = False
    description: str = ""
    links: dict[str, RelationLink] = field(default_factory=dict)
    #: ``pluginOptions.contentapi.indexes``: multi-column indexes, each its columns in order
    indexes: tuple[tuple[str, ...], ...] = ()
    #: ``pluginOptions.contentapi.cache``: the ``Cache-Control`` lifetimes this type's reads
    #: override, by directive (``max_age``, ``s_maxage``, ``stale_while_revalidate``; seconds,
    #: ``None``: not sent); only the keys the model gives (``http/conditional.py``)
    cache: dict[str, int | None] = field(default_factory=dict)

    @property
    def is_single(self) -> bool:
        return self.kind == "singleType"

    @property
    def is_builtin(self) -> bool:
        """A plugin's own model (users, roles, permissions): no generic REST routes."""
        return self.uid.startswith("plugin::")

    @property
    def api_name(self) -> str:
        """The ``<name>`` of ``api::<name>.<name>``, used in permission actions."""
        return self.uid.split("::", 1)[1].split(".", 1)[0]

    def scalars(self) -> list[ScalarAttribute]:
        return [a for a in self.attributes.values() if isinstance(a, ScalarAttribute)]


@dataclass(frozen=True, slots=True)
class Component:
    """A reusable group of attributes, ``<category>.<name>``."""

    uid: str
    category: str
    name: str
    table: str
    display_name: str
    attributes: dict[str, Attribute]
    source: Path
    links: dict[str, RelationLink] = field(default_factory=dict)

    @property
    def singular_name(self) -> str:
        return self.name

    def scalars(self) -> list[ScalarAttribute]:
        return [a for a in self.attributes.values() if isinstance(a, ScalarAttribute)]


Model = ContentType | Component
