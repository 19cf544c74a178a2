"""Model rules: raw model documents → typed models, or errors naming file and attribute.

Two passes. ``parse_*`` checks one document on its own (types, options, names);
``check_references`` checks what documents say about each other (relation targets and their
``inversedBy``/``mappedBy`` pairs, components, duplicate names). Every problem is collected, so
``contentapi check`` can print all of them at once.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.model import (
    SCALAR_TYPES,
    Attribute,
    Component,
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.naming import column_name, snake_case

__all__ = [
    "ModelError",
    "ModelErrors",
    "check_references",
    "inverse_notes",
    "parse_component",
    "parse_content_type",
]

ATTRIBUTE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MODEL_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
RELATION_KINDS = ("oneToOne", "oneToMany", "manyToOne", "manyToMany")
INVERSE_KIND = {
    "oneToOne": "oneToOne",
    "oneToMany": "manyToOne",
    "manyToOne": "oneToMany",
    "manyToMany": "manyToMany",
}
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
#: Names under /api whose routes the server's plugins own: no collection type's plural name and
#: no single type's singular name (the content routes are tried first, app.py).
RESERVED_PLURALS = frozenset({"auth", "users", "upload", "i18n", "users-permissions", "connect"})
#: every attribute ``type`` a model may use (did-you-mean hints choose among them)
ATTRIBUTE_TYPES = frozenset(
    {*SCALAR_TYPES, "relation", "media", "component", "dynamiczone", "customField"}
)
NUMERIC_TYPES = frozenset({"integer", "biginteger", "float", "decimal"})
STRING_TYPES = frozenset({"string", "text", "richtext", "email", "password", "uid", "enumeration"})
#: types whose columns may carry an index (``pluginOptions.contentapi.index``): long text,
#: JSON and password hashes are never filtered or sorted by through an index
INDEXABLE_TYPES = frozenset(
    {
        "string",
        "email",
        "uid",
        "enumeration",
        "integer",
        "biginteger",
        "float",
        "decimal",
        "boolean",
        "date",
        "time",
        "datetime",
        "timestamp",
    }
)


@dataclass(frozen=True, slots=True)
class ModelError:
    """One problem in one model file, optionally at one attribute."""

    source: Path
    attribute: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source}"
        if self.attribute:
            where += f": attribute '{self.attribute}'"
        return f"{where}: {self.message}"


class ModelErrors(Exception):
    """Raised when any model is invalid; start-up and ``contentapi check`` print each error."""

    def __init__(self, errors: list[ModelError]) -> None:
        super().__init__("\n".join(str(error) for error in errors))
        self.errors = errors


class _Collector:
    def __init__(self, source: Path) -> None:
        self.source = source
        self.errors: list[ModelError] = []

    def add(self, attribute: str | None, message: str) -> None:
        self.errors.append(ModelError(self.source, attribute, message))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _parse_attribute(
    name: str,
    spec: Any,
    errors: _Collector,
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
        return _parse_scalar(name, kind, spec, errors, localized, custom_field)
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
        bounds = _bounds(name, spec, errors, integer=True)
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
        bounds = _bounds(name, spec, errors, integer=True)
        return DynamicZoneAttribute(
            name=name,
            components=tuple(components),
            required=required,
            private=private,
            min=bounds[0],
            max=bounds[1],
            localized=localized_flag is True,
        )
    errors.add(name, f"unknown attribute type {kind!r}{_did_you_mean(kind, ATTRIBUTE_TYPES)}")
    return None


def _custom_field_type(
    name: str, uid: Any, errors: _Collector, custom_fields: CustomFields
) -> str | None:
    """The type a custom field is stored as, or ``None`` after saying how to declare it."""
    if not isinstance(uid, str) or not uid:
        errors.add(name, "a custom field needs 'customField', its uid ('plugin::<plugin>.<name>')")
        return None
    field = custom_fields.get(uid)
    if field is not None:
        return field.type
    hint = _close_match(uid, [known.uid for known in custom_fields])
    errors.add(
        name,
        f"unknown custom field {uid!r}{hint}: declare the type its plugin stores it as (the "
        "'type' its server's strapi.customFields.register gives), as "
        f"CONTENTAPI_CUSTOM_FIELDS='{uid}=<type>' or in an extension's "
        'register_custom_fields (docs/strapi-migration.md, "Custom fields")',
    )
    return None


def _did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'integer'?)`` for a near miss, else ``"; use one of …"``."""
    return _close_match(value, choices) or f"; use one of {', '.join(sorted(choices))}"


