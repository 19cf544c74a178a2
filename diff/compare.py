"""Normalizing two answers to one query and naming how they differ.

What must not count is normalized away: ids become natural keys, timestamps become `<ts>`,
component and dynamic-zone item ids (different sequences on each server) are dropped, media
hashes and URLs become `<file>`. Numbers keep the text each server wrote (`3` and `3.0` differ,
as a JavaScript client sees them). A difference made on purpose
(docs/differences-from-strapi.md) is classified as expected, with the row it comes from;
anything else is an unexplained mismatch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry
from diff.compare_plugins import ROUTE_MODELS, number_of, plain_body, plugin_expectation
from diff.generate import KINDS, Query
from diff.graphql_generate import TOTAL_SORTS
from diff.seed import Ids

__all__ = ["Answer", "Verdict", "compare"]

TIMESTAMPS = {"createdAt", "updatedAt", "publishedAt"}
UNIQUE_SORTS = {"title", "name", "id"}  # never null, never equal in the data set


@dataclass
class Answer:
    status: int
    text: str


@dataclass
class Verdict:
    same: bool
    kind: str = ""  # the mismatch class
    expected: str = ""  # the docs/differences-from-strapi.md row that explains it, if any
    detail: str = ""
    status: int = 0  # the HTTP status contentapi answered


def _load(text: str) -> Any:
    try:
        return json.loads(text, parse_float=lambda s: f"#{s}", parse_int=lambda s: f"#{s}")
    except ValueError:
        return {"<not json>": text[:200]}


class Normalizer:
    def __init__(self, registry: Registry, ids: Ids) -> None:
        self.registry = registry
        self.ids = ids

    def entry(self, model: ContentType, value: Any) -> Any:
        if not isinstance(value, dict) or "id" not in value:
            return value
        kind = KINDS.get(model.uid, model.uid)
        entry_id = number_of(value["id"])
        result = {"id": self.ids.key(kind, entry_id) if entry_id is not None else value["id"]}
        if "attributes" in value:
            result["attributes"] = self.attributes(model, value["attributes"])
        return result

    def attributes(self, model: Model, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        out: dict[str, Any] = {}
        for name, value in values.items():
            attribute = model.attributes.get(name)
            if name in TIMESTAMPS:
                out[name] = None if value is None else "<ts>"
            elif name == "localizations" and isinstance(model, ContentType):
                out[name] = self.wrapper(model, value)
            elif isinstance(attribute, RelationAttribute):
                out[name] = self.wrapper(self.registry.content_types[attribute.target], value)
            elif isinstance(attribute, MediaAttribute):
                out[name] = self.media(value)
            elif isinstance(attribute, ComponentAttribute):
                component = self.registry.components[attribute.component]
                if isinstance(value, list):
                    out[name] = [self.component(component, item) for item in value]
                else:
                    out[name] = self.component(component, value)
            elif isinstance(attribute, DynamicZoneAttribute):
                out[name] = [
                    self.component(self.registry.components.get(item.get("__component")), item)
                    if isinstance(item, dict)
                    else item
                    for item in value or []
                ]
            else:
                out[name] = value
        return out

    def media(self, value: Any) -> Any:
        """Files by name; what each server makes up (hash, url, provider data) as markers."""
        if not isinstance(value, dict) or "data" not in value:
            return value

        def one(item: Any) -> Any:
            if not isinstance(item, dict):
                return item
            entry_id = number_of(item.get("id"))
            attributes = dict(item.get("attributes") or {})
            for volatile in ("hash", "url", "provider_metadata", "previewUrl", "formats"):
                if attributes.get(volatile) is not None:
                    attributes[volatile] = f"<{volatile}>"
            for stamp in ("createdAt", "updatedAt"):
                if stamp in attributes:
                    attributes[stamp] = "<ts>"
            key = self.ids.key("files", entry_id) if entry_id is not None else None
            return {"id": key, "attributes": attributes}

        data = value["data"]
        return {"data": [one(i) for i in data] if isinstance(data, list) else one(data)}

    def component(self, component: Model | None, value: Any) -> Any:
        if not isinstance(value, dict) or component is None:
            return value
        return self.attributes(component, {k: v for k, v in value.items() if k != "id"})

    def wrapper(self, target: ContentType, value: Any) -> Any:
        if not isinstance(value, dict) or "data" not in value:
            return value
        data = value["data"]
        if isinstance(data, list):
            return {"data": [self.entry(target, item) for item in data]}
        if isinstance(data, dict) and "attributes" in data and set(data) == {"attributes"}:
            return value  # `count`
        return {"data": self.entry(target, data) if data is not None else None}

    def body(self, query: Query, body: Any) -> Any:
        if query.kind in ROUTE_MODELS:
            return plain_body(self.registry, self.ids, query.kind, body)
        if not isinstance(body, dict):
            return body
        uid = next(u for u, k in KINDS.items() if k == query.kind)
        model = self.registry.content_types[uid]
        if "error" in body and body.get("data") is None:
            error = body["error"] or {}
            return {"error": {"name": error.get("name"), "message": error.get("message")}}
        data = body.get("data")
        if isinstance(data, list):
            data = [self.entry(model, item) for item in data]
        elif isinstance(data, dict):
            data = self.entry(model, data)
        return {"data": data, "meta": body.get("meta")}


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key} only on {'contentapi' if key in a else 'strapi'}"
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return ""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):

            def keys(items: list[Any]) -> list[Any]:
                return [i.get("id") if isinstance(i, dict) else i for i in items][:10]

            return f"{path} length {len(a)} vs {len(b)}: {keys(a)} vs {keys(b)}"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return ""
    return "" if a == b else f"{path}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"


def _class_of_path(detail: str) -> str:
    """`.data[3].attributes.views: …` → `value data.attributes.views`."""
    head = detail.split(":")[0].split(" ")[0]
    parts = [p.split("[")[0] for p in head.strip(".").split(".")]
    return ".".join(p for p in parts if p)


#: natural keys of the data set's drafts (``run.py`` fills it from the data set)
DRAFTS: set[str] = set()


def _is_draft(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    return (
        entry.get("id") in DRAFTS or (entry.get("attributes") or {}).get("publishedAt", 1) is None
    )


def _without_drafts(value: Any) -> Any:
    """``value`` with the drafts inside populated relations dropped."""
    if isinstance(value, dict):
        if isinstance(value.get("data"), list):
            return {
                **value,
                "data": [_without_drafts(v) for v in value["data"] if not _is_draft(v)],
            }
        if _is_draft(value.get("data")):
            return {**value, "data": None}
        return {k: _without_drafts(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_drafts(v) for v in value]
    return value


def _without_file_sizes(value: Any) -> Any:
    """``value`` without the ``size`` of files (objects with a ``mime``): Strapi records the
    size of the image sharp re-encoded (the upload row below), so a single read populating
    files and drafts differs in both ways at once."""
    if isinstance(value, dict):
        return {
            k: _without_file_sizes(v)
            for k, v in value.items()
            if not (k == "size" and "mime" in value)
        }
    if isinstance(value, list):
        return [_without_file_sizes(v) for v in value]
    return value


def _counts_fewer(detail: str) -> bool:
    """A populated relation's ``count`` where ours is the smaller (``"#4" vs "#8"``)."""
    head, _, values = detail.partition(": ")
    if not head.endswith(".attributes.count"):
        return False
    ours, _, theirs = values.partition(" vs ")
    a, b = number_of(_load(ours)), number_of(_load(theirs))
    return a is not None and b is not None and a < b


