"""Seeded random queries on the plugin routes Strapi answers with plain objects: the
users-permissions users (list, one, ``me``, count) and roles, and the upload plugin's files.

These routes do not read the content API's ``pagination[...]``: Strapi hands their query to
the entity service as it is, which reads top-level ``start``/``limit`` (and checks, without
applying, ``page``/``pageSize``), so the generator sends all three forms. ``me`` is asked as
the user the run signs in (``Query.auth``), sometimes with the API token alone (401).
Values come from ``diff/graphql_generate.py``'s ``PLUGIN_VALUES`` (the users the run
registers, the files the data set uploads).
"""

from __future__ import annotations

import random
from typing import Any

from contentapi.schema.builtin import FILE_UID, ROLE_UID, USER_UID
from contentapi.schema.registry import Registry
from diff.generate import NUMBER_OPS, OTHER_OPS, STRING_OPS, Query
from diff.graphql_generate import PLUGIN_VALUES, USERS

__all__ = ["PLUGIN_KINDS", "PluginGenerator"]

#: the kinds of diff.seed.Ids the plugin routes answer entries of, by model
PLUGIN_KINDS = {USER_UID: "users", ROLE_UID: "roles", FILE_UID: "files"}
#: the routes asked, weighted (one entry per share)
ROUTES = ["users"] * 4 + ["user", "me", "count"] * 2 + ["roles"] + ["files"] * 4 + ["file"] * 2
#: attributes filtered and sorted on, per kind: the file's hash, url and size differ between
#: the servers by construction (random hashes, Strapi re-encodes images), so they are not
FILTERABLE = {
    "users": ["username", "email", "provider", "confirmed", "blocked", "id", "createdAt"],
    "roles": ["name", "type", "description"],
    "files": ["name", "mime", "ext", "width", "height", "alternativeText", "caption", "id"],
}
FIELDS = {
    "users": ["username", "email", "provider", "confirmed", "blocked", "createdAt"],
    "files": ["name", "mime", "ext", "width", "height", "size", "url", "caption", "formats"],
}
#: what a caller may not name (private) or what does not exist: 400 on both servers
INVALID_FIELDS = {
    "users": ["password", "resetPasswordToken", "confirmationToken", "nosuchfield"],
    "files": ["folderPath", "nosuchfield"],
}