def _close_match(value: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'integer'?)`` for a near miss of ``value`` among ``choices``, or ``""``."""
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _bounds(
    name: str, spec: Mapping[str, Any], errors: _Collector, *, integer: bool = False
) -> tuple[Any, Any]:
    low, high = spec.get("min"), spec.get("max")
    for key, value in (("min", low), ("max", high)):
        if value is not None and not (
            _number(value) and (not integer or float(value).is_integer())
        ):
            errors.add(name, f"'{key}' must be a number")
            return None, None
    if low is not None and high is not None and low > high:
        errors.add(name, "'min' is greater than 'max'")
    return low, high


def _parse_scalar(
    name: str,
    kind: str,
    spec: Mapping[str, Any],
    errors: _Collector,
    localized: bool,
    custom_field: str | None = None,
) -> ScalarAttribute | None:
    low, high = (None, None)
    if kind in NUMERIC_TYPES:
        low, high = _bounds(name, spec, errors)
    min_length, max_length = spec.get("minLength"), spec.get("maxLength")
    for key, value in (("minLength", min_length), ("maxLength", max_length)):
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            errors.add(name, f"'{key}' must be a non-negative integer")
            min_length = max_length = None
    if min_length is not None and max_length is not None and min_length > max_length:
        errors.add(name, "'minLength' is greater than 'maxLength'")
    regex = spec.get("regex")
    if regex is not None:
        try:
            re.compile(regex)
        except (re.error, TypeError) as exc:
            errors.add(name, f"invalid regex: {exc}")
            regex = None
    enum: tuple[str, ...] = ()
    if kind == "enumeration":
        values = spec.get("enum")
        if not isinstance(values, list) or not values:
            errors.add(name, "an enumeration needs a non-empty 'enum' list")
            return None
        if not all(isinstance(v, str) and v for v in values):
            errors.add(name, "enumeration values must be non-empty strings")
            return None
        if len(set(values)) != len(values):
            errors.add(name, "enumeration values must be unique")
        enum = tuple(values)
    has_default = "default" in spec
    default = spec.get("default")
    if has_default and not _default_fits(kind, default, enum):
        if kind == "enumeration":
            allowed = ", ".join(repr(value) for value in enum)
            errors.add(name, f"default {default!r} is not one of the enum values ({allowed})")
        else:
            errors.add(name, f"default {default!r} does not fit type {kind!r}")
    indexed = _index_option(name, kind, spec, errors)
    return ScalarAttribute(
        name=name,
        type=kind,
        column=column_name(name),
        required=spec.get("required", False) is True,
        unique=spec.get("unique", False) is True,
        private=spec.get("private", False) is True or kind == "password",
        has_default=has_default,
        default=default,
        min=low,
        max=high,
        min_length=min_length,
        max_length=max_length,
        regex=regex,
        enum=enum,
        target_field=spec.get("targetField"),
        localized=localized,
        indexed=indexed,
        custom_field=custom_field,
    )


def _index_option(name: str, kind: str, spec: Mapping[str, Any], errors: _Collector) -> bool:
    """``"pluginOptions": {"contentapi": {"index": true}}``: index the column. Strapi keeps
    plugin options it does not know, so the model stays valid for Strapi, and the index is
    additive: a Strapi database gains it and still works."""
    options = spec.get("pluginOptions", {})
    ours = options.get("contentapi", {}) if isinstance(options, Mapping) else {}
    value = ours.get("index", False) if isinstance(ours, Mapping) else False
    if value is False:
        return False
    if value is not True:
        errors.add(name, "'pluginOptions.contentapi.index' must be true or false")
        return False
    if kind not in INDEXABLE_TYPES:
        allowed = ", ".join(sorted(INDEXABLE_TYPES))
        errors.add(name, f"an attribute of type {kind!r} cannot be indexed (allowed: {allowed})")
        return False
    return True


def _default_fits(kind: str, value: Any, enum: tuple[str, ...]) -> bool:
    """A default must be a literal of the attribute's type (a callable is not a JSON value)."""
    if value is None or kind in ("json", "array", "blocks"):
        return kind == "json" or value is None or isinstance(value, list)
    if kind == "enumeration":
        return value in enum
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("integer", "biginteger"):
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.lstrip("-").isdigit()
        )
    if kind in ("float", "decimal"):
        return _number(value) or isinstance(value, str)
    return isinstance(value, str)


