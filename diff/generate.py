"""Seeded random Strapi v4 queries over the example models, as `qs` would encode them.

A query is a path (`/api/articles` or `/api/articles/<natural key>`) plus a nested params
object (the one a front end passes to ``qs.stringify(…, {encodeValuesOnly: true})``); the
tags say which features it uses, so mismatches can be grouped and explained.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

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

__all__ = ["Generator", "Query", "encode"]

KINDS = {
    "api::article.article": "articles",
    "api::author.author": "authors",
    "api::category.category": "categories",
    "api::profile.profile": "profiles",
}
KEYS = {"articles": "title", "authors": "name", "categories": "name", "profiles": "headline"}

STRING_OPS = [
    "$eq",
    "$ne",
    "$eqi",
    "$nei",
    "$contains",
    "$notContains",
    "$containsi",
    "$notContainsi",
    "$startsWith",
    "$endsWith",
    "$in",
    "$notIn",
    "$null",
    "$notNull",
    "$lt",
    "$gt",
]
NUMBER_OPS = [
    "$eq",
    "$ne",
    "$lt",
    "$lte",
    "$gt",
    "$gte",
    "$in",
    "$notIn",
    "$between",
    "$null",
    "$notNull",
]
OTHER_OPS = ["$eq", "$ne", "$null", "$notNull", "$in"]
#: on a JSON attribute: compared as jsonb (the value JSON-stringified) or, for the `i` forms, on
#: jsonb's text; `$contains` and its case-sensitive kin are 500s on the reference (400 here)
JSON_OPS = [
    "$eq",
    "$ne",
    "$in",
    "$notIn",
    "$lt",
    "$gte",
    "$eqi",
    "$nei",
    "$containsi",
    "$notContainsi",
    "$null",
    "$notNull",
]
#: the share of queries on the users-permissions and upload routes (diff/generate_plugins.py)
PLUGIN_SHARE = 0.12
JSON_VALUES = ["text", "Text", "a", "3", "1, 2", '"a": 1', '"text"', "[1, 2]", "FLOAT", ""]


@dataclass
class Query:
    path: str
    params: dict[str, Any]
    kind: str
    tags: set[str] = field(default_factory=set)
    single: str | None = None  # the natural key of a single-entry read
    auth: str = ""  # "user": asked as the user the run signs in (`/api/users/me`)

    def text(self) -> str:
        encoded = encode(self.params)
        return self.path + (f"?{encoded}" if encoded else "")


def encode(params: dict[str, Any]) -> str:
    """``qs.stringify(params, {encodeValuesOnly: true})``."""
    parts: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(f"{prefix}[{key}]" if prefix else str(key), item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(f"{prefix}[{index}]", item)
        elif value is None:
            parts.append(prefix)
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            parts.append(f"{prefix}={quote(text, safe='')}")

    walk("", params)
    return "&".join(parts)


class Generator:
    def __init__(
        self, registry: Registry, data: Dataset, seed: int, kinds: dict[str, str] | None = None
    ) -> None:
        self.registry = registry
        self.data = data
        self.rng = random.Random(seed)
        #: the content types queried, uid → plural name (the benchmark's models have others)
        self.kinds = KINDS if kinds is None else kinds
        # imported here: the plugin routes' generator builds on this module's operators
        from diff.generate_plugins import PluginGenerator

        self.plugins = PluginGenerator(registry, self.rng)

    # ------------------------------------------------------------ pieces

    def _scalars(self, model: Model) -> list[ScalarAttribute]:
        return [
            a
            for a in model.attributes.values()
            if isinstance(a, ScalarAttribute) and not a.private and a.type not in ("password",)
        ]

    def _value(self, kind: str, attribute: ScalarAttribute) -> Any:
        seen = self.data.values.get((kind, attribute.name), [])
        if seen and self.rng.random() < 0.8:
            value = self.rng.choice(seen)
            if (
                isinstance(value, str)
                and attribute.type in ("string", "text", "richtext", "uid", "email")
                and self.rng.random() < 0.4
            ):
                start = self.rng.randrange(len(value))
                value = value[start : start + self.rng.randint(1, 4)]
            return value
        return {
            "integer": 7,
            "biginteger": "100",
            "float": 2.5,
            "decimal": 8.25,
            "boolean": True,
            "date": "2024-03-04",
            "datetime": "2024-03-10T03:30:00.000Z",
            "time": "03:21:39",
            "enumeration": "news",
        }.get(attribute.type, "a")

    def _condition(self, kind: str, model: Model, tags: set[str], depth: int = 0) -> dict[str, Any]:
        relations = [
            a
            for a in model.attributes.values()
            if isinstance(a, RelationAttribute | ComponentAttribute) and not a.private
        ]
        if depth < 2 and relations and self.rng.random() < 0.3:
            attribute = self.rng.choice(relations)
            if isinstance(attribute, RelationAttribute):
                target: Model = self.registry.content_types[attribute.target]
                target_kind = self.kinds.get(attribute.target, kind)
                tags.add(f"deep:{attribute.relation}")
            else:
                target = self.registry.components[attribute.component]
                target_kind = attribute.component
                tags.add("deep:component")
            return {attribute.name: self._condition(target_kind, target, tags, depth + 1)}
        scalars = self._scalars(model)
        if not scalars:
            return {"id": {"$notNull": True}}
        attribute = self.rng.choice(scalars)
        if attribute.type in ("json", "blocks"):
            operator = self.rng.choice(JSON_OPS)
        elif attribute.type in ("string", "text", "richtext", "email", "uid", "enumeration"):
            operator = self.rng.choice(STRING_OPS)
        elif attribute.type in (
            "integer",
            "biginteger",
            "float",
            "decimal",
            "date",
            "datetime",
            "time",
        ):
            operator = self.rng.choice(NUMBER_OPS)
        else:
            operator = self.rng.choice(OTHER_OPS)
        tags.add(f"op:{operator}:{attribute.type}")
        if operator in ("$null", "$notNull"):
            value: Any = self.rng.choice([True, False])
        elif attribute.type in ("json", "blocks"):
            # strings as qs sends them: compared with JSON strings, or, for the `i` forms,
            # with jsonb's text (`{"a": 1, …}`)
            texts = [self.rng.choice(JSON_VALUES) for _ in range(self.rng.randint(1, 3))]
            value = texts if operator in ("$in", "$notIn") else texts[0]
        elif operator in ("$in", "$notIn"):
            value = [self._value(kind, attribute) for _ in range(self.rng.randint(1, 3))]
        elif operator == "$between":
            value = sorted([self._value(kind, attribute), self._value(kind, attribute)], key=str)
        else:
            value = self._value(kind, attribute)
        return {attribute.name: {operator: value}}

    def filters(self, kind: str, model: Model, tags: set[str]) -> dict[str, Any]:
        roll = self.rng.random()
        if roll < 0.15:
            tags.add("logic:$or")
            return {"$or": [self._condition(kind, model, tags) for _ in range(2)]}
        if roll < 0.25:
            tags.add("logic:$and")
            return {"$and": [self._condition(kind, model, tags) for _ in range(2)]}
        if roll < 0.32:
            tags.add("logic:$not")
            return {"$not": self._condition(kind, model, tags)}
        merged: dict[str, Any] = {}
        for _ in range(self.rng.randint(1, 2)):
            merged.update(self._condition(kind, model, tags))
        return merged

    def sort(self, model: Model, tags: set[str]) -> Any:
        names = [a.name for a in self._scalars(model)]
        names += ["id", "createdAt"]
        keys = []
        for _ in range(self.rng.randint(1, 2)):
            name = self.rng.choice(names)
            if self.rng.random() < 0.2:
                relation = [
                    a
                    for a in model.attributes.values()
                    if isinstance(a, RelationAttribute) and not a.is_to_many
                ]
                if relation:
                    attribute = self.rng.choice(relation)
                    target = self.registry.content_types[attribute.target]
                    target_names = [
                        a.name for a in self._scalars(target) if a.type not in ("json", "blocks")
                    ]
                    name = f"{attribute.name}.{self.rng.choice(target_names)}"
                    tags.add("sort:relation")
            keys.append((name, self.rng.choice(["asc", "desc"])))
        form = self.rng.random()
        if form < 0.4:
            tags.add("sort:string")
            return ",".join(f"{n}:{d}" for n, d in keys)
        if form < 0.8:
            tags.add("sort:array")
            return [f"{n}:{d}" for n, d in keys]
        tags.add("sort:object")
        return [
            {n: d} if "." not in n else {n.split(".")[0]: {n.split(".")[1]: d}} for n, d in keys
        ]

    def pagination(self, tags: set[str]) -> dict[str, Any]:
        if self.rng.random() < 0.5:
            tags.add("page")
            pagination: dict[str, Any] = {
                "page": self.rng.randint(1, 3),
                "pageSize": self.rng.choice([1, 2, 5, 10]),
            }
        else:
            tags.add("offset")
            pagination = {"start": self.rng.randint(0, 6), "limit": self.rng.choice([1, 3, 10])}
        if self.rng.random() < 0.25:
            pagination["withCount"] = self.rng.choice([True, False, "0", "t"])
            tags.add("withCount")
        return pagination

    def _populatable(self, model: Model) -> list[Any]:
        return [
            a
            for a in model.attributes.values()
            if isinstance(
                a, RelationAttribute | MediaAttribute | ComponentAttribute | DynamicZoneAttribute
            )
            and not a.private
        ]

    def _inner(self, attribute: Any) -> list[Model]:
        """The models a populate of ``attribute`` reaches (every component of a zone)."""
        if isinstance(attribute, RelationAttribute):
            return [self.registry.content_types[attribute.target]]
        if isinstance(attribute, ComponentAttribute):
            return [self.registry.components[attribute.component]]
        if isinstance(attribute, DynamicZoneAttribute):
            return [self.registry.components[uid] for uid in attribute.components]
        return []

    def _path(self, attribute: Any, tags: set[str], depth: int = 0) -> str:
        """A dotted populate path from ``attribute``, one to three segments deep (through a
        dynamic zone: into any of its components' relations, then further)."""
        nested = [
            a
            for inner in self._inner(attribute)
            for a in self._populatable(inner)
            if not isinstance(a, DynamicZoneAttribute)
        ]
        if not nested or depth >= 2 or self.rng.random() < 0.3:
            return attribute.name
        if isinstance(attribute, DynamicZoneAttribute):
            tags.add("populate:zone-path")
        if depth == 1:
            tags.add("populate:3-segments")
        return f"{attribute.name}.{self._path(self.rng.choice(nested), tags, depth + 1)}"

    def _unknown_key(self, model: Model, tags: set[str]) -> str:
        """A populate key Strapi ignores: missing, scalar, private, or in the wrong case."""
        tags.add("populate:unknown")
        scalars = [a.name for a in model.attributes.values() if isinstance(a, ScalarAttribute)]
        wrong_case = [a.name.capitalize() for a in self._populatable(model)]
        return self.rng.choice(["nosuchkey", *scalars[:3], *wrong_case[:2]])

    def populate(self, model: Model, tags: set[str]) -> Any:
        populatable = self._populatable(model)
        roll = self.rng.random()
        if roll < 0.2 or not populatable:
            tags.add("populate:*")
            return "*"
        chosen = self.rng.sample(populatable, k=min(len(populatable), self.rng.randint(1, 3)))
        if roll < 0.35:
            tags.add("populate:array")
            names = [a.name for a in chosen]
            if self.rng.random() < 0.3:
                names.insert(self.rng.randrange(len(names) + 1), self._unknown_key(model, tags))
            return names
        if roll < 0.55:
            tags.add("populate:dotted")
            paths = [self._path(attribute, tags) for attribute in chosen]
            if self.rng.random() < 0.3:
                paths.append(f"{self.rng.choice(paths)}.{self._unknown_key(model, tags)}")
            if self.rng.random() < 0.5:
                return ",".join(paths)
            return paths
        tags.add("populate:object")
        tree: dict[str, Any] = {}
        for attribute in chosen:
            if isinstance(attribute, RelationAttribute) and self.rng.random() < 0.6:
                target = self.registry.content_types[attribute.target]
                names = [a.name for a in self._scalars(target)]
                spec: dict[str, Any] = {"fields": self.rng.sample(names, k=min(2, len(names)))}
                tags.add("populate:fields")
                if attribute.is_to_many and self.rng.random() < 0.5:
                    spec["sort"] = f"{names[0]}:desc"
                    tags.add("populate:sort")
                if attribute.is_to_many and self.rng.random() < 0.3:
                    kind = self.kinds.get(attribute.target, "")
                    spec["filters"] = self._condition(kind, target, tags, depth=2)
                    tags.add("populate:filters")
                if attribute.is_to_many and self.rng.random() < 0.15:
                    spec = {"count": True}
                    tags.add("populate:count")
                if self.rng.random() < 0.1:
                    spec["bogus"] = "1"  # an option Strapi does not read
                    tags.add("populate:unknown-option")
                tree[attribute.name] = spec
            elif isinstance(attribute, DynamicZoneAttribute) and self.rng.random() < 0.5:
                tree[attribute.name] = self._zone(attribute, tags)
            else:
                tree[attribute.name] = True
        if self.rng.random() < 0.2:
            tree[self._unknown_key(model, tags)] = True
        return tree

    def _zone(self, attribute: DynamicZoneAttribute, tags: set[str]) -> dict[str, Any]:
        """A dynamic zone's object populate: per component (`on`, relations inside with their
        own fields), or one populate for all its components."""
        with_relations = [
            uid
            for uid in attribute.components
            if any(
                isinstance(a, RelationAttribute)
                for a in self.registry.components[uid].attributes.values()
            )
        ]
        if self.rng.random() < 0.5:
            tags.add("populate:on")
            on: dict[str, Any] = {attribute.components[0]: {"populate": "*"}}
            for uid in with_relations:
                relation = next(
                    a
                    for a in self.registry.components[uid].attributes.values()
                    if isinstance(a, RelationAttribute)
                )
                target = self.registry.content_types[relation.target]
                names = [a.name for a in self._scalars(target)]
                inner: dict[str, Any] = {"fields": names[:2]}
                if self.rng.random() < 0.5:
                    inner["populate"] = [a.name for a in self._populatable(target)][:2]
                on[uid] = {"populate": {relation.name: inner}}
                tags.add("populate:zone-relation")
            if self.rng.random() < 0.2:
                on["shared.link"] = {"populate": "*"}  # a component the zone lacks
                tags.add("populate:unknown")
            return {"on": on}
        tags.add("populate:zone-shared")
        names = sorted(
            {
                a.name
                for uid in attribute.components
                for a in self._populatable(self.registry.components[uid])
            }
        )
        return {"populate": self.rng.sample(names, k=min(len(names), 2)) or "*"}

    # ------------------------------------------------------------ whole queries

    def query(self) -> Query:
        if self.rng.random() < PLUGIN_SHARE:
            return self.plugins.query()
        uid = self.rng.choice(list(KINDS) + ["api::article.article"] * 3)
        kind = KINDS[uid]
        model = self.registry.content_types[uid]
        tags: set[str] = {f"type:{kind}"}
        params: dict[str, Any] = {}
        single = None
        path = f"/api/{kind}"
        if self.rng.random() < 0.12:
            keys = [s.key for s in self.data.steps if s.kind == kind and not s.update]
            single = self.rng.choice(keys)
            tags.add("single")
        if single is None and self.rng.random() < 0.7:
            params["filters"] = self.filters(kind, model, tags)
        if single is None and self.rng.random() < 0.6:
            params["sort"] = self.sort(model, tags)
        if single is None and self.rng.random() < 0.5:
            params["pagination"] = self.pagination(tags)
        if self.rng.random() < 0.3:
            names = [a.name for a in self._scalars(model)]
            params["fields"] = self.rng.sample(names, k=min(len(names), self.rng.randint(1, 3)))
            tags.add("fields")
        if self.rng.random() < 0.5:
            params["populate"] = self.populate(model, tags)
        if isinstance(model, ContentType) and model.localized and self.rng.random() < 0.2:
            params["locale"] = self.rng.choice(["en", "fr", "all"])
            tags.add(f"locale:{params['locale']}")
        if model.draft_and_publish and self.rng.random() < 0.2:
            params["publicationState"] = self.rng.choice(["live", "preview"])
            tags.add(f"publicationState:{params['publicationState']}")
        if self.rng.random() < 0.08:
            self._spoil(model, params, tags)
        return Query(path, params, kind, tags, single)

    def _spoil(self, model: Model, params: dict[str, Any], tags: set[str]) -> None:
        """A share of invalid queries, for the error paths."""
        choice = self.rng.choice(["field", "operator", "sort", "page", "populate", "fields"])
        tags.add(f"invalid:{choice}")
        if choice == "field":
            params["filters"] = {"nosuchfield": {"$eq": "x"}}
        elif choice == "operator":
            params["filters"] = {"id": {"$bogus": "1"}}
        elif choice == "sort":
            params["sort"] = "id:sideways"
        elif choice == "page":
            params["pagination"] = {"page": "abc"}
        elif choice == "populate":
            # unknown keys are ignored (as Strapi does); a bad page inside a populate is not
            first = self._populatable(model)[0].name
            params["populate"] = {"nosuchrelation": True, first: {"page": "abc"}}
        else:
            params["fields"] = ["nosuchfield"]
