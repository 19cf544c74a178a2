"""Normalizing a corpus answer as ``diff/compare.py`` normalizes the random queries' answers:
ids become the data set's keys, timestamps ``<ts>``, component and dynamic-zone item ids are
dropped, what each server makes up for a file (hash, URL, formats, provider data) becomes a
marker, and so does an image's size (Strapi stores images re-encoded by sharp). Numbers keep
the text each server wrote. The walk follows the project's own schemas
(``diff/corpus_models.py``), so it needs nothing of contentapi's loader.
"""

from __future__ import annotations

import json
from typing import Any

from diff.corpus_models import USER, Project, Type
from diff.corpus_seed import Seeded

__all__ = ["load_json", "normalize"]

TIMESTAMPS = {"createdAt", "updatedAt", "publishedAt"}
FILE_VOLATILE = ("hash", "url", "provider_metadata", "previewUrl", "formats")


def load_json(text: str) -> Any:
    """JSON with every number kept as the text the server wrote (``#3`` and ``#3.0`` differ)."""
    try:
        return json.loads(text, parse_float=lambda s: f"#{s}", parse_int=lambda s: f"#{s}")
    except ValueError:
        return {"<not json>": text[:200]}


def _number(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("#"):
        return value[1:]
    return value


class _Walk:
    def __init__(self, project: Project, seeded: Seeded) -> None:
        self.project = project
        self.seeded = seeded

    def entry(self, model: Type | None, value: Any) -> Any:
        if not isinstance(value, dict) or "id" not in value or model is None:
            return value
        out = {k: v for k, v in value.items() if k not in ("id", "attributes")}
        out["id"] = self.seeded.key(model.uid, _number(value["id"]))
        if "attributes" in value:
            out["attributes"] = self.attributes(model, value["attributes"])
        elif model.uid == USER:  # /api/users answers flat objects
            out.update(self.attributes(model, out))
        return out

    def attributes(self, model: Type, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        out: dict[str, Any] = {}
        for name, value in values.items():
            spec = model.attributes.get(name) or {}
            kind = spec.get("type")
            if name in TIMESTAMPS:
                out[name] = None if value is None else "<ts>"
            elif name == "localizations" and model.kind != "component":
                out[name] = self.wrapper(model, value)
            elif kind == "relation":
                out[name] = self.wrapper(self.project.model(spec.get("target", "")), value)
            elif kind == "media":
                out[name] = self.media(value)
            elif kind == "component":
                component = self.project.components.get(spec.get("component", ""))
                if isinstance(value, list):
                    out[name] = [self.component(component, item) for item in value]
                else:
                    out[name] = self.component(component, value)
            elif kind == "dynamiczone" and isinstance(value, list):
                out[name] = [
                    self.component(self.project.components.get(item.get("__component", "")), item)
                    if isinstance(item, dict)
                    else item
                    for item in value
                ]
            else:
                out[name] = value
        return out

    def media(self, value: Any) -> Any:
        if not isinstance(value, dict) or "data" not in value:
            return value

        def one(item: Any) -> Any:
            if not isinstance(item, dict):
                return item
            attributes = dict(item.get("attributes") or {})
            for volatile in FILE_VOLATILE:
                if attributes.get(volatile) is not None:
                    attributes[volatile] = f"<{volatile}>"
            for stamp in ("createdAt", "updatedAt"):
                if stamp in attributes:
                    attributes[stamp] = "<ts>"
            if str(attributes.get("mime", "")).startswith("image/") and "size" in attributes:
                # Strapi's upload re-encodes images with sharp (sizeOptimization) and records
                # the new size; contentapi keeps the bytes received (docs/diff-report.md)
                attributes["size"] = "<image size>"
            return {
                "id": self.seeded.key("files", _number(item.get("id"))),
                "attributes": attributes,
            }

        data = value["data"]
        return {**value, "data": [one(i) for i in data] if isinstance(data, list) else one(data)}

    def component(self, component: Type | None, value: Any) -> Any:
        if not isinstance(value, dict) or component is None:
            return value
        return self.attributes(component, {k: v for k, v in value.items() if k != "id"})

    def wrapper(self, target: Type | None, value: Any) -> Any:
        if not isinstance(value, dict) or "data" not in value:
            return value
        data = value["data"]
        if isinstance(data, list):
            return {**value, "data": [self.entry(target, item) for item in data]}
        return {**value, "data": self.entry(target, data) if data is not None else None}


def normalize(project: Project, seeded: Seeded, path: str, status: int, text: str) -> Any:
    """The answer to ``GET path`` (a resolved URL) in the form two servers are compared in."""
    body = load_json(text)
    if not isinstance(body, dict):
        return body
    if status >= 400 or ("error" in body and body.get("data") is None):
        error = body.get("error") or {}
        return {"error": {"name": error.get("name"), "message": error.get("message")}}
    walk = _Walk(project, seeded)
    model = project.by_path(path)
    data = body.get("data")
    if isinstance(data, list):
        data = [walk.entry(model, item) for item in data]
    elif isinstance(data, dict):
        data = walk.entry(model, data)
    return {"data": data, "meta": body.get("meta")}