def _parse_relation(
    name: str, spec: Mapping[str, Any], errors: _Collector, *, in_component: bool
) -> RelationAttribute | None:
    relation = spec.get("relation")
    if relation not in RELATION_KINDS:
        errors.add(name, f"unknown relation {relation!r}{_did_you_mean(relation, RELATION_KINDS)}")
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


def _parse_attributes(
    doc: Mapping[str, Any],
    errors: _Collector,
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


def _object(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


def parse_content_type(
    doc: Any,
    source: Path,
    expected_name: str,
    *,
    uid: str | None = None,
    api_uid: str | None = None,
    name_from: str = "the file name",
    default_table: str | None = None,
    custom_fields: CustomFields | None = None,
) -> tuple[ContentType | None, list[ModelError]]:
    """Parse a content type's document. ``uid`` given: a built-in plugin model; ``api_uid``:
    the uid its path gives it (default ``api::<singularName>.<singularName>``); ``name_from``:
    what ``expected_name`` comes from, for the message; ``default_table``: the table without
    ``collectionName`` (default the snake-cased plural name); ``custom_fields``: the custom
    fields it may use (default the known ones)."""
    errors = _Collector(source)
    if not isinstance(doc, Mapping):
        errors.add(None, "a model must be a JSON object")
        return None, errors.errors
    kind = doc.get("kind")
    if kind not in ("collectionType", "singleType"):
        errors.add(None, f"'kind' must be 'collectionType' or 'singleType', not {kind!r}")
    info = _object(doc, "info")
    singular, plural = info.get("singularName"), info.get("pluralName")
    for key, value in (("singularName", singular), ("pluralName", plural)):
        if not isinstance(value, str) or not MODEL_NAME.match(value):
            errors.add(None, f"info.{key} must be kebab-case (a-z, 0-9, '-'), not {value!r}")
    if isinstance(singular, str) and singular != expected_name:
        errors.add(None, f"info.singularName {singular!r} must match {name_from} {expected_name!r}")
    if singular and singular == plural:
        errors.add(None, "info.singularName and info.pluralName must differ")
    if uid is None and isinstance(plural, str) and plural in RESERVED_PLURALS:
        errors.add(None, f"info.pluralName {plural!r} is reserved by the server")
    # a single type's routes are /api/<singularName>
    if (
        uid is None
        and kind == "singleType"
        and isinstance(singular, str)
        and singular in RESERVED_PLURALS
    ):
        errors.add(None, f"info.singularName {singular!r} is reserved by the server")
    options = _object(doc, "options")
    table = doc.get("collectionName") or default_table
    if not table and isinstance(plural, str):
        table = snake_case(plural)
    if not isinstance(table, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", table):
        errors.add(None, f"collectionName {table!r} is not a valid table name")
    header_problems = len(errors.errors)
    attributes = _parse_attributes(doc, errors, in_component=False, custom_fields=custom_fields)
    if header_problems:
        return None, errors.errors
    # Problems in attributes only: the model is still returned, without them, so that the
    # other files are checked against it (one misspelt type must not make every relation to
    # this model "does not exist"); the loader fails on the errors all the same.
    plugin_options = _object(doc, "pluginOptions")
    localized = plugin_options.get("i18n", {}).get("localized", False) is True
    assert isinstance(singular, str) and isinstance(plural, str) and isinstance(table, str)
    return (
        ContentType(
            uid=uid or api_uid or f"api::{singular}.{singular}",
            kind="singleType" if kind == "singleType" else "collectionType",
            table=table,
            singular_name=singular,
            plural_name=plural,
            display_name=str(info.get("displayName") or singular),
            description=str(info.get("description") or ""),
            attributes=attributes,
            source=source,
            draft_and_publish=options.get("draftAndPublish", True) is not False,
            localized=localized,
            populate_creator_fields=options.get("populateCreatorFields", False) is True,
        ),
        errors.errors,
    )


def parse_component(
    doc: Any,
    source: Path,
    category: str,
    name: str,
    *,
    custom_fields: CustomFields | None = None,
) -> tuple[Component | None, list[ModelError]]:
    """Parse ``content-types/components/<category>/<name>.json``."""
    errors = _Collector(source)
    if not isinstance(doc, Mapping):
        errors.add(None, "a component must be a JSON object")
        return None, errors.errors
    for what, value in (("category", category), ("name", name)):
        if not MODEL_NAME.match(value):
            errors.add(None, f"component {what} {value!r} must be kebab-case (a-z, 0-9, '-')")
    table = doc.get("collectionName") or f"components_{snake_case(category)}_{snake_case(name)}s"
    if not isinstance(table, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", table):
        errors.add(None, f"collectionName {table!r} is not a valid table name")
    header_problems = len(errors.errors)
    attributes = _parse_attributes(doc, errors, in_component=True, custom_fields=custom_fields)
    if header_problems:
        return None, errors.errors
    info = _object(doc, "info")
    return (
        Component(
            uid=f"{category}.{name}",
            category=category,
            name=name,
            table=table,
            display_name=str(info.get("displayName") or name),
            attributes=attributes,
            source=source,
        ),
        errors.errors,
    )


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
                    hint = _close_match(attribute.component, comps)
                    add(
                        model,
                        attribute.name,
                        f"component '{attribute.component}' does not exist{hint}",
                    )
            elif isinstance(attribute, DynamicZoneAttribute):
                for uid in attribute.components:
                    if uid not in comps:
                        hint = _close_match(uid, comps)
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
            hint = _close_match(attribute.target, known) or _PLUGIN_TARGET_HINT
        else:
            hint = _close_match(attribute.target, types)
        add(model, attribute.name, f"relation target '{attribute.target}' does not exist{hint}")
        return
    if attribute.mapped_by is not None:
        # Strapi never reads `mappedBy`: the owner's `inversedBy` links this side (or, when no
        # owner names it, nothing does). It loads either way; `inverse_notes` says what it did.
        owners = _owners_of(model, attribute, target)
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


def _owners_of(
    model: ContentType | Component, attribute: RelationAttribute, target: ContentType
) -> list[RelationAttribute]:
    """The relations of ``target`` whose ``inversedBy`` names ``attribute`` of ``model``:
    where Strapi stores a ``mappedBy`` side (its metadata never reads ``mappedBy`` itself)."""
    return [
        other
        for other in target.attributes.values()
        if isinstance(other, RelationAttribute)
        and other.target == model.uid
        and other.inversed_by == attribute.name
    ]


def inverse_notes(
    content_types: Iterable[ContentType],
) -> tuple[list[ModelError], dict[str, set[str]]]:
    """Warnings for ``mappedBy`` sides (of models that passed ``check_references``) that
    Strapi 4.25 loads silently, and the attributes that hold nothing.

    - ``mappedBy`` names another attribute than the owner that names this one in its
      ``inversedBy``: Strapi links through that owner, and so do we (a warning says what to
      write).
    - no owner names it: in Strapi the attribute holds nothing (populate leaves it out, a
      write is ignored, a filter is a 500). It is left out of the model here (a warning says
      so): unknown to populate (ignored), filters and sort (400), writes (ignored), GraphQL.

    Returns the warnings and, per model uid, the attributes to leave out.
    """
    types = {ct.uid: ct for ct in content_types}
    notes: list[ModelError] = []
    unlinked: dict[str, set[str]] = {}
    for model in types.values():
        for attribute in model.attributes.values():
            if not isinstance(attribute, RelationAttribute) or attribute.mapped_by is None:
                continue
            target = types.get(attribute.target)
            if target is None:
                continue
            owners = _owners_of(model, attribute, target)
            if len(owners) == 1 and owners[0].name != attribute.mapped_by:
                message = (
                    f"mappedBy '{attribute.mapped_by}' is not the relation that points back: "
                    f"linked through '{target.uid}.{owners[0].name}' (inversedBy "
                    f"'{attribute.name}'), as Strapi does; write mappedBy '{owners[0].name}'"
                )
                notes.append(ModelError(model.source, attribute.name, message))
            elif not owners:
                message = (
                    f"mappedBy '{attribute.mapped_by}': no relation of '{target.uid}' names "
                    f"'{attribute.name}' in its inversedBy, so it holds nothing (as in Strapi, "
                    "which loads it silently); left out of the model"
                )
                notes.append(ModelError(model.source, attribute.name, message))
                unlinked.setdefault(model.uid, set()).add(attribute.name)
    return notes, unlinked


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
