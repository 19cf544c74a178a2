"""Custom fields: a plugin's field uid → the attribute type Strapi stores it as.

A Strapi model writes a custom field as ``{"type": "customField", "customField":
"plugin::ckeditor.CKEditor", "options": {…}}``. Strapi's server knows nothing more of it than
the type its plugin registered (``strapi.customFields.register({name, plugin, type})``): after
the plugins' ``register()`` it rewrites every such attribute to that type
(``convertCustomFieldType``), so the column, validation, filters, REST and GraphQL are those of
the underlying type; ``options`` only configure the admin panel's input. An unregistered uid
stops Strapi (``Could not find Custom Field``).

contentapi has no plugins, so it needs the same mapping from elsewhere: the public plugins of
``KNOWN_CUSTOM_FIELDS`` out of the box, more from ``CONTENTAPI_CUSTOM_FIELDS``
(``parse_custom_fields_setting``) or from an extension's ``register_custom_fields(fields)``
(``contentapi/models.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CUSTOM_FIELD_TYPES",
    "KNOWN_CUSTOM_FIELDS",
    "CustomField",
    "CustomFieldError",
    "CustomFields",
    "parse_custom_fields_setting",
]

#: The types a custom field may be stored as: Strapi 4.25's ``ALLOWED_TYPES`` of its
#: custom-field registry (no relation, media, component, dynamic zone, blocks).
CUSTOM_FIELD_TYPES = frozenset(
    {
        "biginteger",
        "boolean",
        "date",
        "datetime",
        "decimal",
        "email",
        "enumeration",
        "float",
        "integer",
        "json",
        "password",
        "richtext",
        "string",
        "text",
        "time",
        "uid",
    }
)
#: ``plugin::<plugin>.<name>`` for a plugin's field, ``global::<name>`` for one an application
#: registers without a plugin (Strapi's two forms); a name as Strapi's registry allows it.
_PLUGIN_UID = re.compile(r"^plugin::[A-Za-z0-9_-]+\.[A-Za-z_$-][A-Za-z0-9_$-]*$")
_GLOBAL_UID = re.compile(r"^global::[A-Za-z_$-][A-Za-z0-9_$-]*$")


class CustomFieldError(ValueError):
    """A custom field declared wrongly (unknown type, malformed uid, declared twice)."""


@dataclass(frozen=True, slots=True)
class CustomField:
    """One custom field: its uid, the type it is stored as, and who declared it."""

    uid: str
    type: str
    #: the npm package (known fields), ``CONTENTAPI_CUSTOM_FIELDS`` or the extension module
    source: str


#: Public plugins' custom fields, each checked against the plugin's own ``register`` (or, where
#: noted, the attribute types Strapi generated for projects that use it):
KNOWN_CUSTOM_FIELDS: tuple[CustomField, ...] = (
    # @ckeditor/strapi-plugin-ckeditor (server/register.js: name CKEditor, plugin ckeditor)
    CustomField("plugin::ckeditor.CKEditor", "richtext", "@ckeditor/strapi-plugin-ckeditor"),
    # @_sh/strapi-plugin-ckeditor (CKEditor 5 by nshenderov; generated types: Attribute.RichText)
    CustomField("plugin::ckeditor5.CKEditor", "richtext", "@_sh/strapi-plugin-ckeditor"),
    # @strapi/plugin-color-picker (name color, plugin color-picker, type string)
    CustomField("plugin::color-picker.color", "string", "@strapi/plugin-color-picker"),
    # strapi-plugin-multi-select (Zaydme; server/src/register.ts: type json)
    CustomField("plugin::multi-select.multi-select", "json", "strapi-plugin-multi-select"),
    # strapi-plugin-country-select (generated types: Attribute.String)
    CustomField("plugin::country-select.country", "string", "strapi-plugin-country-select"),
    # strapi-plugin-google-maps (generated types: Attribute.JSON)
    CustomField("plugin::google-maps.location-picker", "json", "strapi-plugin-google-maps"),
)


class CustomFields:
    """The custom fields a set of models may use; read-only once the models are loaded."""

    def __init__(self, fields: Iterable[CustomField] = ()) -> None:
        self._fields: dict[str, CustomField] = {}
        for field in fields:
            self._add(field)

    @classmethod
    def known(cls) -> CustomFields:
        """The public plugins' fields of ``KNOWN_CUSTOM_FIELDS``."""
        return cls(KNOWN_CUSTOM_FIELDS)

    def register(
        self,
        field: str | Mapping[str, Any] | Iterable[Mapping[str, Any]],
        type: str | None = None,
        *,
        source: str = "an extension",
    ) -> None:
        """Declare custom fields: ``register("plugin::rating.stars", "integer")``, or as
        Strapi's ``strapi.customFields.register`` takes them: ``register({"name": "stars",
        "plugin": "rating", "type": "integer"})`` (or a list of such), which is
        ``plugin::rating.stars`` (``global::stars`` without a plugin). A uid already known is
        declared again only with the same type (a plugin's field may be listed twice)."""
        if isinstance(field, str):
            if type is None:
                raise CustomFieldError(f"custom field {field!r}: give the type it is stored as")
            self._add(CustomField(field, type, source))
            return
        if type is not None:
            raise CustomFieldError("give the type inside the custom field's object")
        items = [field] if isinstance(field, Mapping) else list(field)
        for item in items:
            if not isinstance(item, Mapping) or "name" not in item or "type" not in item:
                raise CustomFieldError("a custom field needs a 'name' and a 'type'")
            name, plugin = item["name"], item.get("plugin")
            uid = f"plugin::{plugin}.{name}" if plugin else f"global::{name}"
            self._add(CustomField(uid, item["type"], source))

    def _add(self, field: CustomField) -> None:
        if not isinstance(field.uid, str) or not (
            _PLUGIN_UID.match(field.uid) or _GLOBAL_UID.match(field.uid)
        ):
            raise CustomFieldError(
                f"custom field uid {field.uid!r} is not 'plugin::<plugin>.<name>' or "
                "'global::<name>'"
            )
        if field.type not in CUSTOM_FIELD_TYPES:
            allowed = ", ".join(sorted(CUSTOM_FIELD_TYPES))
            raise CustomFieldError(
                f"custom field {field.uid!r}: type {field.type!r} cannot hold a custom field "
                f"(use one of {allowed})"
            )
        previous = self._fields.get(field.uid)
        if previous is not None and previous.type != field.type:
            raise CustomFieldError(
                f"custom field {field.uid!r} is declared as {field.type!r} by {field.source} "
                f"but as {previous.type!r} by {previous.source}"
            )
        self._fields[field.uid] = field

    def get(self, uid: str) -> CustomField | None:
        return self._fields.get(uid)

    def __contains__(self, uid: object) -> bool:
        return uid in self._fields

    def __iter__(self) -> Iterator[CustomField]:
        return iter(self._fields.values())

    def __len__(self) -> int:
        return len(self._fields)


def parse_custom_fields_setting(text: str | None) -> list[CustomField]:
    """``CONTENTAPI_CUSTOM_FIELDS``: comma-separated ``<uid>=<type>`` pairs, e.g.
    ``plugin::rating.stars=integer,global::slug=string``. Raises ``CustomFieldError`` naming
    the wrong item."""
    fields: list[CustomField] = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        uid, equals, kind = item.partition("=")
        if not equals or not uid.strip() or not kind.strip():
            raise CustomFieldError(
                f"{item!r} is not '<uid>=<type>' (e.g. 'plugin::rating.stars=integer')"
            )
        field = CustomField(uid.strip(), kind.strip(), "CONTENTAPI_CUSTOM_FIELDS")
        CustomFields([field])  # the same checks as any declaration
        fields.append(field)
    return fields
