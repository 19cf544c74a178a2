"""The plugins' own models: the upload plugin's file and folder; users-permissions' user, role,
permission.

They are content types like any other — so users can be related to, populated and filtered
with the same machinery, and their tables are Strapi's (``up_users``, ``up_roles``,
``up_permissions`` and the ``up_*_links`` tables) — but they have no generic REST routes: the
``users`` package serves them with Strapi's own route shapes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.document_rules import parse_content_type
from contentapi.schema.extensions import UserExtension, extend_user
from contentapi.schema.model import ContentType
from contentapi.schema.model_errors import ModelError

__all__ = [
    "BUILTIN_DOCUMENTS",
    "FILE_UID",
    "FOLDER_UID",
    "PERMISSION_UID",
    "ROLE_UID",
    "USER_UID",
    "builtin_types",
]

FILE_UID = "plugin::upload.file"
FOLDER_UID = "plugin::upload.folder"
USER_UID = "plugin::users-permissions.user"
ROLE_UID = "plugin::users-permissions.role"
PERMISSION_UID = "plugin::users-permissions.permission"


def _model(collection: str, singular: str, plural: str, attributes: dict[str, Any]) -> dict:
    return {
        "kind": "collectionType",
        "collectionName": collection,
        "info": {"singularName": singular, "pluralName": plural, "displayName": singular},
        "options": {"draftAndPublish": False},
        "attributes": attributes,
    }


BUILTIN_DOCUMENTS: dict[str, dict[str, Any]] = {
    FILE_UID: _model(
        "files",
        "file",
        "files",
        {
            "name": {"type": "string", "required": True},
            "alternativeText": {"type": "string"},
            "caption": {"type": "string"},
            "width": {"type": "integer"},
            "height": {"type": "integer"},
            "formats": {"type": "json"},
            "hash": {"type": "string", "required": True},
            "ext": {"type": "string"},
            "mime": {"type": "string", "required": True},
            "size": {"type": "decimal", "required": True},
            "url": {"type": "string", "required": True},
            "previewUrl": {"type": "string"},
            "provider": {"type": "string", "required": True},
            "provider_metadata": {"type": "json"},
            "folder": {
                "type": "relation",
                "relation": "manyToOne",
                "target": FOLDER_UID,
                "inversedBy": "files",
                "private": True,
            },
            "folderPath": {"type": "string", "private": True},
        },
    ),
    # The upload plugin's folders (Strapi's media library tree): files hang in one folder.
    FOLDER_UID: _model(
        "upload_folders",
        "folder",
        "folders",
        {
            "name": {"type": "string", "minLength": 1, "required": True},
            "pathId": {"type": "integer", "unique": True, "required": True},
            "parent": {
                "type": "relation",
                "relation": "manyToOne",
                "target": FOLDER_UID,
                "inversedBy": "children",
            },
            "children": {
                "type": "relation",
                "relation": "oneToMany",
                "target": FOLDER_UID,
                "mappedBy": "parent",
            },
            "files": {
                "type": "relation",
                "relation": "oneToMany",
                "target": FILE_UID,
                "mappedBy": "folder",
            },
            "path": {"type": "string", "minLength": 1, "required": True},
        },
    ),
    USER_UID: _model(
        "up_users",
        "user",
        "users",
        {
            "username": {"type": "string", "minLength": 3, "unique": True, "required": True},
            # Unique here (Strapi only checks at register): two concurrent sign-ups with one
            # address must not both succeed. Addresses are stored lower-cased.
            "email": {"type": "email", "minLength": 6, "required": True, "unique": True},
            "provider": {"type": "string"},
            "password": {"type": "password", "minLength": 6, "private": True},
            "resetPasswordToken": {"type": "string", "private": True},
            "confirmationToken": {"type": "string", "private": True},
            "confirmed": {"type": "boolean", "default": False},
            "blocked": {"type": "boolean", "default": False},
            "role": {
                "type": "relation",
                "relation": "manyToOne",
                "target": ROLE_UID,
                "inversedBy": "users",
            },
        },
    ),
    ROLE_UID: _model(
        "up_roles",
        "role",
        "roles",
        {
            "name": {"type": "string", "minLength": 3, "required": True},
            "description": {"type": "string"},
            "type": {"type": "string", "unique": True},
            "permissions": {
                "type": "relation",
                "relation": "oneToMany",
                "target": PERMISSION_UID,
                "mappedBy": "role",
            },
            "users": {
                "type": "relation",
                "relation": "oneToMany",
                "target": USER_UID,
                "mappedBy": "role",
            },
        },
    ),
    PERMISSION_UID: _model(
        "up_permissions",
        "permission",
        "permissions",
        {
            "action": {"type": "string", "required": True},
            "role": {
                "type": "relation",
                "relation": "manyToOne",
                "target": ROLE_UID,
                "inversedBy": "permissions",
            },
        },
    ),
}


def builtin_types(
    user_extension: UserExtension | None = None, *, custom_fields: CustomFields | None = None
) -> tuple[list[ContentType], list[ModelError]]:
    """The plugins' content types, the user as the project's extension makes it (its
    attributes may use ``custom_fields``).

    The plugins' own documents are known to be valid; the problems returned are the
    extension's, each naming its file (the user is then parsed without the attributes at fault,
    so that the other models are still checked against it).
    """
    found: list[ContentType] = []
    errors: list[ModelError] = []
    for uid, document in BUILTIN_DOCUMENTS.items():
        singular = document["info"]["singularName"]
        source = Path(f"<users-permissions>/{singular}.json")
        if uid == USER_UID and user_extension is not None:
            document, problems = extend_user(document, user_extension)
            errors.extend(problems)
            source = user_extension.source
        parsed, problems = parse_content_type(
            document, source, singular, uid=uid, custom_fields=custom_fields
        )
        if parsed is None:  # pragma: no cover - the header is checked by extend_user
            raise RuntimeError("; ".join(str(e) for e in problems))
        errors.extend(problems)
        found.append(parsed)
    return found, errors
