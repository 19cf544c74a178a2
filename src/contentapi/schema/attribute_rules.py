"""Rules of one attribute of a model document, whatever its kind: names (reserved ones, column
collisions), custom fields resolved to their stored type, relations, media, components,
dynamic zones; scalars through ``scalar_rules``.

``parse_attributes`` checks a document's ``attributes`` object on its own; what attributes say
about other documents (targets, inverse pairs) is ``reference_rules``'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.model import (
    SCALAR_TYPES,
    Attribute,
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.model_errors import ErrorCollector, close_match, did_you_mean
from contentapi.schema.scalar_rules import check_bounds, parse_scalar

__all__ = ["parse_attributes"]

ATTRIBUTE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
RELATION_KINDS = ("oneToOne", "oneToMany", "manyToOne", "manyToMany")
MEDIA_TYPES = frozenset({"images", "files", "videos", "audios"})
#: Names the server itself puts on every entry (or route segments it owns).
RESERVED_ATTRIBUTES = frozenset(
    {
        "id",
        "createdAt",
        "updatedAt",
        "publishedAt",
        "createdBy",
        "updatedBy",
        "locale",
        "localizations",
        "created_at",
        "updated_at",
        "published_at",
        "created_by",
        "updated_by",
        "created_by_id",
        "updated_by_id",
        "__component",
        "__typename",
    }
)
#: every attribute ``type`` a model may use (did-you-mean hints choose among them)
ATTRIBUTE_TYPES = frozenset(
    {*SCALAR_TYPES, "relation", "media", "component", "dynamiczone", "customField"}
)
STRING_TYPES = frozenset({"string", "text", "richtext", "email", "password", "uid", "enumeration"})


def _parse_attribute(
    name: str,
    spec: Any,
    errors: ErrorCollector,
    *,
    in_component: bool,
    custom_fields: CustomFields,
) -> Attribute | None:
    if not ATTRIBUTE_NAME.match(name):
        errors.add(
            name, "invalid attribute name: use letters, digits and '_', starting with a letter"
        )
        return None
    if name in RESERVED_ATTRIBUTES:
        errors.add(name, f"'{name}' is a reserved attribute name")
        return None
    if not isinstance(spec, Mapping):
        errors.add(name, "an attribute must be an object with a 'type'")
        return None
    kind = spec.get("type")
    if kind == "JSON":
        kind = "json"
    custom_field: str | None = None
    if kind == "customField":
        custom_field = spec.get("customField")
        kind = _custom_field_type(name, custom_field, errors, custom_fields)
        if kind is None:
            return None
    localized_flag = spec.get("pluginOptions", {}).get("i18n", {}).get("localized")
    required = spec.get("required", False) is True
    private = spec.get("private", False) is True
    if kind in SCALAR_TYPES:
        localized = localized_flag is True or kind == "uid"
        return parse_scalar(name, kind, spec, errors, localized, custom_field)
    if kind == "relation":
        return _parse_relation(name, spec, errors, in_component=in_component)
    if kind == "media":
        allowed = spec.get("allowedTypes") or []
        if not isinstance(allowed, list) or not set(allowed) <= MEDIA_TYPES:
            errors.add(name, f"allowedTypes must be a list of {sorted(MEDIA_TYPES)}")
            allowed = []
        return MediaAttribute(
            name=name,
            multiple=spec.get("multiple", False) is True,
            allowed_types=tuple(allowed),
            required=required,
            private=private,
            localized=localized_flag is True,
        )
    if kind == "component":
        component = spec.get("component")
        if not isinstance(component, str) or "." not in component:
            errors.add(name, "'component' must name a component as '<category>.<name>'")
            return None
        repeatable = spec.get("repeatable", False) is True
        bounds = check_bounds(name, spec, errors, integer=True)
        return ComponentAttribute(
            name=name,
            component=component,
            repeatable=repeatable,
            required=required,
            private=private,
            min=bounds[0],
            max=bounds[1],
            localized=localized_flag is True,
        )
    if kind == "dynamiczone":
        if in_component:
            errors.add(name, "a component cannot hold a dynamic zone")
            return None
        components = spec.get("components")
        if not isinstance(components, list) or not components:
            errors.add(name, "a dynamic zone needs a non-empty 'components' list")
            return None
        if not all(isinstance(c, str) and "." in c for c in components):
            errors.add(name, "dynamic zone components must be named '<category>.<name>'")
            return None
        bounds = check_bounds(name, spec, errors, integer=True)
        return DynamicZoneAttribute(
            name=name,
            components=tuple(components),
            required=required,
            private=private,
            min=bounds[0],
            max=bounds[1],
            localized=localized_flag is True,
        )
    errors.add(name, f"unknown attribute type {kind!r}{did_you_mean(kind, ATTRIBUTE_TYPES)}")
    return None


def _custom_field_type(
    name: str, uid: Any, errors: ErrorCollector, custom_fields: CustomFields
) -> str | None:
    """The type a custom field is stored as, or ``None`` after saying how to declare it."""
    if not isinstance(uid, str) or not uid:
        errors.add(name, "a custom field needs 'customField', its uid ('plugin::<plugin>.<name>')")
        return None
    field = custom_fields.get(uid)
    if field is not None:
        return field.type
    hint = close_match(uid, [known.uid for known in custom_fields])
    errors.add(
        name,
        f"unknown custom field {uid!r}{hint}: declare the type its plugin stores it as (the "
        "'type' its server's strapi.customFields.register gives), as "
        f"CONTENTAPI_CUSTOM_FIELDS='{uid}=<type>' or in an extension's "
        'register_custom_fields (docs/strapi-migration.md, "Custom fields")',
    )
    return None


def _parse_relation(
    name: str, spec: Mapping[str, Any], errors: ErrorCollector, *, in_component: bool
) -> RelationAttribute | None:
    relation = spec.get("relation")
    if relation not in RELATION_KINDS:
        errors.add(name, f"unknown relation {relation!r}{did_you_mean(relation, RELATION_KINDS)}")
        return None
    target = spec.get("target")
    if not isinstance(target, str) or not target:
        errors.add(name, "a relation needs a 'target' content type uid")
        return None
    inversed_by, mapped_by = spec.get("inversedBy"), spec.get("mappedBy")
    if inversed_by and mapped_by:
        errors.add(name, "a relation cannot have both 'inversedBy' and 'mappedBy'")
        return None
    if in_component and (inversed_by or mapped_by):
        errors.add(name, "relations in components must be one-way (no inversedBy/mappedBy)")
        return None
    return RelationAttribute(
        name=name,
        relation=relation,
        target=target,
        inversed_by=inversed_by or None,
        mapped_by=mapped_by or None,
        private=spec.get("private", False) is True,
        required=spec.get("required", False) is True,
    )


def parse_attributes(
    doc: Mapping[str, Any],
    errors: ErrorCollector,
    *,
    in_component: bool,
    custom_fields: CustomFields | None,
) -> dict[str, Attribute]:
    raw = doc.get("attributes")
    if not isinstance(raw, Mapping):
        errors.add(None, "'attributes' must be an object")
        return {}
    attributes: dict[str, Attribute] = {}
    columns: dict[str, str] = {}
    fields = custom_fields if custom_fields is not None else CustomFields.known()
    for name, spec in raw.items():
        attribute = _parse_attribute(
            name, spec, errors, in_component=in_component, custom_fields=fields
        )
        if attribute is None:
            continue
        if isinstance(attribute, ScalarAttribute):
            other = columns.get(attribute.column)
            if other is not None:
                errors.add(
                    name, f"its column '{attribute.column}' collides with attribute '{other}'"
                )
                continue
            columns[attribute.column] = name
        attributes[name] = attribute
    for attribute in attributes.values():
        if isinstance(attribute, ScalarAttribute) and attribute.type == "uid":
            target = attribute.target_field
            if target is not None:
                linked = attributes.get(target)
                if not isinstance(linked, ScalarAttribute) or linked.type not in STRING_TYPES:
                    errors.add(attribute.name, f"targetField '{target}' is not a string attribute")
    return attributes
