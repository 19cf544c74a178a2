"""A corpus project's models read straight from Strapi's `src/` layout, independently of
contentapi's loader (the harness must describe a project contentapi cannot load yet).

Only what the data generator and the normalizer need: each content type's uid, kind, REST
paths, attributes, draft & publish and i18n; each component's attributes; the user model with
the project's extension merged over the plugin's own attributes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["USER", "Project", "Type", "load_project"]

USER = "plugin::users-permissions.user"

#: the users-permissions user's own attributes (Strapi 4.25), what an extension file extends
_USER_ATTRIBUTES: dict[str, Any] = {
    "username": {"type": "string", "minLength": 3, "unique": True, "required": True},
    "email": {"type": "email", "minLength": 6, "required": True},
    "provider": {"type": "string"},
    "password": {"type": "password", "minLength": 6, "private": True},
    "resetPasswordToken": {"type": "string", "private": True},
    "confirmationToken": {"type": "string", "private": True},
    "confirmed": {"type": "boolean", "default": False},
    "blocked": {"type": "boolean", "default": False},
    "role": {
        "type": "relation",
        "relation": "manyToOne",
        "target": "plugin::users-permissions.role",
        "inversedBy": "users",
    },
}


@dataclass
class Type:
    """A content type or a component (``kind`` ``component``)."""

    uid: str
    kind: str  # collectionType, singleType, component
    attributes: dict[str, dict[str, Any]]
    singular: str = ""
    plural: str = ""
    draft_and_publish: bool = False
    localized: bool = False

    @property
    def path(self) -> str:
        """The REST path of its list (collection) or of the entry (single type)."""
        return f"/api/{self.plural if self.kind == 'collectionType' else self.singular}"


@dataclass
class Project:
    name: str
    src: Path
    types: dict[str, Type] = field(default_factory=dict)
    components: dict[str, Type] = field(default_factory=dict)

    def by_path(self, path: str) -> Type | None:
        """The content type a request path (``/api/articles/3``) reads."""
        parts = path.split("?")[0].strip("/").split("/")
        if len(parts) < 2 or parts[0] != "api":
            return None
        if parts[1] == "users":
            return self.types.get(USER)
        for item in self.types.values():
            if item.kind == "collectionType" and item.plural == parts[1]:
                return item
            if item.kind == "singleType" and item.singular == parts[1]:
                return item
        return None

    def model(self, uid: str) -> Type | None:
        return self.types.get(uid) or self.components.get(uid)


def _schema_type(uid: str, schema: dict[str, Any]) -> Type:
    info = schema.get("info") or {}
    options = schema.get("options") or {}
    plugin = schema.get("pluginOptions") or {}
    return Type(
        uid=uid,
        kind=schema.get("kind", "collectionType"),
        attributes=dict(schema.get("attributes") or {}),
        singular=info.get("singularName", ""),
        plural=info.get("pluralName", ""),
        draft_and_publish=bool(options.get("draftAndPublish", False)),
        localized=bool((plugin.get("i18n") or {}).get("localized", False)),
    )


def load_project(src: Path) -> Project:
    """``src`` is a Strapi project's ``src/`` folder (the corpus keeps that layout)."""
    project = Project(src.parent.name, src)
    for path in sorted(src.glob("api/*/content-types/*/schema.json")):
        api, name = path.parts[-4], path.parts[-2]
        project.types[f"api::{api}.{name}"] = _schema_type(
            f"api::{api}.{name}", json.loads(path.read_text())
        )
    for path in sorted(src.glob("components/*/*.json")):
        uid = f"{path.parent.name}.{path.stem}"
        schema = json.loads(path.read_text())
        project.components[uid] = Type(uid, "component", dict(schema.get("attributes") or {}))
    user = {"attributes": dict(_USER_ATTRIBUTES)}
    extension = src / "extensions/users-permissions/content-types/user/schema.json"
    if extension.is_file():
        user["attributes"].update(json.loads(extension.read_text()).get("attributes") or {})
    user["info"] = {"singularName": "user", "pluralName": "users"}
    project.types[USER] = _schema_type(USER, user)
    return project
