"""Seeded random read-only GraphQL documents over the example models, for `make diff`.

A document is kept as a small JSON-like tree (not as text) so that it can be rendered once per
server — ids are natural keys resolved at rendering (`{"$ref": [kind, key]}`) — and shrunk by
removing one node at a time (`candidates`). What it covers: every filter operator per
attribute type, filters through relations and components, `sort`, both pagination styles,
`publicationState`, `locale`, nested relations with their own arguments, components,
repeatable components and media lists with arguments, dynamic-zone fragments, media,
aliases (also one field twice with different arguments), named and inline fragments,
variables, `@include`/`@skip`, the users-permissions, upload and i18n queries, and about one
document in ten invalid (the error paths).

Nodes: a field is ``{"f": name, "as": alias?, "args": {…}, "sel": [...], "if": (directive,
variable)?}``, an inline fragment ``{"on": Type, "sel": [...]}``, a spread ``{"spread":
name}``. Values are JSON values plus ``{"$var": name}``, ``{"$enum": NAME}``, ``{"$ref":
[kind, key]}`` (an id) and ``{"$raw": text}`` (a literal written as is, for invalid ones).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from diff.dataset import Dataset
from diff.seed import Ids

__all__ = ["USERS", "Doc", "GraphqlGenerator", "candidates", "render", "widen"]

#: content type uid → (kind of diff.seed.Ids, GraphQL type name, collection root, single root)
TYPES = {
    "api::article.article": ("articles", "Article", "articles", "article"),
    "api::author.author": ("authors", "Author", "authors", "author"),
    "api::category.category": ("categories", "Category", "categories", "category"),
    "api::profile.profile": ("profiles", "Profile", "profiles", "profile"),
}
#: plugin content types → kind of diff.seed.Ids (what the GraphQL run maps ids of)
PLUGIN_KINDS = {
    "plugin::upload.file": "files",
    "plugin::users-permissions.user": "users",
    "plugin::users-permissions.role": "roles",
    "plugin::users-permissions.permission": "permissions",
    "plugin::i18n.locale": "locales",
}
KIND_OF = {**{uid: spec[0] for uid, spec in TYPES.items()}, **PLUGIN_KINDS}
#: attributes unique and never null per kind: a sort on one of them orders every entry
TOTAL_SORTS = {
    "articles": {"title", "id"},
    "authors": {"name", "id"},
    "categories": {"name", "slug", "id"},
    "profiles": {"id"},
    "files": {"name", "id"},
    "users": {"username", "email", "id"},
    "roles": {"name", "type", "id"},
    "locales": {"code", "name", "id"},
}
#: the users the GraphQL run registers on both servers (username, e-mail, password)
USERS = [
    ("ada", "ada@example.com", "Passw0rd!ada"),
    ("bob", "bob@example.com", "Passw0rd!bob"),
    ("chloé", "chloe@example.com", "Passw0rd!chl"),
]

#: filter values for the plugin types (the data set only records the content types')
PLUGIN_VALUES: dict[tuple[str, str], list[Any]] = {
    ("files", "name"): ["red.png", "green.png", "blue.png"],
    ("files", "mime"): ["image/png"],
    ("files", "ext"): [".png"],
    ("files", "width"): [40, 64, 20],
    ("files", "height"): [30, 64, 50],
    ("users", "username"): [u[0] for u in USERS],
    ("users", "email"): [u[1] for u in USERS],
    ("users", "provider"): ["local"],
    ("roles", "name"): ["Authenticated", "Public"],
    ("roles", "type"): ["authenticated", "public"],
}
STRING_TYPES = ("string", "text", "richtext", "email", "uid", "enumeration", "password")
ALL_OPS = [
    "eq",
    "eqi",
    "ne",
    "nei",
    "startsWith",
    "endsWith",
    "contains",
    "notContains",
    "containsi",
    "notContainsi",
    "gt",
    "gte",
    "lt",
    "lte",
    "null",
    "notNull",
    "in",
    "notIn",
    "between",
    "and",
    "or",
    "not",
]
LIST_OPS = {"in", "notIn", "between", "and", "or"}
LIKE_OPS = {"startsWith", "endsWith", "contains", "notContains", "containsi", "notContainsi"}
META = {"f": "meta", "sel": [{"f": "pagination", "sel": [{"f": n} for n in ("total", "page")]}]}
FILE_FIELDS = [
    "name",
    "alternativeText",
    "caption",
    "width",
    "height",
    "formats",
    "hash",
    "ext",
    "mime",
    "size",
    "url",
    "previewUrl",
    "provider",
    "provider_metadata",
    "createdAt",
]
ALIASES = ["a", "b", "first", "second", "x1"]


@dataclass
class Doc:
    """One document: the operation tree, or ``raw`` text sent as is (a syntax error)."""

    op: dict[str, Any]
    tags: set[str] = field(default_factory=set)
    raw: str | None = None
    auth: str = "token"  # "user": sent with the first registered user's JWT (for `me`)

    def copy(self, op: dict[str, Any]) -> Doc:
        return Doc(op, set(self.tags), self.raw, self.auth)


# ---------------------------------------------------------------------------------- rendering


def _literal(value: Any, ids: Ids) -> str:
    if isinstance(value, dict):
        if "$var" in value:
            return "$" + value["$var"]
        if "$enum" in value:
            return str(value["$enum"])
        if "$raw" in value:
            return str(value["$raw"])
        if "$ref" in value:
            return json.dumps(_ref(value["$ref"], ids))
        return "{" + ", ".join(f"{k}: {_literal(v, ids)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, ids) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return json.dumps(value, ensure_ascii=False)


def _ref(ref: list[str], ids: Ids) -> str:
    kind, key = ref
    return str(ids.by_key.get(kind, {}).get(key, 987654))


def _json(value: Any, ids: Ids) -> Any:
    """A variable's value as JSON (what a client sends in ``variables``)."""
    if isinstance(value, dict):
        if "$enum" in value:
            return value["$enum"]
        if "$ref" in value:
            return _ref(value["$ref"], ids)
        return {k: _json(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v, ids) for v in value]
    return value