class PluginGenerator:
    """Queries on ``/api/users…``, ``/api/users-permissions/roles`` and ``/api/upload/files…``;
    shares the REST generator's random stream so one seed gives one run."""

    def __init__(self, registry: Registry, rng: random.Random) -> None:
        self.registry = registry
        self.rng = rng

    # ------------------------------------------------------------ pieces

    def _value(self, kind: str, name: str, type_: str) -> Any:
        seen = PLUGIN_VALUES.get((kind, name), [])
        if seen and self.rng.random() < 0.8:
            value = self.rng.choice(seen)
            if isinstance(value, str) and self.rng.random() < 0.3:
                start = self.rng.randrange(len(value))
                value = value[start : start + self.rng.randint(1, 3)]
            return value
        return {
            "integer": self.rng.choice([1, 2, 40, 64]),
            "boolean": self.rng.choice([True, False]),
            "datetime": "2024-03-10T03:30:00.000Z",
        }.get(type_, self.rng.choice(["a", "e", "png", "Auth"]))

    def _condition(self, kind: str, uid: str, tags: set[str], depth: int = 0) -> dict[str, Any]:
        if kind == "users" and depth == 0 and self.rng.random() < 0.2:
            tags.add("deep:role")
            return {"role": self._condition("roles", ROLE_UID, tags, depth + 1)}
        name = self.rng.choice(FILTERABLE[kind])
        model = self.registry.content_types[uid]
        attribute = model.attributes.get(name)
        type_ = getattr(attribute, "type", "integer" if name == "id" else "datetime")
        if type_ in ("string", "text", "email"):
            operator = self.rng.choice(STRING_OPS)
        elif type_ in ("integer", "datetime"):
            operator = self.rng.choice(NUMBER_OPS)
        else:
            operator = self.rng.choice(OTHER_OPS)
        tags.add(f"op:{operator}:{type_}")
        value: Any
        if operator in ("$null", "$notNull"):
            value = self.rng.choice([True, False])
        elif operator in ("$in", "$notIn"):
            value = [self._value(kind, name, type_) for _ in range(self.rng.randint(1, 3))]
        elif operator == "$between":
            value = sorted([self._value(kind, name, type_) for _ in range(2)], key=str)
        else:
            value = self._value(kind, name, type_)
        return {name: {operator: value}}

    def _filters(self, kind: str, uid: str, tags: set[str]) -> dict[str, Any]:
        roll = self.rng.random()
        if roll < 0.15:
            tags.add("logic:$or")
            return {"$or": [self._condition(kind, uid, tags) for _ in range(2)]}
        if roll < 0.22:
            tags.add("logic:$not")
            return {"$not": self._condition(kind, uid, tags)}
        return self._condition(kind, uid, tags)

    def _sort(self, kind: str, tags: set[str]) -> Any:
        names = [n for n in FILTERABLE[kind] if n not in ("alternativeText", "caption")]
        keys = [
            f"{self.rng.choice(names)}:{self.rng.choice(['asc', 'desc'])}"
            for _ in range(self.rng.randint(1, 2))
        ]
        if kind == "users" and self.rng.random() < 0.2:
            keys.insert(0, f"role.name:{self.rng.choice(['asc', 'desc'])}")
            tags.add("sort:relation")
        tags.add("sort")
        return ",".join(keys) if self.rng.random() < 0.5 else keys

    def _paging(self, params: dict[str, Any], tags: set[str]) -> None:
        """Top-level ``start``/``limit`` (applied), ``page``/``pageSize`` (checked, not
        applied) or ``pagination[...]`` (not read) — what Strapi's entity service does."""
        roll = self.rng.random()
        if roll < 0.5:
            tags.add("paging:start-limit")
            if self.rng.random() < 0.8:
                params["start"] = self.rng.randint(0, 3)
            params["limit"] = self.rng.choice([1, 2, 10, -1])
        elif roll < 0.7:
            tags.add("paging:page")
            params["page"] = self.rng.randint(1, 3)
            params["pageSize"] = self.rng.choice([1, 2])
        else:
            tags.add("paging:pagination")
            params["pagination"] = {"start": self.rng.randint(0, 2), "limit": 1}

    def _populate(self, kind: str, tags: set[str]) -> Any:
        if kind == "files":
            tags.add("populate:file")
            return self.rng.choice(["folder", "nosuchkey", "related", "*"])
        roll = self.rng.random()
        tags.add("populate:role")
        if roll < 0.3:
            return "role"
        if roll < 0.45:
            return "*"
        if roll < 0.7:
            return {"role": {"fields": self.rng.sample(["name", "type", "description"], k=2)}}
        if roll < 0.85:
            return ["role", "nosuchkey"]
        return {"role": {"populate": "users", "fields": ["type"]}}

    def _read_params(self, kind: str, tags: set[str], listing: bool) -> dict[str, Any]:
        uid = FILE_UID if kind == "files" else USER_UID
        params: dict[str, Any] = {}
        if listing and self.rng.random() < 0.6:
            params["filters"] = self._filters(kind, uid, tags)
        if listing and self.rng.random() < 0.5:
            params["sort"] = self._sort(kind, tags)
        if listing and self.rng.random() < 0.5:
            self._paging(params, tags)
        if self.rng.random() < 0.3:
            params["fields"] = self.rng.sample(FIELDS[kind], k=self.rng.randint(1, 3))
            tags.add("fields")
        if self.rng.random() < 0.4:
            params["populate"] = self._populate(kind, tags)
        if self.rng.random() < 0.1:
            self._spoil(kind, params, tags, listing)
        return params

    def _spoil(self, kind: str, params: dict[str, Any], tags: set[str], listing: bool) -> None:
        """A share of invalid queries: private or unknown names, bad operators and paging."""
        choice = self.rng.choice(["filter", "fields", "sort", "paging"] if listing else ["fields"])
        tags.add(f"invalid:{choice}")
        name = self.rng.choice(INVALID_FIELDS[kind])
        if choice == "filter":
            params["filters"] = {name: {"$eq": "x"}}
        elif choice == "fields":
            params["fields"] = [name]
        elif choice == "sort":
            params["sort"] = self.rng.choice([f"{name}:asc", "id:sideways"])
        else:
            params.pop("pagination", None)
            params.update(self.rng.choice([{"start": -1}, {"limit": "abc"}, {"page": 0}]))

    # ------------------------------------------------------------ whole queries

    def query(self) -> Query:
        route = self.rng.choice(ROUTES)
        tags = {f"route:{route}"}
        if route == "users":
            return Query("/api/users", self._read_params("users", tags, True), "users", tags)
        if route in ("user", "file"):
            kind, path = (
                ("users", "/api/users") if route == "user" else ("files", "/api/upload/files")
            )
            params = self._read_params(kind, tags, False)
            roll = self.rng.random()
            if roll < 0.1:
                tags.add("invalid:id")
                return Query(f"{path}/abc", params, kind, tags)
            if roll < 0.2:
                tags.add("missing:id")
                return Query(f"{path}/9999", params, kind, tags)
            keys = [u[0] for u in USERS] if kind == "users" else PLUGIN_VALUES[("files", "name")]
            return Query(path, params, kind, tags, single=self.rng.choice(keys))
        if route == "me":
            params = self._read_params("users", tags, False)
            auth = "user" if self.rng.random() < 0.85 else ""
            tags.add("auth:user" if auth else "auth:token")
            return Query("/api/users/me", params, "users", tags, auth=auth)
        if route == "count":
            params: dict[str, Any] = {}
            roll = self.rng.random()
            if roll < 0.3:
                params["filters"] = self._filters("users", USER_UID, tags)
                tags.add("count:filters")
            elif roll < 0.5:
                # Strapi reads these as a database `where` (see compare_plugins.py)
                params["username"] = self._value("users", "username", "string")
                tags.add("count:raw-where")
            return Query("/api/users/count", params, "users", tags)
        if route == "roles":
            params = {"sort": "name:desc"} if self.rng.random() < 0.3 else {}
            return Query("/api/users-permissions/roles", params, "roles", tags)
        return Query("/api/upload/files", self._read_params("files", tags, True), "files", tags)
