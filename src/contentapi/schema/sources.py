"""Where the model files of a models folder are: the one place a layout's paths are resolved.

Two layouts are read, told apart by what the folder holds:

- contentapi's own: ``<folder>/<singularName>.json`` content types (uid
  ``api::<name>.<name>``), ``<folder>/components/<category>/<name>.json`` components;
- a Strapi v4 project's, as Strapi reads it: ``<src>/api/<api>/content-types/<name>/schema.json``
  (uid ``api::<api>.<name>``, both folder names kebab-cased as Strapi's loader does),
  ``<src>/components/<category>/<name>.json``. ``<src>`` is the folder when it holds ``api/``,
  or its ``src/`` when the folder is the project's root (``src/api`` or ``src/components``).

``ModelSources`` is what the loader reads; ``user_extension`` is where the users-permissions
user model's extension file is — the same relative path in both layouts — merged into the
built-in user by ``schema/extensions.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from contentapi.schema.naming import snake_case

__all__ = [
    "ComponentFile",
    "ContentTypeFile",
    "Layout",
    "ModelSources",
    "UnreadableFile",
    "resolve_sources",
]

Layout = Literal["contentapi", "strapi"]
_KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
#: Strapi's users-permissions user extension, below ``<src>``
STRAPI_USER_EXTENSION = Path("extensions/users-permissions/content-types/user/schema.json")
#: the same in contentapi's own layout, below the models folder: the same relative path, so
#: a project's ``src/extensions`` is copied as it is (``schema/extensions.py``)
OWN_USER_EXTENSION = STRAPI_USER_EXTENSION


@dataclass(frozen=True, slots=True)
class ContentTypeFile:
    """A content type's file, its uid and the name its ``info.singularName`` must have."""

    path: Path
    uid: str
    name: str


@dataclass(frozen=True, slots=True)
class ComponentFile:
    """A component's file: uid ``<category>.<name>``."""

    path: Path
    category: str
    name: str


@dataclass(frozen=True, slots=True)
class UnreadableFile:
    """A model file this layout holds but contentapi cannot read (Strapi's ``schema.js``)."""

    path: Path
    reason: str


@dataclass(frozen=True, slots=True)
class ModelSources:
    """The model files of one models folder, in a stable order."""

    layout: Layout
    #: the folder given (``CONTENTAPI_CONTENT_TYPES_DIR``)
    folder: Path
    #: where the files are read from: the folder, or a Strapi project's ``src/``
    root: Path
    content_types: tuple[ContentTypeFile, ...]
    components: tuple[ComponentFile, ...]
    #: where the users-permissions user extension file is in this layout (it may not exist)
    user_extension_path: Path
    unreadable: tuple[UnreadableFile, ...] = ()

    @property
    def user_extension(self) -> Path | None:
        """The user model's extension file, when there is one."""
        return self.user_extension_path if self.user_extension_path.is_file() else None


def _kebab(name: str) -> str:
    """Strapi's ``normalizeName``: kept when kebab-case already, else lodash ``kebabCase``."""
    return name if _KEBAB.match(name) else snake_case(name).replace("_", "-")


def _strapi_root(folder: Path) -> Path | None:
    """The ``src/`` folder when ``folder`` is a Strapi project (root or ``src/``), else None."""
    if (folder / "api").is_dir():
        return folder
    source = folder / "src"
    if (source / "api").is_dir() or (source / "components").is_dir():
        return source
    return None


def _components(root: Path) -> tuple[ComponentFile, ...]:
    return tuple(
        ComponentFile(path, path.parent.name, path.stem)
        for path in sorted((root / "components").glob("*/*.json"))
    )


def resolve_sources(folder: Path) -> ModelSources:
    """The model files of ``folder``, in whichever layout it has (the module's docstring)."""
    root = _strapi_root(folder)
    if root is None:
        return ModelSources(
            layout="contentapi",
            folder=folder,
            root=folder,
            content_types=tuple(
                ContentTypeFile(path, f"api::{path.stem}.{path.stem}", path.stem)
                for path in sorted(folder.glob("*.json"))
            ),
            components=_components(folder),
            user_extension_path=folder / OWN_USER_EXTENSION,
        )
    content_types: list[ContentTypeFile] = []
    unreadable: list[UnreadableFile] = []
    for api in sorted((root / "api").iterdir() if (root / "api").is_dir() else ()):
        if not api.is_dir() or api.name.startswith("."):
            continue
        types_dir = api / "content-types"
        for type_dir in sorted(types_dir.iterdir() if types_dir.is_dir() else ()):
            if not type_dir.is_dir() or type_dir.name.startswith("."):
                continue
            name = _kebab(type_dir.name)
            schema = type_dir / "schema.json"
            if schema.is_file():
                uid = f"api::{_kebab(api.name)}.{name}"
                content_types.append(ContentTypeFile(schema, uid, name))
            elif (type_dir / "schema.js").is_file() or (type_dir / "schema.ts").is_file():
                unreadable.append(
                    UnreadableFile(
                        type_dir,
                        "the schema is JavaScript or TypeScript: contentapi reads "
                        "schema.json only (write the exported object as JSON)",
                    )
                )
            else:
                reason = "a content type folder without schema.json"
                unreadable.append(UnreadableFile(type_dir, reason))
    return ModelSources(
        layout="strapi",
        folder=folder,
        root=root,
        content_types=tuple(content_types),
        components=_components(root),
        user_extension_path=root / STRAPI_USER_EXTENSION,
        unreadable=tuple(unreadable),
    )
