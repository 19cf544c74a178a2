"""The immutable registry of models, built once at start-up and passed to every stage.

Besides lookups by uid, plural and singular name, the registry resolves where every relation
is stored (``RelationLink``), following Strapi v4's naming so that both sides of a relation
agree on one link table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from contentapi.schema.model import (
    Component,
    ContentType,
    Model,
    NestingAttribute,
    RelationAttribute,
    RelationLink,
)
from contentapi.schema.model_errors import ModelError
from contentapi.schema.naming import link_table, snake_case

__all__ = ["Registry"]


@dataclass(frozen=True, slots=True)
class Registry:
    """Every content type and component, by uid; read-only after construction."""

    content_types: Mapping[str, ContentType]
    components: Mapping[str, Component]
    by_plural: Mapping[str, ContentType]
    by_singular: Mapping[str, ContentType]
    #: what loading the models accepted as Strapi does but a user should know
    #: (``schema/inverses.py``'s ``inverse_notes``); ``contentapi check`` prints them
    warnings: tuple[ModelError, ...] = ()

    @classmethod
    def build(
        cls,
        content_types: Iterable[ContentType],
        components: Iterable[Component],
        *,
        warnings: Iterable[ModelError] = (),
    ) -> Registry:
        """Resolve relation storage and index the models (models must already be valid)."""
        types = {ct.uid: ct for ct in content_types}
        comps = {c.uid: c for c in components}
        links = _resolve_links(types, comps)
        types = {uid: replace(ct, links=links.get(uid, {})) for uid, ct in types.items()}
        comps = {uid: replace(c, links=links.get(uid, {})) for uid, c in comps.items()}
        return cls(
            content_types=MappingProxyType(types),
            components=MappingProxyType(comps),
            by_plural=MappingProxyType({ct.plural_name: ct for ct in types.values()}),
            by_singular=MappingProxyType({ct.singular_name: ct for ct in types.values()}),
            warnings=tuple(warnings),
        )

    def model(self, uid: str) -> Model:
        """A content type or component by uid (``KeyError`` when absent)."""
        found = self.content_types.get(uid)
        return found if found is not None else self.components[uid]

    def target(self, attribute: NestingAttribute) -> Model:
        """The model whose rows ``attribute`` holds: a relation's target content type, a
        component attribute's component."""
        if isinstance(attribute, RelationAttribute):
            return self.content_types[attribute.target]
        return self.components[attribute.component]

    def models(self) -> list[Model]:
        return [*self.content_types.values(), *self.components.values()]


def _owner_link(
    model: Model, attribute: RelationAttribute, target: ContentType
) -> tuple[RelationLink, RelationLink | None]:
    """The owner side's link, and the inverse side's view of the same table when bidirectional.

    Strapi v4: ``<table>_<attribute>_links`` with ``<singular>_id`` / ``<target singular>_id``
    (``inv_`` prefix on a self-relation); the owner's order column ``<target singular>_order``
    exists for to-many owners, the inverse order ``<singular>_order`` for bidirectional
    many-to-one and many-to-many.
    """
    join_column = snake_case(f"{model.singular_name}_id")
    inverse_column = snake_case(f"{target.singular_name}_id")
    if join_column == inverse_column:
        inverse_column = f"inv_{inverse_column}"
    order_column = snake_case(f"{target.singular_name}_order")
    inverse_order_column = snake_case(f"{model.singular_name}_order")
    if attribute.relation == "manyToMany" and order_column == inverse_order_column:
        inverse_order_column = f"inv_{inverse_order_column}"
    owner_order = order_column if attribute.is_to_many else None
    inverse_order = (
        inverse_order_column
        if attribute.is_bidirectional and attribute.relation in ("manyToOne", "manyToMany")
        else None
    )
    table = link_table(model.table, attribute.name)
    # Only a bidirectional relation constrains the target side (Strapi: one-way oneToOne and
    # oneToMany let several owners point at the same target).
    owner_to_one = attribute.relation in ("oneToOne", "manyToOne")
    target_to_one = attribute.is_bidirectional and attribute.relation in ("oneToOne", "oneToMany")
    owner = RelationLink(
        table,
        join_column,
        inverse_column,
        owner_order,
        inverse_order,
        owner=True,
        source_to_one=owner_to_one,
        target_to_one=target_to_one,
    )
    inverse = None
    if attribute.inversed_by:
        inverse = RelationLink(
            table,
            inverse_column,
            join_column,
            inverse_order,
            owner_order,
            owner=False,
            source_to_one=target_to_one,
            target_to_one=owner_to_one,
        )
    return owner, inverse


def _resolve_links(
    types: Mapping[str, ContentType], comps: Mapping[str, Component]
) -> dict[str, dict[str, RelationLink]]:
    links: dict[str, dict[str, RelationLink]] = {}
    models: list[Model] = [*types.values(), *comps.values()]
    for model in models:
        for attribute in model.attributes.values():
            if not isinstance(attribute, RelationAttribute) or not attribute.is_owner:
                continue
            target = types[attribute.target]
            owner, inverse = _owner_link(model, attribute, target)
            links.setdefault(model.uid, {})[attribute.name] = owner
            if inverse is not None and attribute.inversed_by:
                links.setdefault(target.uid, {})[attribute.inversed_by] = inverse
    return links
