"""The typed read query: what every protocol hands to the entry service.

``parse.py`` builds these from a parsed query string, validated against the content type;
``compile.py`` and ``populate.py`` turn them into SQL. Nodes are frozen so that a query shape
can be cached and shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "VARIANT_MARK",
    "And",
    "Comparison",
    "ComponentPopulate",
    "DynamicZonePopulate",
    "Filter",
    "MediaPopulate",
    "MorphPopulate",
    "Not",
    "OffsetPagination",
    "Or",
    "PagePagination",
    "Pagination",
    "Populate",
    "PopulateNode",
    "PublicationState",
    "ReadQuery",
    "RelationPopulate",
    "SortKey",
    "Through",
    "attribute_of",
    "variant_key",
]

PublicationState = Literal["live", "preview"]


@dataclass(frozen=True, slots=True)
class PagePagination:
    page: int = 1
    page_size: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size

    @property
    def limit(self) -> int:
        return self.page_size


@dataclass(frozen=True, slots=True)
class OffsetPagination:
    start: int = 0
    limit: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return self.start


Pagination = PagePagination | OffsetPagination


# ---------------------------------------------------------------- filters


@dataclass(frozen=True, slots=True)
class Comparison:
    """``column <operator> value`` on the current table; ``value`` is already coerced."""

    column: str
    kind: str  # attribute type, for type-aware operators (string folding, JSON)
    operator: str
    value: Any
    #: the attribute type whose PostgreSQL text a string operator compares (``price[$eqi]``)
    text_of: str | None = None


@dataclass(frozen=True, slots=True)
class And:
    items: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class Not:
    item: Filter


@dataclass(frozen=True, slots=True)
class Through:
    """``filter`` holds for at least one related entry or component row (an ``EXISTS``).

    ``via`` is the model owning ``attribute``; ``target`` the uid of the related model.
    ``negated`` asks for no such row (``$null`` on a relation).
    """

    via: str
    attribute: str
    target: str
    filter: Filter | None
    negated: bool = False


Filter = Comparison | And | Or | Not | Through


# ---------------------------------------------------------------- sort


@dataclass(frozen=True, slots=True)
class SortKey:
    """Sort on ``column`` of the model reached through ``path`` (relation names, possibly empty)."""

    path: tuple[str, ...]
    column: str
    kind: str
    descending: bool = False


# ---------------------------------------------------------------- populate


@dataclass(frozen=True, slots=True)
class RelationPopulate:
    """Populate a relation: its entries' ``fields``, filtered, sorted, with their own populate."""

    fields: tuple[str, ...] | None = None
    filters: Filter | None = None
    sort: tuple[SortKey, ...] = ()
    populate: Populate = field(default_factory=dict)
    limit: int | None = None
    offset: int = 0
    count: bool = False  # answer only the number of related entries
    #: the related entries' own publication state (GraphQL's per-relation argument); ``None``
    #: follows the parent's, as REST populate does
    publication_state: PublicationState | None = None


@dataclass(frozen=True, slots=True)
class MediaPopulate:
    """Populate a media attribute: the files' ``fields``; ``filters`` leave out the files that
    do not match, ``sort`` orders a media list (ties, and no sort: the order attached)."""

    fields: tuple[str, ...] | None = None
    filters: Filter | None = None
    sort: tuple[SortKey, ...] = ()
    #: what to populate of the files themselves (GraphQL's ``cover { … related { … } }``)
    populate: Populate = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ComponentPopulate:
    """Populate a component attribute; ``populate`` applies to the component's own attributes.

    ``filters`` leave out the component rows that do not match (a single component becomes
    ``null``); ``sort`` orders a repeatable component's rows (ties, and no sort: their stored
    order, as Strapi's join order follows the sort).
    """

    fields: tuple[str, ...] | None = None
    populate: Populate = field(default_factory=dict)
    filters: Filter | None = None
    sort: tuple[SortKey, ...] = ()


@dataclass(frozen=True, slots=True)
class DynamicZonePopulate:
    """Populate a dynamic zone: ``shared`` for every component, or per component uid (``on``)."""

    shared: Populate = field(default_factory=dict)
    on: dict[str, ComponentPopulate] | None = None


@dataclass(frozen=True, slots=True)
class MorphPopulate:
    """The entries and components a file is attached to (the upload file's ``related``).

    ``on`` says what to read of each related model (by uid); related entries of other models
    are listed with their id only. Each loaded item carries its model's uid under ``__type``.
    """

    on: dict[str, ComponentPopulate] = field(default_factory=dict)


PopulateNode = (
    RelationPopulate | MediaPopulate | ComponentPopulate | DynamicZonePopulate | MorphPopulate
)
#: populate keys: an attribute's name, or ``name#n`` for another reading of the same attribute
#: (GraphQL aliases with other arguments or sub-fields), attached to the entries under that key
Populate = dict[str, PopulateNode]

#: separates an attribute's name from a variant's number in a populate key (never in a name)
VARIANT_MARK = "#"


def variant_key(name: str, number: int) -> str:
    """The populate key of the ``number``-th further reading of attribute ``name``."""
    return name if number == 0 else f"{name}{VARIANT_MARK}{number}"


def attribute_of(key: str) -> str:
    """The attribute a populate key reads (``tags#1`` → ``tags``)."""
    return key.partition(VARIANT_MARK)[0]


@dataclass(frozen=True, slots=True)
class ReadQuery:
    """What to read: filters, order, page, fields, populate, publication state and locale."""

    pagination: Pagination = field(default_factory=PagePagination)
    publication_state: PublicationState = "live"
    locale: str | None = None
    filters: Filter | None = None
    sort: tuple[SortKey, ...] = ()
    fields: tuple[str, ...] | None = None
    populate: Populate = field(default_factory=dict)