def _selection(nodes: list[dict[str, Any]], ids: Ids) -> str:
    parts = []
    for node in nodes:
        if "spread" in node:
            parts.append(f"...{node['spread']}")
        elif "on" in node:
            parts.append(f"... on {node['on']} {_selection(node['sel'], ids)}")
        else:
            text = f"{node['as']}: {node['f']}" if node.get("as") else node["f"]
            if node.get("args"):
                text += (
                    "("
                    + ", ".join(f"{k}: {_literal(v, ids)}" for k, v in node["args"].items())
                    + ")"
                )
            if node.get("if"):
                directive, variable = node["if"]
                text += f" @{directive}(if: ${variable})"
            if "sel" in node:
                text += " " + _selection(node["sel"], ids)
            parts.append(text)
    return "{ " + " ".join(parts) + " }"


def render(doc: Doc, ids: Ids) -> tuple[str, dict[str, Any]]:
    """The document's text and variables for the server whose ids are ``ids``."""
    if doc.raw is not None:
        return doc.raw, {}
    op = doc.op
    head = "query"
    if op.get("name"):
        head += f" {op['name']}"
    if op.get("vars"):
        head += (
            "(" + ", ".join(f"${name}: {spec['type']}" for name, spec in op["vars"].items()) + ")"
        )
    text = f"{head} {_selection(op['sel'], ids)}"
    for name, fragment in (op.get("fragments") or {}).items():
        text += f"\nfragment {name} on {fragment['on']} {_selection(fragment['sel'], ids)}"
    variables = {
        name: _json(spec["value"], ids)
        for name, spec in (op.get("vars") or {}).items()
        if "value" in spec
    }
    return text, variables


# ---------------------------------------------------------------------------------- shrinking


def _special(value: Any) -> bool:
    return isinstance(value, dict) and any(k in value for k in ("$var", "$enum", "$ref", "$raw"))


