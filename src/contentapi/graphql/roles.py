"""What each generated GraphQL type and field stands for, read by the planner.

Generated types carry a ``TypeRole`` and attribute fields an ``AttributeField`` in their
graphql-core ``extensions`` (under ``"contentapi"``), so that turning a selection set into a
read query is a lookup, not a guess from names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graphql import GraphQLField, GraphQLNamedType

from contentapi.schema.model import Model

__all__ = [
    "CUSTOM_KEY",
    "KEY",
    "AttributeField",
    "CustomField",
    "GeneratedRoot",
    "TypeRole",
    "custom_of",
    "field_of",
    "role_of",
    "root_of",
]

KEY = "contentapi"

RoleKind = Literal[
    "attributes",  # X or ComponentX: the attributes of an entry or component
    "entity",  # XEntity {id, attributes}
    "entity_response",  # XEntityResponse {data}
    "collection",  # XEntityResponseCollection {data, meta}
    "relation_collection",  # XRelationResponseCollection {data}
    "meta",  # ResponseCollectionMeta {pagination}
    "pagination",  # Pagination {total, page, pageSize, pageCount}
    "zone",  # a dynamic-zone union
    "error",  # Error {code, message}
]

FieldKind = Literal[
    "scalar", "relation", "media", "component", "dynamiczone", "localizations", "id", "morph"
]


@dataclass(frozen=True, slots=True)
class TypeRole:
    kind: RoleKind
    model: Model | None = None


@dataclass(frozen=True, slots=True)
class AttributeField:
    """An attribute of ``model`` exposed as a field: its kind, value type and target."""

    kind: FieldKind
    name: str
    value_type: str = ""  # the attribute type for scalars (``biginteger``, ``time`` …)
    target: str = ""  # related content type, component uid
    to_many: bool = False


def role_of(graphql_type: GraphQLNamedType) -> TypeRole | None:
    extensions: dict[str, Any] = graphql_type.extensions or {}
    found = extensions.get(KEY)
    return found if isinstance(found, TypeRole) else None


def field_of(field: GraphQLField) -> AttributeField | None:
    extensions: dict[str, Any] = field.extensions or {}
    found = extensions.get(KEY)
    return found if isinstance(found, AttributeField) else None


#: where ``customize.py`` marks the fields an extension resolves or wraps
CUSTOM_KEY = "contentapi.custom"


@dataclass(frozen=True, slots=True)
class GeneratedRoot:
    """A Shadow CRUD root field: its resolvers and the action it checks (``find`` …), so that
    ``resolvers_config`` can replace that check (``auth``)."""

    resolvers: Any
    action: str


@dataclass(slots=True)
class CustomField:
    """A field an extension resolves (``resolver``) or wraps (``config``, a ``ResolverConfig``).

    The planner leaves such a field out of the compiled shaper: it is resolved after shaping,
    through graphql-core, with the entry as its parent (``deferred.py``)."""

    resolver: Any = None
    config: Any = None


def custom_of(field: GraphQLField) -> CustomField | None:
    extensions: dict[str, Any] = field.extensions or {}
    return extensions.get(CUSTOM_KEY)


def root_of(field: GraphQLField) -> GeneratedRoot | None:
    extensions: dict[str, Any] = field.extensions or {}
    found = extensions.get(KEY)
    return found if isinstance(found, GeneratedRoot) else None
