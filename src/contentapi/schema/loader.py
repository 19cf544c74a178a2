"""Read the models folder into a validated ``Registry``.

``content-types/<singularName>.json`` are content types; ``content-types/components/
<category>/<name>.json`` are components; ``content-types/extensions/users-permissions/
content-types/user/schema.json`` extends the users-permissions user (``schema.extensions``).
Any problem in any file raises ``ModelErrors`` listing all of them, each naming its file and
attribute.
"""

from __future__ import annotations

import json
from pathlib import Path

from contentapi.schema.builtin import builtin_types
from contentapi.schema.extensions import read_user_extension
from contentapi.schema.model import Component, ContentType
from contentapi.schema.registry import Registry
from contentapi.schema.validate import (
    ModelError,
    ModelErrors,
    check_references,
    parse_component,
    parse_content_type,
)

__all__ = ["load_registry"]


def _read_json(path: Path, errors: list[ModelError]) -> object | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        errors.append(ModelError(path, None, f"cannot read JSON: {exc}"))
        return None


def load_registry(folder: Path) -> Registry:
    """Load, validate and index every model in ``folder``."""
    if not folder.is_dir():
        raise ModelErrors([ModelError(folder, None, "the models folder does not exist")])
    errors: list[ModelError] = []
    content_types: list[ContentType] = []
    components: list[Component] = []
    #: per model uid, the attributes reported invalid (left out of the model)
    broken: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.json")):
        doc = _read_json(path, errors)
        if doc is None:
            continue
        content_type, problems = parse_content_type(doc, path, path.stem)
        errors.extend(problems)
        if content_type is not None:
            content_types.append(content_type)
            broken[content_type.uid] = {p.attribute for p in problems if p.attribute}
    for path in sorted((folder / "components").glob("*/*.json")):
        doc = _read_json(path, errors)
        if doc is None:
            continue
        component, problems = parse_component(doc, path, path.parent.name, path.stem)
        errors.extend(problems)
        if component is not None:
            components.append(component)
            broken[component.uid] = {p.attribute for p in problems if p.attribute}
    builtin, problems = builtin_types(read_user_extension(folder, errors))
    errors.extend(problems)
    for content_type in builtin:
        broken[content_type.uid] = {
            p.attribute for p in problems if p.attribute and p.source == content_type.source
        }
    content_types.extend(builtin)
    errors.extend(check_references(content_types, components, broken))
    if errors:
        raise ModelErrors(errors)
    return Registry.build(content_types, components)