def _without_extra_keys(ours: Any, theirs: Any) -> Any:
    """``theirs`` without the object keys ``ours`` does not have, at every level (what a
    joined column adds to Strapi's answer when ``fields`` are asked)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {k: _without_extra_keys(ours[k], v) for k, v in theirs.items() if k in ours}
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [_without_extra_keys(a, b) for a, b in zip(ours, theirs, strict=True)]
    return theirs


def _sort_keys(sort: Any) -> list[str]:
    """Every sorted path of a sort parameter in any notation (`a:asc,b`, arrays, objects)."""
    if isinstance(sort, str):
        return [part.split(":")[0].strip() for part in sort.split(",") if part.strip()]
    if isinstance(sort, list):
        return [key for item in sort for key in _sort_keys(item)]
    if isinstance(sort, dict):
        keys = []
        for name, value in sort.items():
            inner = _sort_keys(value) if isinstance(value, dict) else [""]
            keys += [f"{name}.{k}" if k else name for k in inner]
        return keys
    return []


#: the string operators Strapi 4.25 runs as LIKE, where ``%`` and ``_`` are wildcards
LIKE_OPERATORS = {
    f"${prefix}{name}{suffix}"
    for name in ("contains", "Contains", "startsWith", "StartsWith", "endsWith", "EndsWith")
    for prefix in ("", "not")
    for suffix in ("", "i")
} | {"$eqi", "$nei"}


def _wildcard_filter(value: Any) -> bool:
    """Whether a filter compares with ``%`` or ``_`` through a LIKE operator: Strapi reads them
    as wildcards, contentapi literally (docs/differences-from-strapi.md)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in LIKE_OPERATORS:
                texts = item if isinstance(item, list) else [item]
                if any(isinstance(t, str) and ("%" in t or "_" in t) for t in texts):
                    return True
            if _wildcard_filter(item):
                return True
    if isinstance(value, list):
        return any(_wildcard_filter(item) for item in value)
    return False


