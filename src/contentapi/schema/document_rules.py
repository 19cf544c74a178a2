"""Per-document rules: one content type's or component's document (``kind``, ``info`` names,
``collectionName``, options) → a typed model, with its attributes checked by
``attribute_rules``; every problem collected with its file and attribute.

A document is checked on its own here; ``reference_rules`` checks what documents say about
each other once all are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from contentapi.schema.attribute_rules import parse_attributes
from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.model import Attribute, Component, ContentType, ScalarAttribute
from contentapi.schema.model_errors import ErrorCollector, ModelError
from contentapi.schema.naming import snake_case
from contentapi.schema.scalar_rules import INDEXABLE_TYPES

__all__ = ["parse_component", "parse_content_type"]

MODEL_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
#: Names under /api whose routes the server's plugins own: no collection type's plural name and
#: no single type's singular name (the content routes are tried first, app.py).
RESERVED_PLURALS = frozenset({"auth", "users", "upload", "i18n", "users-permissions", "connect"})


def _object(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


#: the columns every content type has, by the names a model's index may give them
_SYSTEM_COLUMNS = {
    "id": "id",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "publishedAt": "published_at",
    "locale": "locale",
}


def _model_indexes(
    plugin_options: Mapping[str, Any],
    attributes: dict[str, Attribute],
    draft_and_publish: bool,
    localized: bool,
    errors: ErrorCollector,
) -> tuple[tuple[str, ...], ...]:
    """``"pluginOptions": {"contentapi": {"indexes": [["publisher", …], …]}}`` on a content
    type: multi-column indexes, each a list of attribute names (scalars, or ``createdAt``,
    ``updatedAt``, ``publishedAt``, ``locale``) in the index's order; their columns. Strapi
    keeps plugin options it does not know, so the model stays valid for Strapi."""
    ours = plugin_options.get("contentapi", {})
    raw = ours.get("indexes", []) if isinstance(ours, Mapping) else []
    where = "'pluginOptions.contentapi.indexes'"
    if not isinstance(raw, list):
        errors.add(None, f"{where} must be a list of lists of attribute names")
        return ()
    system = dict(_SYSTEM_COLUMNS)
    if not draft_and_publish:
        system.pop("publishedAt")
    if not localized:
        system.pop("locale")
    found: list[tuple[str, ...]] = []
    for entry in raw:
        if (
            not isinstance(entry, list)
            or not entry
            or not all(isinstance(name, str) for name in entry)
            or len(set(entry)) != len(entry)
        ):
            errors.add(None, f"{where}: {entry!r} is not a list of distinct attribute names")
            continue
        columns: list[str] = []
        for name in entry:
            attribute = attributes.get(name)
            if name in system:
                columns.append(system[name])
            elif isinstance(attribute, ScalarAttribute) and attribute.type in INDEXABLE_TYPES:
                columns.append(attribute.column)
            elif attribute is None:
                errors.add(None, f"{where}: no attribute {name!r}")
            else:
                errors.add(None, f"{where}: {name!r} ({attribute.type}) cannot be indexed")
        if len(columns) == len(entry) and tuple(columns) not in found:
            found.append(tuple(columns))
    return tuple(found)


#: ``pluginOptions.contentapi.cache``'s keys → the directive each overrides
_CACHE_KEYS = {
    "maxAge": "max_age",
    "sMaxAge": "s_maxage",
    "staleWhileRevalidate": "stale_while_revalidate",
}


def _model_cache(
    plugin_options: Mapping[str, Any], errors: ErrorCollector
) -> dict[str, int | None]:
    """``"pluginOptions": {"contentapi": {"cache": {"maxAge": 60, "sMaxAge": 300,
    "staleWhileRevalidate": 30}}}``: the ``Cache-Control`` seconds of this type's REST reads,
    each key overriding the configured one (``null``: that directive not sent). Strapi keeps
    plugin options it does not know, so the model stays valid for Strapi."""
    ours = plugin_options.get("contentapi", {})
    raw = ours.get("cache") if isinstance(ours, Mapping) else None
    if raw is None:
        return {}
    where = "'pluginOptions.contentapi.cache'"
    if not isinstance(raw, Mapping):
        errors.add(None, f"{where} must be an object ({', '.join(_CACHE_KEYS)})")
        return {}
    found: dict[str, int | None] = {}
    for key, value in raw.items():
        directive = _CACHE_KEYS.get(key)
        if directive is None:
            errors.add(None, f"{where}: unknown key {key!r} (known: {', '.join(_CACHE_KEYS)})")
        elif value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            errors.add(None, f"{where}.{key} must be seconds (an integer, 0 or more) or null")
        else:
            found[directive] = value
    return found


def _table_then_attributes(
    doc: Mapping[str, Any],
    errors: ErrorCollector,
    table: Any,
    *,
    in_component: bool,
    custom_fields: CustomFields | None,
) -> dict[str, Attribute] | None:
    """The end of a model's header, the table name, checked; then its attributes, parsed and
    their problems reported even when the header has some (every problem of a file at once).
    ``None`` when the header had a problem: no model is built from it."""
    if not isinstance(table, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", table):
        errors.add(None, f"collectionName {table!r} is not a valid table name")
    header_problems = len(errors.errors)
    attributes = parse_attributes(
        doc, errors, in_component=in_component, custom_fields=custom_fields
    )
    return None if header_problems else attributes


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
    errors = ErrorCollector(source)
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
    attributes = _table_then_attributes(
        doc, errors, table, in_component=False, custom_fields=custom_fields
    )
    if attributes is None:
        return None, errors.errors
    # Problems in attributes only: the model is still returned, without them, so that the
    # other files are checked against it (one misspelt type must not make every relation to
    # this model "does not exist"); the loader fails on the errors all the same.
    plugin_options = _object(doc, "pluginOptions")
    localized = plugin_options.get("i18n", {}).get("localized", False) is True
    draft_and_publish = options.get("draftAndPublish", True) is not False
    indexes = _model_indexes(plugin_options, attributes, draft_and_publish, localized, errors)
    cache = _model_cache(plugin_options, errors)
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
            draft_and_publish=draft_and_publish,
            localized=localized,
            populate_creator_fields=options.get("populateCreatorFields", False) is True,
            indexes=indexes,
            cache=cache,
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
    errors = ErrorCollector(source)
    if not isinstance(doc, Mapping):
        errors.add(None, "a component must be a JSON object")
        return None, errors.errors
    for what, value in (("category", category), ("name", name)):
        if not MODEL_NAME.match(value):
            errors.add(None, f"component {what} {value!r} must be kebab-case (a-z, 0-9, '-')")
    table = doc.get("collectionName") or f"components_{snake_case(category)}_{snake_case(name)}s"
    attributes = _table_then_attributes(
        doc, errors, table, in_component=True, custom_fields=custom_fields
    )
    if attributes is None:
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
