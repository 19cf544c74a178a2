"""Normalizing the plugin routes' plain answers (``/api/users…``, ``/api/users-permissions/
roles``, ``/api/upload/files…``) into the ``{"data", "meta"}`` shape ``diff/compare.py``
compares, so that order, page and value differences are judged as for content types.

Plain entries carry their attributes beside ``id`` (no ``attributes`` wrapper): ids become
natural keys by model (users by username, roles by type, files by name; a permission, whose
ids each server numbers itself, by its action), timestamps ``<ts>``, and what each server
makes up for a file (hash, url, provider data, and its size: Strapi re-encodes images with
sharp) markers. A morph's ``__type`` names the model of an entry of a file's ``related``,
compared as a multiset (as the GraphQL run compares it).
"""

from __future__ import annotations

import json
from typing import Any

from contentapi.schema.builtin import FILE_UID, ROLE_UID, USER_UID
from contentapi.schema.model import ContentType, MediaAttribute, RelationAttribute
from contentapi.schema.registry import Registry
from diff.generate import KINDS
from diff.generate_plugins import PLUGIN_KINDS
from diff.seed import Ids

__all__ = ["ROUTE_MODELS", "number_of", "plain_body", "plugin_expectation"]

TIMESTAMPS = {"createdAt", "updatedAt", "publishedAt"}
FILE_VOLATILE = {"hash", "url", "provider_metadata", "previewUrl", "formats", "size"}
PERMISSION_UID = "plugin::users-permissions.permission"
#: the model a route's entries are of, by the kind of its query
ROUTE_MODELS = {"users": USER_UID, "roles": ROLE_UID, "files": FILE_UID}


def number_of(value: Any) -> int | None:
    """An integer of a loaded answer (``"#12"``, as ``compare._load`` marks numbers), else None."""
    if isinstance(value, str) and value.startswith("#"):
        try:
            return int(value[1:])
        except ValueError:
            return None
    return value if isinstance(value, int) else None


class _Plain:
    def __init__(self, registry: Registry, ids: Ids) -> None:
        self.registry = registry
        self.ids = ids

    def entry(self, model: ContentType, value: Any) -> Any:
        if isinstance(value, list):
            return [self.entry(model, item) for item in value]
        if not isinstance(value, dict):
            return value
        component = None
        if "__type" in value and value["__type"] in self.registry.content_types:
            model = self.registry.content_types[value["__type"]]
        elif "__type" in value and value["__type"] in self.registry.components:
            component = self.registry.components[value["__type"]]  # (ids differ: dropped)
        out: dict[str, Any] = {}
        for name, item in value.items():
            attribute = (component or model).attributes.get(name)
            if component is not None and name == "id":
                continue
            if name == "id":
                out[name] = self._key(model, value)
            elif name in TIMESTAMPS:
                out[name] = None if item is None else "<ts>"
            elif model.uid == FILE_UID and not component and name in FILE_VOLATILE and item:
                out[name] = f"<{name}>"
            elif isinstance(attribute, MediaAttribute):
                out[name] = self.entry(self.registry.content_types[FILE_UID], item)
            elif isinstance(attribute, RelationAttribute) and attribute.target is not None:
                out[name] = self.entry(self.registry.content_types[attribute.target], item)
            elif name == "related" and model.uid == FILE_UID and isinstance(item, list):
                # a multiset: Strapi orders by each attachment's place in its field, ties in
                # storage order (which follows each server's own write order)
                items = self.entry(model, item)
                out[name] = sorted(items, key=lambda i: json.dumps(i, sort_keys=True))
            else:
                out[name] = item
        return out

    def _key(self, model: ContentType, value: dict[str, Any]) -> Any:
        if model.uid == PERMISSION_UID:
            return f"permission {value.get('action')}"
        kind = PLUGIN_KINDS.get(model.uid) or KINDS.get(model.uid, model.uid)
        entry_id = number_of(value["id"])
        return self.ids.key(kind, entry_id) if entry_id is not None else value["id"]


def plain_body(registry: Registry, ids: Ids, kind: str, body: Any) -> Any:
    """A plugin route's answer as ``{"data": …, "meta": None}`` (errors as compare.py keeps
    them); ``kind`` is the query's (users, roles, files)."""
    if isinstance(body, dict) and "error" in body and body.get("data") is None:
        error = body["error"] or {}
        return {"error": {"name": error.get("name"), "message": error.get("message")}}
    model = registry.content_types[ROUTE_MODELS[kind]]
    if isinstance(body, dict) and set(body) == {"roles"}:
        body = body["roles"]
    elif isinstance(body, dict) and set(body) == {"role"}:
        body = body["role"]
    return {"data": _Plain(registry, ids).entry(model, body), "meta": None}


#: the rows of docs/differences-from-strapi.md the plugin routes differ by
NON_NUMERIC_ID = "on purpose: a non-numeric id is 404 (Strapi: 500)"
MISSING_USER = "on purpose: GET /api/users/:id of no user is 404 (Strapi: 204)"
COUNT_WHERE = "on purpose: /api/users/count reads filters, not its query string as a where"


def plugin_expectation(query: Any, ours: int, theirs: int) -> str:
    """The row that explains a plugin route's difference (statuses ``ours`` and ``theirs``),
    or ``""``."""
    if "invalid:id" in query.tags and (ours, theirs) == (404, 500):
        return NON_NUMERIC_ID
    if "missing:id" in query.tags and query.kind == "users" and (ours, theirs) == (404, 204):
        return MISSING_USER
    if query.path == "/api/users/count" and query.params and theirs in (200, 500):
        return COUNT_WHERE
    return ""
