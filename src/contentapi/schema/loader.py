"""Read the models folder into a validated ``Registry``.

The folder is in contentapi's layout or a Strapi project's (``schema/sources.py`` resolves
which files are models); the users-permissions user extension found there is merged into the
built-in user (``schema/extensions.py``). Any problem in any file raises ``ModelErrors`` listing
all of them, each naming its file and attribute.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from contentapi.schema.builtin import builtin_types
from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.document_rules import parse_component, parse_content_type
from contentapi.schema.extensions import read_user_extension
from contentapi.schema.inverses import inverse_notes
from contentapi.schema.model import Component, ContentType
from contentapi.schema.model_errors import ModelError, ModelErrors
from contentapi.schema.reference_rules import check_references
from contentapi.schema.registry import Registry
from contentapi.schema.sources import ComponentFile, ContentTypeFile, ModelSources, resolve_sources

__all__ = ["load_registry", "resolve_sources"]

_File = TypeVar("_File", bound=ComponentFile | ContentTypeFile)
_Model = TypeVar("_Model", bound=Component | ContentType)


def _read_json(path: Path, errors: list[ModelError]) -> object | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        errors.append(ModelError(path, None, f"cannot read JSON: {exc}"))
        return None


def _parse_files(
    files: Iterable[_File],
    parse: Callable[[_File, object], tuple[_Model | None, list[ModelError]]],
    errors: list[ModelError],
    broken: dict[str, set[str]],
) -> list[_Model]:
    """The models of ``files``, content types and components alike: each file read and
    parsed, its problems added to ``errors`` and, for a model that parsed, the attributes
    they name to ``broken`` (left out of the model)."""
    models: list[_Model] = []
    for file in files:
        doc = _read_json(file.path, errors)
        if doc is None:
            continue
        model, problems = parse(file, doc)
        errors.extend(problems)
        if model is not None:
            models.append(model)
            broken[model.uid] = {p.attribute for p in problems if p.attribute}
    return models


def load_registry(
    folder: Path | ModelSources, custom_fields: CustomFields | None = None
) -> Registry:
    """Load, validate and index every model of ``folder`` (or of sources already resolved);
    ``custom_fields``: the custom fields the models may use (default: the known ones)."""
    if isinstance(folder, ModelSources):
        sources = folder
    elif not folder.is_dir():
        raise ModelErrors([ModelError(folder, None, "the models folder does not exist")])
    else:
        sources = resolve_sources(folder)
    fields = custom_fields if custom_fields is not None else CustomFields.known()
    strapi = sources.layout == "strapi"
    errors: list[ModelError] = [
        ModelError(file.path, None, file.reason) for file in sources.unreadable
    ]
    #: per model uid, the attributes reported invalid (left out of the model)
    broken: dict[str, set[str]] = {}

    def content_type_of(
        file: ContentTypeFile, doc: object
    ) -> tuple[ContentType | None, list[ModelError]]:
        return parse_content_type(
            doc,
            file.path,
            file.name,
            api_uid=file.uid,
            name_from="its folder name" if strapi else "the file name",
            # Strapi's default table is the singular name (core/domain/content-type)
            default_table=file.name if strapi else None,
            custom_fields=fields,
        )

    def component_of(file: ComponentFile, doc: object) -> tuple[Component | None, list[ModelError]]:
        return parse_component(doc, file.path, file.category, file.name, custom_fields=fields)

    content_types = _parse_files(sources.content_types, content_type_of, errors, broken)
    components = _parse_files(sources.components, component_of, errors, broken)
    builtin, problems = builtin_types(
        read_user_extension(sources.user_extension, errors), custom_fields=fields
    )
    errors.extend(problems)
    for content_type in builtin:
        broken[content_type.uid] = {
            p.attribute for p in problems if p.attribute and p.source == content_type.source
        }
    content_types.extend(builtin)
    errors.extend(check_references(content_types, components, broken))
    if errors:
        raise ModelErrors(errors)
    warnings, unlinked = inverse_notes(content_types)
    content_types = [_without(ct, unlinked.get(ct.uid, set())) for ct in content_types]
    return Registry.build(content_types, components, warnings=warnings)


def _without(content_type: ContentType, names: set[str]) -> ContentType:
    """``content_type`` without the attributes ``names`` (relations that hold nothing)."""
    if not names:
        return content_type
    kept = {name: a for name, a in content_type.attributes.items() if name not in names}
    return replace(content_type, attributes=kept)
