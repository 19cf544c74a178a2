"""Cross-document rules, once every document is parsed: relation targets exist and inverse
pairs agree (``inversedBy`` pointing back, matching kinds), components named exist and do not
include each other, no two models share a route name or a table.

Apart from the per-document rules because these need every model at once; a model whose
attribute failed its own rules is still checked here, so one misspelt type is one error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from contentapi.schema.inverses import owners_of
from contentapi.schema.model import (
    Component,
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    RelationAttribute,
)
from contentapi.schema.model_errors import ModelError, close_match

__all__ = ["check_references"]

INVERSE_KIND = {
    "oneToOne": "oneToOne",
    "oneToMany": "manyToOne",
    "manyToOne": "oneToMany",
    "manyToMany": "manyToMany",
}


def check_references(
    content_types: Iterable[ContentType],
    components: Iterable[Component],
    broken: Mapping[str, set[str]] | None = None,
) -> list[ModelError]:
    """Rules across documents: targets exist, relation pairs match, names are unique.
    ``broken``: per model uid, attributes already reported invalid (not reported again as a
    missing ``inversedBy``/``mappedBy`` partner)."""
    broken = broken or {}
    types = {ct.uid: ct for ct in content_types}
    comps = {c.uid: c for c in components}
    errors: list[ModelError] = []

    def add(model: ContentType | Component, attribute: str | None, message: str) -> None:
        errors.append(ModelError(model.source, attribute, message))

    seen_names: dict[str, ContentType] = {}
    seen_tables: dict[str, ContentType | Component] = {}
    for ct in types.values():
        for route_name in {ct.singular_name, ct.plural_name}:
            other = seen_names.get(route_name)
            if other is not None:
                add(ct, None, f"name '{route_name}' is already used by {other.source}")
            seen_names[route_name] = ct
    models: list[ContentType | Component] = [*types.values(), *comps.values()]
    for model in models:
        other_model = seen_tables.get(model.table)
        if other_model is not None:
            add(
                model,
                None,
                f"collectionName '{model.table}' is already used by {other_model.source}",
            )
        seen_tables[model.table] = model

    for model in models:
        for attribute in model.attributes.values():
            if isinstance(attribute, RelationAttribute):
                _check_relation(model, attribute, types, add, broken)
            elif isinstance(attribute, ComponentAttribute):
                if attribute.component not in comps:
                    hint = close_match(attribute.component, comps)
                    add(
                        model,
                        attribute.name,
                        f"component '{attribute.component}' does not exist{hint}",
                    )
            elif isinstance(attribute, DynamicZoneAttribute):
                for uid in attribute.components:
                    if uid not in comps:
                        hint = close_match(uid, comps)
                        add(model, attribute.name, f"component '{uid}' does not exist{hint}")
    for component in comps.values():
        cycle = _component_cycle(component.uid, comps, ())
        if cycle:
            add(component, None, f"components include each other: {' -> '.join(cycle)}")
    return errors


#: Strapi 4.25 loads a local plugin (``src/plugins/<name>``) only when ``config/plugins.js``
#: enables it, and registers the content types its server code exports — JavaScript that
#: contentapi does not run, so their models are not read (docs/strapi-migration.md).
_PLUGIN_TARGET_HINT = (
    ": of the plugins' content types only the upload and users-permissions ones are known; "
    "a local plugin's (src/plugins/<name>) are not read (docs/strapi-migration.md, "
    '"A Strapi project\'s models")'
)


def _check_relation(
    model: ContentType | Component,
    attribute: RelationAttribute,
    types: Mapping[str, ContentType],
    add: Any,
    broken: Mapping[str, set[str]],
) -> None:
    target = types.get(attribute.target)
    if target is None:
        if attribute.target.startswith("plugin::"):  # a near miss among the plugins' only
            known = [uid for uid in types if uid.startswith("plugin::")]
            hint = close_match(attribute.target, known) or _PLUGIN_TARGET_HINT
        else:
            hint = close_match(attribute.target, types)
        add(model, attribute.name, f"relation target '{attribute.target}' does not exist{hint}")
        return
    if attribute.mapped_by is not None:
        # Strapi never reads `mappedBy`: the owner's `inversedBy` links this side (or, when no
        # owner names it, nothing does). It loads either way; `inverse_notes` says what it did.
        owners = owners_of(model, attribute, target)
        if len(owners) > 1:
            names = ", ".join(f"'{o.name}'" for o in owners)
            add(
                model,
                attribute.name,
                f"several relations of '{target.uid}' ({names}) name it in inversedBy",
            )
        elif owners and INVERSE_KIND[owners[0].relation] != attribute.relation:
            owner = owners[0]
            add(
                model,
                attribute.name,
                f"{attribute.relation} cannot pair with {owner.relation} "
                f"'{target.uid}.{owner.name}' (expected {INVERSE_KIND[owner.relation]})",
            )
        return
    other_name = attribute.inversed_by
    if other_name is None or other_name in broken.get(target.uid, set()):
        return
    other = target.attributes.get(other_name)
    if not isinstance(other, RelationAttribute):
        add(model, attribute.name, f"inversedBy '{other_name}' is not a relation of '{target.uid}'")
        return
    if other.target != model.uid or other.mapped_by is None:
        # (a `mappedBy` naming another attribute is the other side's note, as in Strapi)
        add(
            model,
            attribute.name,
            f"inversedBy '{other_name}' does not point back: '{target.uid}.{other_name}' needs "
            f"mappedBy '{attribute.name}' and target '{model.uid}'",
        )
        return
    if INVERSE_KIND[attribute.relation] != other.relation:
        add(
            model,
            attribute.name,
            f"{attribute.relation} cannot pair with {other.relation} "
            f"'{target.uid}.{other_name}' (expected {INVERSE_KIND[attribute.relation]})",
        )


def _component_cycle(
    uid: str, comps: Mapping[str, Component], path: tuple[str, ...]
) -> tuple[str, ...]:
    if uid in path:
        return (*path, uid)
    component = comps.get(uid)
    if component is None:
        return ()
    for attribute in component.attributes.values():
        if isinstance(attribute, ComponentAttribute):
            cycle = _component_cycle(attribute.component, comps, (*path, uid))
            if cycle:
                return cycle
    return ()
