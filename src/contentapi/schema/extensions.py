"""The users-permissions user model as a project extends it.

Strapi v4 projects add attributes and relations to the plugin's user in
``src/extensions/users-permissions/content-types/user/schema.json``. That file is the *whole*
user schema: Strapi's plugin loader (``applyUserExtension``) replaces the plugin's top-level
keys with the file's, ``{...pluginSchema, ...extensionSchema}``, so the file's ``attributes``
are the user's attributes, in the file's order. contentapi reads the same relative path in its
own layout — ``<models>/extensions/users-permissions/content-types/user/schema.json`` — and
below a Strapi project's ``src/`` (``schema/sources.py`` says where); ``read_user_extension``
reads the file it names.

``extend_user`` does Strapi's merge with what the server itself relies on kept (each refusal
names the file, so ``contentapi check`` reports it):

- the table, names and kind stay the plugin's (``up_users``, ``user``/``users``, a collection
  type; the auth flows and Strapi's link tables are named after them), and the user has no
  draft & publish nor localization;
- the plugin's own attributes (``username`` … ``role``, ``configurable: false`` in Strapi, so
  no admin panel changes them) keep their type, and the built-in flags contentapi relies on
  (``private`` on the password and tokens, ``unique`` on username and e-mail) — the file may
  add options (``private`` on ``email``, a longer ``minLength``); ``role`` is the plugin's as
  it is; one the file leaves out is kept (the sign-in flows need every one of them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contentapi.schema.model_errors import ModelError

__all__ = ["UserExtension", "extend_user", "read_user_extension"]

#: top-level keys whose value must stay the plugin's (the value the file may repeat)
_FIXED_KEYS = ("kind", "collectionName")
_FIXED_INFO = ("singularName", "pluralName")
#: built-in flags an extension cannot take away
_KEPT_FLAGS = ("private", "unique")


@dataclass(frozen=True, slots=True)
class UserExtension:
    """The extension file's document and where it was read (errors name that file)."""

    source: Path
    document: Any


def read_user_extension(path: Path | None, errors: list[ModelError]) -> UserExtension | None:
    """The user extension at ``path`` (``ModelSources.user_extension``: ``None`` when the
    project has none). A file that cannot be read as JSON is reported in ``errors``."""
    if path is None:
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        errors.append(ModelError(path, None, f"cannot read JSON: {exc}"))
        return None
    return UserExtension(path, document)


def extend_user(
    builtin: Mapping[str, Any], extension: UserExtension
) -> tuple[dict[str, Any], list[ModelError]]:
    """The plugin's user document with the extension applied, and the extension's problems.

    A refused value is reported and replaced by the plugin's own (its table, a plugin
    attribute's definition), so the rest of the extension still applies and the other models
    are checked against it: one mistake is one error, not one per relation to the user.
    """
    source = extension.source
    document = extension.document
    if not isinstance(document, Mapping):
        return dict(builtin), [ModelError(source, None, "a model must be a JSON object")]
    errors: list[ModelError] = []
    merged: dict[str, Any] = {**builtin, **document}  # Strapi's shallow merge
    for key in _FIXED_KEYS:
        if merged.get(key) != builtin[key]:
            errors.append(_fixed(source, key, merged.get(key), builtin[key]))
            merged[key] = builtin[key]
    info = merged.get("info")
    info = dict(info) if isinstance(info, Mapping) else {}
    for key in _FIXED_INFO:
        if info.get(key) != builtin["info"][key]:
            errors.append(_fixed(source, f"info.{key}", info.get(key), builtin["info"][key]))
            info[key] = builtin["info"][key]
    merged["info"] = {**builtin["info"], **info}
    options = merged.get("options")
    options = options if isinstance(options, Mapping) else {}
    if options.get("draftAndPublish") is True:
        errors.append(ModelError(source, None, "the user model cannot have draft & publish"))
    # Strapi leaves draft & publish off when the key is absent; contentapi's parser would not.
    merged["options"] = {**options, "draftAndPublish": False}
    plugin_options = merged.get("pluginOptions")
    plugin_options = plugin_options if isinstance(plugin_options, Mapping) else {}
    i18n = plugin_options.get("i18n")
    if isinstance(i18n, Mapping) and i18n.get("localized") is True:
        errors.append(ModelError(source, None, "the user model cannot be localized"))
        merged["pluginOptions"] = {**plugin_options, "i18n": {**i18n, "localized": False}}
    attributes = merged.get("attributes")
    if not isinstance(attributes, Mapping):
        errors.append(ModelError(source, None, "'attributes' must be an object"))
        attributes = {}
    merged["attributes"], problems = _merge_attributes(builtin["attributes"], attributes, source)
    return merged, [*errors, *problems]


def _fixed(source: Path, key: str, found: Any, wanted: Any) -> ModelError:
    return ModelError(
        source, None, f"{key} of the users-permissions user must be {wanted!r}, not {found!r}"
    )


def _merge_attributes(
    builtin: Mapping[str, Any], extension: Mapping[str, Any], source: Path
) -> tuple[dict[str, Any], list[ModelError]]:
    """The extension's attributes in its order, the plugin's own kept as described above."""
    errors: list[ModelError] = []
    merged: dict[str, Any] = {}
    for name, spec in extension.items():
        own = builtin.get(name)
        if own is None:
            merged[name] = spec
            continue
        if not isinstance(spec, Mapping) or spec.get("type") != own["type"]:
            found = spec.get("type") if isinstance(spec, Mapping) else spec
            errors.append(
                ModelError(
                    source,
                    name,
                    f"the plugin's attribute keeps its type {own['type']!r}, not {found!r}",
                )
            )
            merged[name] = dict(own)
            continue
        if own["type"] == "relation":
            merged[name] = dict(own)
            continue
        kept = {flag: True for flag in _KEPT_FLAGS if own.get(flag) is True}
        merged[name] = {**spec, **kept}
    for name, own in builtin.items():
        merged.setdefault(name, dict(own))
    return merged, errors
