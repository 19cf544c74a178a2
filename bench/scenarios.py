"""The measured scenarios (the issue's table) and how each response is verified first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from bench.dataset import Dataset

__all__ = ["GRAPHQL_QUERY", "Scenario", "scenarios"]

#: The nested books query: three relations, a component and a dynamic zone (with fragments).
GRAPHQL_QUERY = (
    "{ books(pagination: {pageSize: 25}) { data { id attributes { title pages price rating "
    "author { data { id attributes { name } } } tags { data { id attributes { name } } } "
    "publisher { data { id attributes { name } } } seo { metaTitle metaDescription } "
    "blocks { __typename ... on ComponentBenchQuote { text by } "
    "... on ComponentBenchRich { body } } } } "
    "meta { pagination { total page pageSize pageCount } } } }"
)


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    method: str
    path: str
    body: str | None = None
    expected_total: int | None = None
    graphql: bool = False
    #: a wrk ``request()`` function in Lua drawing each request (random ids); ``path`` and
    #: ``body`` are then one such request, for the checks, the floor and the profiles
    lua_request: str | None = None

    def verify(self, status: int, payload: Any) -> str | None:
        """Why the response is not what the scenario measures, or ``None`` when it is."""
        if not 200 <= status < 300:
            return f"status {status}"
        if self.graphql:
            if payload.get("errors"):
                return f"GraphQL errors: {payload['errors'][:1]}"
            books = (payload.get("data") or {}).get("books") or {}
            rows = books.get("data") or []
            if len(rows) != 25:
                return f"{len(rows)} books, expected 25"
            first = rows[0]["attributes"]
            if not (first["author"]["data"] and first["tags"]["data"] and first["blocks"]):
                return "relations or dynamic zone missing in the GraphQL answer"
            total = books.get("meta", {}).get("pagination", {}).get("total")
            if self.expected_total is not None and total != self.expected_total:
                return f"total {total}, expected {self.expected_total}"
            return None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not data:
            return "empty data"
        if self.expected_total is not None:
            total = payload.get("meta", {}).get("pagination", {}).get("total")
            if total != self.expected_total:
                return f"total {total}, expected {self.expected_total}"
        return None


#: the related-attribute filter: a to-one and a to-many relation, each on a related name
RELATED_AUTHOR_PREFIX = "Author 2"
RELATED_TAGS = ("tag-1", "tag-5", "tag-9")

#: each wrk thread draws its own sequence of ids (a script's start; ``bench/directus.py`` too)
SEEDED_LUA = """
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("seed", threads)
end
init = function(args)
  math.randomseed(seed)
end
"""

#: one entry with ``populate=*``, a random book each time
_ONE_ENTRY_LUA = (
    SEEDED_LUA
    + """
request = function()
  return wrk.format(nil, "/api/books/" .. math.random(1, {books}) .. "?populate=*")
end
"""
)

#: a PUT of a random book: a new rating, one random tag connected and another disconnected
_PUT_LUA = (
    SEEDED_LUA
    + """
request = function()
  local id = math.random(1, {books})
  local body = string.format(
    '{{"data": {{"rating": %.1f, "tags": {{"connect": [%d], "disconnect": [%d]}}}}}}',
    math.random(10, 50) / 10, math.random(1, {tags}), math.random(1, {tags}))
  return wrk.format(nil, "/api/books/" .. id, nil, body)
end
"""
)


def scenarios(data: Dataset) -> list[Scenario]:
    relations = "populate[author]=true&populate[tags]=true&populate[publisher]=true"
    tags = "&".join(
        f"filters[tags][name][$in][{index}]={name}" for index, name in enumerate(RELATED_TAGS)
    )
    books, tag_count = len(data.books), len(data.tags)
    return [
        Scenario(
            "list", "default list page (25)", "GET", "/api/books", expected_total=len(data.books)
        ),
        Scenario(
            "filter_sort",
            "3 filters + 2-field sort, page 3",
            "GET",
            "/api/books?filters[pages][$gt]=100&filters[price][$lt]=50"
            "&filters[title][$containsi]=a&sort[0]=rating:desc&sort[1]=title:asc"
            "&pagination[page]=3",
            expected_total=data.expected_filtered(),
        ),
        Scenario(
            "populate3",
            "list with 3 relations populated",
            "GET",
            f"/api/books?{relations}",
            expected_total=len(data.books),
        ),
        Scenario(
            "deep_populate",
            "deep populate (relations, components, dynamic zone)",
            "GET",
            f"/api/books?{relations}&populate[seo]=true&populate[chapters]=true"
            "&populate[blocks][populate]=*",
            expected_total=len(data.books),
        ),
        Scenario(
            "deep_filter",
            "deep filter through two relations",
            "GET",
            "/api/books?filters[author][books][pages][$gt]=900",
            expected_total=data.expected_deep(),
        ),
        Scenario(
            "related_filter",
            "filter on attributes of a to-one and a to-many relation",
            "GET",
            f"/api/books?filters[author][name][$startsWith]={quote(RELATED_AUTHOR_PREFIX)}&{tags}",
            expected_total=data.expected_related(RELATED_AUTHOR_PREFIX, RELATED_TAGS),
        ),
        Scenario(
            "one_entry",
            "one entry with populate=*, random ids",
            "GET",
            "/api/books/17?populate=*",
            lua_request=_ONE_ENTRY_LUA.format(books=books),
        ),
        Scenario(
            "graphql",
            "GraphQL list with nested relations",
            "POST",
            "/graphql",
            body=f'{{"query": "{GRAPHQL_QUERY}"}}',
            expected_total=len(data.books),
            graphql=True,
        ),
        Scenario(
            "put_connect",
            "PUT with connect/disconnect, random ids",
            "PUT",
            "/api/books/25",
            body='{"data": {"rating": 3.5, "tags": {"connect": [1], "disconnect": [2]}}}',
            lua_request=_PUT_LUA.format(books=books, tags=tag_count),
        ),
    ]