def _sort_is_total(query: Query) -> bool:
    """Whether the sort orders every entry (a top-level unique, never-null attribute in it)."""
    unique = TOTAL_SORTS[query.kind] if query.kind in ROUTE_MODELS else UNIQUE_SORTS
    return any(key in unique for key in _sort_keys(query.params.get("sort")))


def compare(
    query: Query, ours: Answer, theirs: Answer, ours_n: Normalizer, theirs_n: Normalizer
) -> Verdict:
    """The verdict on one query's two answers (with the status contentapi answered)."""
    return replace(_compare(query, ours, theirs, ours_n, theirs_n), status=ours.status)


def _compare(
    query: Query, ours: Answer, theirs: Answer, ours_n: Normalizer, theirs_n: Normalizer
) -> Verdict:
    a = ours_n.body(query, _load(ours.text))
    b = theirs_n.body(query, _load(theirs.text))
    if ours.status >= 500:  # never expected, even where Strapi fails the same way
        return Verdict(False, f"status {ours.status} (ours)", "", f"ours {json.dumps(a)[:200]}")
    plugin_row = (
        plugin_expectation(query, ours.status, theirs.status) if query.kind in ROUTE_MODELS else ""
    )
    if ours.status != theirs.status:
        kind = f"status {ours.status} vs strapi {theirs.status}"
        if plugin_row:
            return Verdict(False, kind, plugin_row)
        if theirs.status == 500 and ours.status == 400:
            return Verdict(
                False, kind, "on purpose: Strapi answers 500 to bad input; we answer 400"
            )
        if theirs.status == 200 and ours.status == 400:
            for tag, row in (
                ("invalid:operator", "on purpose: an unknown filter operator is 400"),
            ):
                if tag in query.tags:
                    return Verdict(False, kind, row)
            empty = isinstance(b, dict) and b.get("data") == []
            if empty and "populate:filters" in query.tags:
                # Strapi validates a populate's filters only when it has parent rows to
                # populate; we validate the whole query before reading (a bad value is 400
                # whatever the data). Listed in docs/diff-report.md.
                return Verdict(
                    False,
                    kind,
                    "beyond the listed differences: populate filters validated up front",
                )
        draft = isinstance(b, dict) and _is_draft(b.get("data") or {})
        if query.single and ours.status == 404 and theirs.status == 200 and draft:
            live = query.params.get("publicationState", "live") == "live"
            if live:
                return Verdict(False, kind, "on purpose: GET /api/P/:id of a draft is 404 in live")
        return Verdict(
            False, kind, "", f"ours {json.dumps(a)[:200]} | strapi {json.dumps(b)[:200]}"
        )
    if a == b:
        return Verdict(True)
    if ours.status != 200:
        return Verdict(False, "error message", "", f"ours {a} | strapi {b}")
    if plugin_row:
        return Verdict(False, "value data", plugin_row, _first_difference(a, b))
    meta_a, meta_b = (a or {}).get("meta"), (b or {}).get("meta")
    data_a, data_b = (a or {}).get("data"), (b or {}).get("data")
    literal = _wildcard_filter(query.params.get("filters"))
    literally = "on purpose: `%` and `_` match literally"
    if isinstance(data_a, list) and isinstance(data_b, list):
        ids_a = [e.get("id") for e in data_a if isinstance(e, dict)]
        ids_b = [e.get("id") for e in data_b if isinstance(e, dict)]
        if ids_a != ids_b and literal:
            return Verdict(False, "entries", literally, f"ours {ids_a[:8]} | strapi {ids_b[:8]}")
        if ids_a != ids_b:
            if "sort" not in query.params:
                ours_ids = [ours_n.ids.by_key.get(query.kind, {}).get(k, -1) for k in ids_a]
                if ours_ids != sorted(ours_ids):
                    return Verdict(False, "order without sort not by id", "", str(ids_a[:8]))
            if sorted(map(str, ids_a)) == sorted(map(str, ids_b)) and not _sort_is_total(query):
                return Verdict(False, "order", "on purpose: no sort / ties → id ascending", "")
            total = number_of(((meta_b or {}).get("pagination") or {}).get("total"))
            paged = (
                "pagination" in query.params
                or (
                    query.kind in ROUTE_MODELS
                    and ("start" in query.params or "limit" in query.params)
                )
                or (total is not None and total > len(ids_b))
            )  # the default page (25) cuts too; the plugin routes page with top-level start/limit
            if paged and not _sort_is_total(query):
                return Verdict(
                    False, "page content", "on purpose: pages ordered by id under ties", ""
                )
            detail = f"ours {ids_a[:8]} | strapi {ids_b[:8]}"
            return Verdict(False, "entries", "", detail)
        if meta_a != meta_b:
            if literal:
                return Verdict(False, "meta", literally, f"ours {meta_a} | strapi {meta_b}")
            if any(t.startswith("deep:") for t in query.tags):
                return Verdict(False, "meta", "on purpose: total under deep filters is exact", "")
            return Verdict(False, "meta", "", f"ours {meta_a} | strapi {meta_b}")
    detail = _first_difference(data_a, data_b, ".data")
    kind = f"value {_class_of_path(detail)}"
    fields_asked = "fields" in json.dumps(query.params)
    # (a file's `related` is missing here, whatever the fields: not this row)
    joined = not (query.kind == "files" and ".related" in detail)
    if fields_asked and "only on strapi" in detail and joined:
        return Verdict(
            False, kind, "on purpose: fields with a join returns exactly the fields asked", detail
        )
    relation_sorts = [k for k in _sort_keys(query.params.get("sort")) if "." in k]
    if any(
        detail.startswith(".data[") and f"].attributes.{k.rsplit('.', 1)[1]}:" in detail
        for k in relation_sorts
    ):
        # Strapi joins the related table for the sort and its column overwrites the entry's
        # own attribute of the same name (`sort=parent.description` answers the parent's
        # description as the category's).
        return Verdict(
            False, kind, "on purpose: fields with a join (the join's column overwrites)", detail
        )
    if ".attributes.size" in detail and any(
        name in detail for name in (".cover.", ".gallery.", ".file.", ".avatar.")
    ):
        # Strapi re-encodes uploaded images with sharp (its sizeOptimization) and records the
        # re-encoded size; we store the bytes received. Not a query difference.
        return Verdict(False, kind, "upload: Strapi stores images re-encoded by sharp", detail)
    live = query.params.get("publicationState", "live") == "live"
    if query.single and live:
        ours_live = _without_file_sizes(_without_drafts(data_a))
        theirs_live = _without_file_sizes(_without_drafts(data_b))
        if (
            ours_live == theirs_live
            or (fields_asked and _without_extra_keys(ours_live, theirs_live) == ours_live)
            # a count of a single read leaves the drafts out as its relations do
            or _counts_fewer(detail)
        ):
            # (also when Strapi adds a joined column to what is left: both rows at once)
            return Verdict(
                False,
                kind,
                "on purpose: drafts left out of populated relations of a single read",
                detail,
            )
    return Verdict(False, kind, "", detail)