def _paths(op: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    """Every removable position: selections, arguments, input-object keys and list items
    (in arguments and in variables' values)."""

    def values(value: Any, prefix: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        if isinstance(value, dict) and not _special(value):
            for key, item in value.items():
                yield (*prefix, key)
                yield from values(item, (*prefix, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield (*prefix, index)
                yield from values(item, (*prefix, index))

    def selections(
        nodes: list[dict[str, Any]], prefix: tuple[Any, ...]
    ) -> Iterator[tuple[Any, ...]]:
        for index, node in enumerate(nodes):
            yield (*prefix, index)
            for name, value in (node.get("args") or {}).items():
                yield (*prefix, index, "args", name)
                yield from values(value, (*prefix, index, "args", name))
            if "sel" in node:
                yield from selections(node["sel"], (*prefix, index, "sel"))

    yield from selections(op["sel"], ("sel",))
    for name, spec in (op.get("vars") or {}).items():
        if "value" in spec:
            yield from values(spec["value"], ("vars", name, "value"))
    for name, fragment in (op.get("fragments") or {}).items():
        yield from selections(fragment["sel"], ("fragments", name, "sel"))


def _used(op: dict[str, Any], name: str, kind: str) -> bool:
    if kind == "vars":
        text = json.dumps({k: v for k, v in op.items() if k != "vars"})
        return f'"$var": "{name}"' in text or f'"{name}"]' in text
    others = {k: v for k, v in (op.get("fragments") or {}).items() if k != name}
    return f'"spread": "{name}"' in json.dumps([op["sel"], others])


def _drop_unused(op: dict[str, Any]) -> None:
    changed = True
    while changed:  # a fragment dropped can leave the one it spread unused
        changed = False
        for kind in ("fragments", "vars"):
            for name in list(op.get(kind) or {}):
                if not _used(op, name, kind):
                    del op[kind][name]
                    changed = True


def widen(doc: Doc) -> Doc:
    """The document with every collection read whole (`pagination: {start: 0, limit: 100}`):
    where only the order of ties differs, the pages differ but the whole sets do not."""
    op = deepcopy(doc.op)

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            if node.get("coll"):
                node["args"] = {
                    **(node.get("args") or {}),
                    "pagination": {"start": 0, "limit": 100},
                }
            walk(node.get("sel") or [])

    walk(op["sel"])
    for fragment in (op.get("fragments") or {}).values():
        walk(fragment["sel"])
    _drop_unused(op)
    return doc.copy(op)


def candidates(doc: Doc) -> Iterator[Doc]:
    """Documents one node smaller (unused variables and fragments dropped as well)."""
    if doc.raw is not None:
        return
    for path in list(_paths(doc.op)):
        op = deepcopy(doc.op)
        node: Any = op
        for key in path[:-1]:
            node = node[key]
        if isinstance(node, list):
            node.pop(path[-1])
            if not node and path[-2] == "sel":
                continue  # `{ }` is no document
        else:
            del node[path[-1]]
        _drop_unused(op)
        yield doc.copy(op)


# ---------------------------------------------------------------------------------- generation


class GraphqlGenerator:
    def __init__(self, registry: Registry, data: Dataset, seed: int) -> None:
        self.registry = registry
        self.data = data
        self.rng = random.Random(seed)
        self.vars: dict[str, dict[str, Any]] = {}
        self.fragments: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------ values and filters

    def _scalars(self, model: Model) -> list[ScalarAttribute]:
        return [
            a
            for a in model.attributes.values()
            if isinstance(a, ScalarAttribute) and not a.private and a.type != "password"
        ]

    def _keys(self, kind: str) -> list[str]:
        """The natural keys of ``kind`` (what an id filter or a single read names)."""
        if kind == "files":
            return sorted(self.data.files)
        if kind == "users":
            return [user[0] for user in USERS]
        return [s.key for s in self.data.steps if s.kind == kind and not s.update]

    def _value(self, kind: str, attribute: ScalarAttribute) -> Any:
        seen = self.data.values.get((kind, attribute.name)) or PLUGIN_VALUES.get(
            (kind, attribute.name), []
        )
        if attribute.type == "json":
            return self.rng.choice([{"a": 1}, "text", 1])
        if seen and self.rng.random() < 0.8:
            value = self.rng.choice(seen)
            if attribute.type in STRING_TYPES and isinstance(value, str):
                if self.rng.random() < 0.4:
                    start = self.rng.randrange(len(value))
                    value = value[start : start + self.rng.randint(1, 4)]
                return value
            if attribute.type == "biginteger":
                return str(value)
            if attribute.type in ("float", "decimal") and isinstance(value, int):
                return float(value) if self.rng.random() < 0.5 else value
            if attribute.type == "integer":
                return int(value)
            return value
        return {
            "integer": 7,
            "biginteger": "100",
            "float": 2.5,
            "decimal": 8.25,
            "boolean": True,
            "date": "2024-03-04",
            "datetime": "2024-03-10T03:30:00.000Z",
            "timestamp": "2024-03-10T03:30:00.000Z",
            "time": "03:21:39",
            "enumeration": "news",
        }.get(attribute.type, "a")

    def _operator(self, kind: str, attribute: ScalarAttribute, tags: set[str]) -> dict[str, Any]:
        if attribute.type == "json":
            op = self.rng.choice(["null", "notNull", "null", "eq"])
        elif attribute.type == "boolean":
            op = self.rng.choice(["eq", "ne", "null", "notNull", "in", "not"])
        else:
            op = self.rng.choice(ALL_OPS)
        tags.add(f"op:{op}:{attribute.type}")
        if op in ("null", "notNull"):
            return {op: self.rng.choice([True, False])}
        if op == "not":
            return {"not": self._operator(kind, attribute, tags)}
        if op in LIST_OPS:
            count = 2 if op == "between" else self.rng.randint(1, 3)
            values = [self._value(kind, attribute) for _ in range(count)]
            if op == "between":
                values.sort(key=str)
            return {op: values}
        value = self._value(kind, attribute)
        if op in LIKE_OPS and isinstance(value, str) and ("%" in value or "_" in value):
            tags.add("like:wildcard")
        return {op: value}

    def _condition(self, kind: str, model: Model, tags: set[str], depth: int = 0) -> dict[str, Any]:
        nested = [
            a
            for a in model.attributes.values()
            if isinstance(a, RelationAttribute | ComponentAttribute)
            and not a.private
            and (not isinstance(a, RelationAttribute) or a.target in KIND_OF)
        ]
        roll = self.rng.random()
        if depth < 2 and nested and roll < 0.3:
            attribute = self.rng.choice(nested)
            if isinstance(attribute, RelationAttribute):
                target: Model = self.registry.content_types[attribute.target]
                target_kind = KIND_OF[attribute.target]
                tags.add(f"deep:{attribute.relation}")
            else:
                target = self.registry.components[attribute.component]
                target_kind = attribute.component
                tags.add("deep:component")
            if self.rng.random() < 0.03:
                tags.add("filter:empty-relation")
                return {attribute.name: {}}
            return {attribute.name: self._condition(target_kind, target, tags, depth + 1)}
        if roll < 0.4 and depth < 2:
            logic = self.rng.choice(["and", "or", "not"])
            tags.add(f"logic:{logic}")
            if logic == "not":
                return {"not": self._condition(kind, model, tags, depth + 1)}
            return {logic: [self._condition(kind, model, tags, depth + 1) for _ in range(2)]}
        scalars = self._scalars(model)
        keys = self._keys(kind)
        if keys and self.rng.random() < 0.1:
            tags.add("filter:id")
            op = self.rng.choice(["eq", "ne", "in", "notIn"])
            refs = [{"$ref": [kind, self.rng.choice(keys)]} for _ in range(2)]
            return {"id": {op: refs if op in ("in", "notIn") else refs[0]}}
        if not scalars:
            return {"id": {"notNull": True}}
        attribute = self.rng.choice(scalars)
        return {attribute.name: self._operator(kind, attribute, tags)}

    def filters(self, kind: str, model: Model, tags: set[str]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for _ in range(self.rng.randint(1, 2)):
            merged.update(self._condition(kind, model, tags))
        return merged

    def sort(self, kind: str, model: Model, tags: set[str], relations: bool = True) -> Any:
        names = [a.name for a in self._scalars(model) if a.type != "json"]
        if isinstance(model, ContentType):
            names += ["id", "createdAt"]
        keys = []
        for _ in range(self.rng.randint(1, 2)):
            name = self.rng.choice(names)
            to_one = [
                a
                for a in model.attributes.values()
                if isinstance(a, RelationAttribute) and not a.is_to_many and not a.private
            ]
            if relations and to_one and self.rng.random() < 0.15:
                attribute = self.rng.choice(to_one)
                target = self.registry.content_types[attribute.target]
                inner = [a.name for a in self._scalars(target) if a.type != "json"]
                name = f"{attribute.name}.{self.rng.choice(inner)}"
                tags.add("sort:relation")
            direction = self.rng.choice(["asc", "desc", None])
            keys.append(name if direction is None else f"{name}:{direction}")
        tags.add("sort")
        if len(keys) == 1 and self.rng.random() < 0.5:
            return keys[0]  # a single string is coerced to a list
        return keys

    def pagination(self, tags: set[str]) -> dict[str, Any]:
        roll = self.rng.random()
        if roll < 0.45:
            tags.add("page")
            spec = {"page": self.rng.randint(1, 3), "pageSize": self.rng.choice([1, 2, 5, 10])}
            if self.rng.random() < 0.15:
                spec.pop(self.rng.choice(["page", "pageSize"]))
            return spec
        if roll < 0.9:
            tags.add("offset")
            spec = {"start": self.rng.randint(0, 6), "limit": self.rng.choice([1, 3, 10, -1])}
            if self.rng.random() < 0.15:
                spec.pop(self.rng.choice(["start", "limit"]))
            return spec
        tags.add("page:edge")
        return self.rng.choice(
            [{"page": 0}, {"pageSize": 0}, {"limit": 0}, {"start": 100}, {"pageSize": 150}]
        )

    # ------------------------------------------------------------ arguments and variables

    def _maybe_var(self, value: Any, gql_type: str, tags: set[str]) -> Any:
        if self.rng.random() < 0.15:
            name = f"v{len(self.vars)}"
            self.vars[name] = {"type": gql_type, "value": value}
            tags.add("variables")
            return {"$var": name}
        return value

    def collection_args(
        self,
        kind: str,
        model: Model,
        type_name: str,
        tags: set[str],
        *,
        draft: bool = False,
        locale: bool = False,
        probability: float = 0.5,
    ) -> dict[str, Any]:
        args: dict[str, Any] = {}
        if self.rng.random() < probability:
            args["filters"] = self._maybe_var(
                self.filters(kind, model, tags), f"{type_name}FiltersInput", tags
            )
        if self.rng.random() < probability:
            args["sort"] = self._maybe_var(
                self.sort(kind, model, tags, relations=isinstance(model, ContentType)),
                "[String]",
                tags,
            )
        if self.rng.random() < probability:
            args["pagination"] = self._maybe_var(self.pagination(tags), "PaginationArg", tags)
        if draft and self.rng.random() < 0.25:
            state = self.rng.choice(["LIVE", "PREVIEW"])
            tags.add(f"publicationState:{state}")
            args["publicationState"] = self._maybe_var({"$enum": state}, "PublicationState", tags)
        if locale and self.rng.random() < 0.25:
            code = self.rng.choice(["en", "fr", "all"])
            tags.add(f"locale:{code}")
            args["locale"] = self._maybe_var(code, "I18NLocaleCode", tags)
        return args

    # ------------------------------------------------------------ selections

    def _alias(self, node: dict[str, Any], tags: set[str]) -> dict[str, Any]:
        if self.rng.random() < 0.1:
            node["as"] = f"{self.rng.choice(ALIASES)}_{node['f']}"
            tags.add("alias")
        return node

    def file_entity(self, tags: set[str], depth: int) -> list[dict[str, Any]]:
        names = self.rng.sample(FILE_FIELDS, k=self.rng.randint(1, 5))
        attributes: list[dict[str, Any]] = [{"f": n} for n in names]
        if depth < 1 and self.rng.random() < 0.1:
            tags.add("file:related")
            attributes.append(
                {
                    "f": "related",
                    "sel": [
                        {"f": "__typename"},
                        {"on": "Article", "sel": [{"f": "title"}]},
                        {"on": "ComponentBlocksMedia", "sel": [{"f": "id"}]},
                    ],
                }
            )
        return [{"f": "id"}, {"f": "attributes", "sel": attributes}]

    def media(self, attribute: MediaAttribute, tags: set[str], depth: int) -> dict[str, Any]:
        tags.add("media:multiple" if attribute.multiple else "media:single")
        node: dict[str, Any] = {
            "f": attribute.name,
            "sel": [{"f": "data", "sel": self.file_entity(tags, depth + 1)}],
        }
        if attribute.multiple:
            node["coll"] = True
            files = self.registry.content_types.get("plugin::upload.file")
            if files is not None and self.rng.random() < 0.3:
                node["args"] = self.collection_args("files", files, "UploadFile", tags)
                if node["args"]:
                    tags.add("media:args")
        return node

    def component(
        self, attribute: ComponentAttribute, tags: set[str], depth: int
    ) -> dict[str, Any]:
        component = self.registry.components[attribute.component]
        node: dict[str, Any] = {"f": attribute.name, "sel": self.fields(component, tags, depth)}
        if attribute.repeatable:
            node["coll"] = True
            tags.add("component:repeatable")
            if self.rng.random() < 0.35:
                type_name = _component_type(attribute.component)
                node["args"] = self.collection_args(
                    attribute.component, component, type_name, tags, probability=0.4
                )
                if node["args"]:
                    tags.add("component:args")
        else:
            tags.add("component:single")
        return node

    def dynamic_zone(
        self, attribute: DynamicZoneAttribute, tags: set[str], depth: int
    ) -> dict[str, Any]:
        tags.add("dynamiczone")
        selections: list[dict[str, Any]] = [{"f": "__typename"}]
        for uid in attribute.components:
            if self.rng.random() < 0.75:
                component = self.registry.components[uid]
                fields = self.fields(component, tags, depth)
                for node in fields:
                    if uid == "blocks.quote" and node.get("f") == "body":
                        # String! here, String in the rich text: one response key cannot be
                        # both (graphql-js's OverlappingFieldsCanBeMerged), so clients alias
                        node["as"] = "quoteBody"
                selections.append({"on": _component_type(uid), "sel": fields})
        if self.rng.random() < 0.2:
            selections.append({"on": "Error", "sel": [{"f": "code"}, {"f": "message"}]})
        return {"f": attribute.name, "sel": selections}

    def relation(self, attribute: RelationAttribute, tags: set[str], depth: int) -> dict[str, Any]:
        target = self.registry.content_types[attribute.target]
        kind, type_name = TYPES[attribute.target][:2]
        entity = self.entity(target, tags, depth + 1)
        node: dict[str, Any] = {"f": attribute.name, "sel": [{"f": "data", "sel": entity}]}
        if attribute.is_to_many:
            node["coll"] = True
            tags.add("relation:to-many")
            if self.rng.random() < 0.5:
                node["args"] = self.collection_args(
                    kind,
                    target,
                    type_name,
                    tags,
                    draft=target.draft_and_publish,
                    probability=0.4,
                )
                if node["args"]:
                    tags.add("relation:args")
        else:
            tags.add("relation:to-one")
        return node

    def fields(self, model: Model, tags: set[str], depth: int) -> list[dict[str, Any]]:
        """A selection of the attributes of ``model`` (an entity's or a component's)."""
        selections: list[dict[str, Any]] = []
        if not isinstance(model, ContentType) and self.rng.random() < 0.5:
            selections.append({"f": "id"})
        scalars = self._scalars(model)
        count = self.rng.randint(min(1, len(scalars)), min(4, len(scalars)))
        for attribute in self.rng.sample(scalars, k=count):
            selections.append(self._alias({"f": attribute.name}, tags))
        others = [
            a
            for a in model.attributes.values()
            if not isinstance(a, ScalarAttribute) and not a.private
        ]
        limit = 3 if depth == 0 else 1 if depth < 2 else 0
        for attribute in self.rng.sample(others, k=min(len(others), self.rng.randint(0, limit))):
            if isinstance(attribute, RelationAttribute):
                node = self.relation(attribute, tags, depth)
            elif isinstance(attribute, MediaAttribute):
                node = self.media(attribute, tags, depth)
            elif isinstance(attribute, ComponentAttribute):
                node = self.component(attribute, tags, depth)
            else:
                assert isinstance(attribute, DynamicZoneAttribute)
                node = self.dynamic_zone(attribute, tags, depth)
            selections.append(self._alias(node, tags))
            if "args" in node and self.rng.random() < 0.15:
                # the same field again under another alias with other arguments
                twin = deepcopy(node)
                twin["as"] = f"twin_{node['f']}"
                twin["args"] = {k: v for k, v in node["args"].items() if k != "filters"}
                if not twin["args"]:
                    twin["args"] = {"pagination": {"limit": 1}}
                selections.append(twin)
                tags.add("alias:twice")
        if not selections:
            selections.append({"f": "id"})
        if isinstance(model, ContentType):
            if self.rng.random() < 0.15:
                selections.append({"f": self.rng.choice(["createdAt", "updatedAt"])})
            if model.draft_and_publish and self.rng.random() < 0.2:
                selections.append({"f": "publishedAt"})
            if model.localized and self.rng.random() < 0.15:
                selections.append({"f": "locale"})
            if model.localized and depth < 2 and self.rng.random() < 0.1:
                tags.add("localizations")
                selections.append(
                    {
                        "f": "localizations",
                        "coll": True,
                        "sel": [
                            {
                                "f": "data",
                                "sel": [
                                    {"f": "id"},
                                    {"f": "attributes", "sel": [{"f": "title"}, {"f": "locale"}]},
                                ],
                            }
                        ],
                    }
                )
        return selections

    def entity(self, model: ContentType, tags: set[str], depth: int) -> list[dict[str, Any]]:
        attributes = self.fields(model, tags, depth)
        type_name = TYPES[model.uid][1]
        roll = self.rng.random()
        if roll < 0.1:
            name = f"{type_name}Parts{len(self.fragments)}"
            self.fragments[name] = {"on": type_name, "sel": attributes}
            tags.add("fragment:named")
            attributes = [{"spread": name}]
        elif roll < 0.17:
            tags.add("fragment:inline")
            attributes = [{"on": type_name, "sel": attributes}]
        selections: list[dict[str, Any]] = [{"f": "id"}, {"f": "attributes", "sel": attributes}]
        if self.rng.random() < 0.08:
            selections.append({"f": "__typename"})
        if self.rng.random() < 0.05:
            variable = f"b{len(self.vars)}"
            self.vars[variable] = {"type": "Boolean!", "value": self.rng.choice([True, False])}
            selections[0]["if"] = (self.rng.choice(["include", "skip"]), variable)
            tags.add("directive")
        self.rng.shuffle(selections)
        return selections

    # ------------------------------------------------------------ root fields

    def content_root(self, tags: set[str]) -> dict[str, Any]:
        uid = self.rng.choice(list(TYPES) + ["api::article.article"] * 2)
        kind, type_name, plural, singular = TYPES[uid]
        model = self.registry.content_types[uid]
        tags.add(f"type:{kind}")
        if self.rng.random() < 0.15:
            tags.add("single")
            key = self.rng.choice(self._keys(kind)) if self.rng.random() < 0.95 else "__missing__"
            args: dict[str, Any] = {"id": self._maybe_var({"$ref": [kind, key]}, "ID", tags)}
            if model.localized and self.rng.random() < 0.2:
                args["locale"] = self.rng.choice(["en", "fr"])
            entity = self.entity(model, tags, 0)
            return {"f": singular, "args": args, "sel": [{"f": "data", "sel": entity}]}
        args = self.collection_args(
            kind,
            model,
            type_name,
            tags,
            draft=model.draft_and_publish,
            locale=model.localized,
            probability=0.55,
        )
        selections: list[dict[str, Any]] = [{"f": "data", "sel": self.entity(model, tags, 0)}]
        if self.rng.random() < 0.4:
            meta = deepcopy(META)
            meta["sel"][0]["sel"] = [
                {"f": n}
                for n in self.rng.sample(
                    ["total", "page", "pageSize", "pageCount"], k=self.rng.randint(1, 4)
                )
            ]
            selections.append(meta)
            tags.add("meta")
        node: dict[str, Any] = {"f": plural, "sel": selections, "coll": True}
        if args:
            node["args"] = args
        return node

    def plugin_root(self, tags: set[str]) -> tuple[dict[str, Any], str]:
        choice = self.rng.choice(["files", "file", "users", "user", "roles", "locales", "me"])
        tags.add(f"plugin:{choice}")
        if choice in ("files", "file"):
            entity = self.file_entity(tags, 0)
            if choice == "file":
                key = self.rng.choice(sorted(self.data.files))
                return {
                    "f": "uploadFile",
                    "args": {"id": {"$ref": ["files", key]}},
                    "sel": [{"f": "data", "sel": entity}],
                }, "token"
            files = self.registry.content_types["plugin::upload.file"]
            node: dict[str, Any] = {
                "f": "uploadFiles",
                "sel": [{"f": "data", "sel": entity}],
                "coll": True,
            }
            args = self.collection_args("files", files, "UploadFile", tags)
            if args:
                node["args"] = args
            if self.rng.random() < 0.3:
                node["sel"].append(deepcopy(META))
            return node, "token"
        if choice in ("users", "user"):
            role = {
                "f": "role",
                "sel": [
                    {
                        "f": "data",
                        "sel": [
                            {"f": "id"},
                            {"f": "attributes", "sel": [{"f": "name"}, {"f": "type"}]},
                        ],
                    }
                ],
            }
            attributes = [
                {"f": n}
                for n in self.rng.sample(
                    ["username", "email", "provider", "confirmed", "blocked", "createdAt"],
                    k=self.rng.randint(1, 4),
                )
            ]
            if self.rng.random() < 0.4:
                attributes.append(role)
            entity = [{"f": "id"}, {"f": "attributes", "sel": attributes}]
            if choice == "user":
                name = self.rng.choice([u[0] for u in USERS])
                return {
                    "f": "usersPermissionsUser",
                    "args": {"id": {"$ref": ["users", name]}},
                    "sel": [{"f": "data", "sel": entity}],
                }, "token"
            users = self.registry.content_types["plugin::users-permissions.user"]
            node = {
                "f": "usersPermissionsUsers",
                "sel": [{"f": "data", "sel": entity}],
                "coll": True,
            }
            args = self.collection_args("users", users, "UsersPermissionsUser", tags)
            if args:
                node["args"] = args
            return node, "token"
        if choice == "roles":
            attributes = [{"f": n} for n in ("name", "description", "type")]
            if self.rng.random() < 0.4:
                attributes.append(
                    {
                        "f": "users",
                        "coll": True,
                        "sel": [
                            {
                                "f": "data",
                                "sel": [
                                    {"f": "id"},
                                    {"f": "attributes", "sel": [{"f": "username"}]},
                                ],
                            }
                        ],
                    }
                )
            node = {
                "f": "usersPermissionsRoles",
                "coll": True,
                "sel": [
                    {"f": "data", "sel": [{"f": "id"}, {"f": "attributes", "sel": attributes}]}
                ],
            }
            if self.rng.random() < 0.4:
                roles = self.registry.content_types["plugin::users-permissions.role"]
                args = self.collection_args("roles", roles, "UsersPermissionsRole", tags)
                if args:
                    node["args"] = args
            return node, "token"
        if choice == "locales":
            node = {
                "f": "i18NLocales",
                "coll": True,
                "sel": [
                    {
                        "f": "data",
                        "sel": [
                            {"f": "id"},
                            {"f": "attributes", "sel": [{"f": "name"}, {"f": "code"}]},
                        ],
                    }
                ],
            }
            if self.rng.random() < 0.3:
                node["args"] = {"sort": "code:desc"}
            return node, "token"
        fields = ["id", "username", "email", "confirmed", "blocked"]
        selections: list[dict[str, Any]] = [
            {"f": n} for n in self.rng.sample(fields, k=self.rng.randint(1, 5))
        ]
        if self.rng.random() < 0.5:
            selections.append(
                {"f": "role", "sel": [{"f": n} for n in ("id", "name", "description", "type")]}
            )
        return {"f": "me", "sel": selections}, self.rng.choice(["user", "user", "token"])

    # ------------------------------------------------------------ whole documents

    def document(self) -> Doc:
        self.vars, self.fragments = {}, {}
        tags: set[str] = set()
        auth = "token"
        if self.rng.random() < 0.15:
            root, auth = self.plugin_root(tags)
            roots = [root]
        else:
            roots = [self.content_root(tags)]
            if self.rng.random() < 0.1:
                second = self.content_root(tags)
                second["as"] = "other"
                roots.append(second)
                tags.add("roots:2")
        op: dict[str, Any] = {"sel": roots}
        if self.vars or self.rng.random() < 0.3:
            op["name"] = "Q"
        if self.vars:
            op["vars"] = self.vars
        if self.fragments:
            op["fragments"] = self.fragments
        doc = Doc(op, tags, auth=auth)
        if self.rng.random() < 0.1:
            self._spoil(doc)
        return doc

    def _spoil(self, doc: Doc) -> None:
        """About one document in ten made invalid, for the error paths."""
        choice = self.rng.choice(
            [
                "field",
                "argument",
                "enum",
                "literal",
                "date",
                "datetime",
                "time",
                "variable",
                "syntax",
                "pagination",
                "sort",
                "locale",
                "selection",
                "private",
                "depth",
                "fragment",
                "long",
            ]
        )
        doc.tags.add(f"invalid:{choice}")
        root = doc.op["sel"][0]
        if choice == "syntax":
            doc.raw = 'query { articles(filters: {title: {eq: "x"}) { data { id } }'
            return
        if choice == "field":
            _first_attributes(root).append({"f": "nope"})
        elif choice == "argument":
            root.setdefault("args", {})["nosuch"] = 1
        elif choice == "enum":
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"publicationState": {"$enum": "DRAFT"}}
        elif choice == "literal":
            root.setdefault("args", {})["pagination"] = {"page": "two"}
        elif choice in ("date", "datetime", "time", "long"):
            attribute, value = {
                "date": ("eventDate", self.rng.choice(["2024-13-45", "2024-02-30", "yesterday"])),
                "datetime": ("scheduledAt", self.rng.choice(["2024-01-01 25:00", "soon"])),
                "time": ("eventTime", self.rng.choice(["25:61:00", "noon", "1:2"])),
                "long": ("views", self.rng.choice(["12x", 1.5])),
            }[choice]
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"filters": {attribute: {"eq": value}}}
        elif choice == "variable":
            doc.op["name"] = "Q"
            doc.op.setdefault("vars", {})["bad"] = self.rng.choice(
                [
                    {"type": "ArticleFiltersInput", "value": {"nosuch": {"eq": "x"}}},
                    {"type": "PaginationArg", "value": {"page": "x"}},
                    {"type": "ID!"},
                ]
            )
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            if doc.op["vars"]["bad"]["type"] == "ID!":
                root["f"], root["args"] = "article", {"id": {"$var": "bad"}}
            elif doc.op["vars"]["bad"]["type"] == "PaginationArg":
                root["args"] = {"pagination": {"$var": "bad"}}
            else:
                root["args"] = {"filters": {"$var": "bad"}}
        elif choice == "pagination":
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"pagination": {"page": 1, "start": 0}}
        elif choice == "sort":
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"sort": self.rng.choice(["nosuch:asc", "title:sideways", "seo:asc"])}
        elif choice == "locale":
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"locale": self.rng.choice(["xx", "zz-ZZ", "not a locale"])}
        elif choice == "selection":
            root.pop("sel", None)
        elif choice == "private":
            root["f"], root["sel"] = "articles", [{"f": "data", "sel": [{"f": "id"}]}]
            root["args"] = {"filters": {"editorNotes": {"contains": "secret"}}}
        elif choice == "depth":
            inner: dict[str, Any] = {"f": "name"}
            for _ in range(4):
                inner = {
                    "f": "parent",
                    "sel": [{"f": "data", "sel": [{"f": "attributes", "sel": [inner]}]}],
                }
            root["f"], root["args"] = "categories", {}
            root["sel"] = [{"f": "data", "sel": [{"f": "attributes", "sel": [inner]}]}]
        elif choice == "fragment":
            _first_attributes(root).append({"spread": "Missing"})
        for kind in ("vars", "fragments"):
            for name in list(doc.op.get(kind) or {}):
                if name != "bad" and not _used(doc.op, name, kind):
                    del doc.op[kind][name]
            if kind in doc.op and not doc.op[kind]:
                del doc.op[kind]


def _component_type(uid: str) -> str:
    """`shared.link` → `ComponentSharedLink`."""
    category, name = uid.split(".")
    return "Component" + "".join(
        part.capitalize() for part in [category, *name.replace("_", "-").split("-")]
    )


def _first_attributes(root: dict[str, Any]) -> list[dict[str, Any]]:
    """The first selection list under ``root`` that is not its ``data`` (where a field goes)."""
    node = root
    while True:
        sel = node.setdefault("sel", [])
        inner = next((s for s in sel if s.get("f") in ("data", "attributes")), None)
        if inner is None:
            return sel
        node = inner
