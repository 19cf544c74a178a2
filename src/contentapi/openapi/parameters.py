"""The REST query language (``filters``, ``sort``, ``pagination``, ``fields``, ``populate``,
``locale``, ``publicationState``) as OpenAPI query parameters of one content type.

The bracket syntax (``filters[title][$eq]=x``) is what OpenAPI calls ``style: deepObject``;
deeper nesting than one level (``filters[author][name][$eq]``) is described in the
parameter's text and examples, since OpenAPI serializes only one level. Each parameter names
the model's attributes where it can (``fields``, ``populate``), so generated clients and
API tools offer them.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema
from contentapi.query import operators as query_operators
from contentapi.schema.model import ContentType, RelationAttribute, ScalarAttribute

__all__ = [
    "PLUGIN_LIST_QUERY",
    "entry_parameters",
    "list_parameters",
    "populatable",
    "readable_fields",
]

#: every filter operator, from the table the query parser uses
OPERATORS = [*query_operators.OPERATORS, *sorted(query_operators.LOGICAL)]


def readable_fields(content_type: ContentType) -> list[str]:
    """Names ``fields`` accepts: the scalar attributes a caller may read, and the timestamps."""
    names = [
        name
        for name, attribute in content_type.attributes.items()
        if isinstance(attribute, ScalarAttribute)
        and not attribute.private
        and attribute.type != "password"
    ]
    names += ["createdAt", "updatedAt"]
    if content_type.draft_and_publish:
        names.append("publishedAt")
    if content_type.localized:
        names.append("locale")
    return names


def populatable(content_type: ContentType) -> list[str]:
    names = [
        name
        for name, attribute in content_type.attributes.items()
        if not isinstance(attribute, ScalarAttribute) and not attribute.private
    ]
    if content_type.localized:
        names.append("localizations")
    return names


def _example_filter(content_type: ContentType) -> dict[str, object]:
    for name in readable_fields(content_type):
        attribute = content_type.attributes.get(name)
        if isinstance(attribute, ScalarAttribute) and attribute.type in ("string", "text"):
            return {name: {"$containsi": "hello"}}
    return {"id": {"$in": [1, 2]}}


def _filters(content_type: ContentType) -> Schema:
    relation = next(
        (n for n, a in content_type.attributes.items() if isinstance(a, RelationAttribute)),
        None,
    )
    deep = f"`filters[{relation}][id][$eq]=1` (through a relation), " if relation else ""
    return {
        "name": "filters",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "description": (
            "`filters[<attribute>][<operator>]=<value>`; operators: "
            + ", ".join(f"`{op}`" for op in OPERATORS)
            + f". Nested: {deep}`filters[$or][0][title][$eq]=a&filters[$or][1][title][$eq]=b`. "
            "An unknown attribute or operator answers 400."
        ),
        "schema": {
            "type": "object",
            "properties": {
                name: {"type": "object", "additionalProperties": True}
                for name in [*readable_fields(content_type), "id", "$and", "$or", "$not"]
            },
            "additionalProperties": True,
        },
        "example": _example_filter(content_type),
    }


def _sort(content_type: ContentType) -> Schema:
    first = readable_fields(content_type)[0]
    return {
        "name": "sort",
        "in": "query",
        "style": "form",
        "explode": True,
        "description": (
            "`<attribute>` or `<attribute>:asc|desc`, several as `sort[0]=a&sort[1]=b:desc` "
            "or `sort=a,b:desc`; through a relation as `author.name:asc`"
        ),
        "schema": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "example": f"{first}:asc",
    }


PAGINATION: Schema = {
    "name": "pagination",
    "in": "query",
    "style": "deepObject",
    "explode": True,
    "description": (
        "`pagination[page]` and `pagination[pageSize]`, or `pagination[start]` and "
        "`pagination[limit]` (not both styles); `pagination[withCount]=false` leaves the total "
        "out. The page size is clamped to the configured maximum."
    ),
    "schema": {
        "type": "object",
        "properties": {
            "page": {"type": "integer", "minimum": 1},
            "pageSize": {"type": "integer", "minimum": 1},
            "start": {"type": "integer", "minimum": 0},
            "limit": {"type": "integer"},
            "withCount": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    "example": {"page": 1, "pageSize": 10},
}


def _fields(content_type: ContentType) -> Schema:
    names = readable_fields(content_type)
    return {
        "name": "fields",
        "in": "query",
        "style": "form",
        "explode": True,
        "description": (
            "the attributes to answer (`fields[0]=title&fields[1]=slug`, or `fields=title,slug`); "
            "`id` always comes"
        ),
        "schema": {"type": "array", "items": {"type": "string", "enum": names}},
        "example": names[:2],
    }


def _populate(content_type: ContentType) -> Schema:
    names = populatable(content_type)
    example = dict.fromkeys(names[:2], True)
    return {
        "name": "populate",
        "in": "query",
        "style": "deepObject",
        "explode": True,
        "description": (
            "relations, media, components and dynamic zones to add: `populate=*` (one level), "
            "`populate=a,b`, `populate[0]=a`, or per attribute "
            "`populate[<attribute>]=true` / `populate[<attribute>][fields][0]=name` / "
            "`populate[<attribute>][populate]=*` / `populate[<attribute>][filters]…`, "
            "`sort`, `limit`, `count`; a dynamic zone per component: "
            "`populate[<zone>][on][<component uid>]=*`"
        ),
        "schema": {
            "type": "object",
            "properties": {
                name: {"anyOf": [{"type": "boolean"}, {"type": "string"}, {"type": "object"}]}
                for name in names
            },
            "additionalProperties": False,
        },
        "example": example,
    }


def _locale(locales: tuple[str, ...]) -> Schema:
    return {
        "name": "locale",
        "in": "query",
        "description": "the locale to read (`all` for every locale); default: the default locale",
        "schema": {"type": "string"},
        "examples": {code: {"value": code} for code in (*locales, "all")},
    }


PUBLICATION_STATE: Schema = {
    "name": "publicationState",
    "in": "query",
    "description": "`live` (default): published entries only; `preview`: drafts too",
    "schema": {"type": "string", "enum": ["live", "preview"]},
}


def entry_parameters(content_type: ContentType, locales: tuple[str, ...]) -> list[Schema]:
    """What every route of the type accepts: ``fields``, ``populate``, and the type's
    ``locale`` and ``publicationState`` where they apply."""
    parameters = [_fields(content_type), _populate(content_type)]
    if content_type.localized:
        parameters.append(_locale(locales))
    if content_type.draft_and_publish:
        parameters.append(PUBLICATION_STATE)
    return parameters


def list_parameters(content_type: ContentType, locales: tuple[str, ...]) -> list[Schema]:
    """A list route's: ``filters``, ``sort``, ``pagination`` too."""
    return [
        _filters(content_type),
        _sort(content_type),
        PAGINATION,
        *entry_parameters(content_type, locales),
    ]


def _plugin_query(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "query",
        "style": "deepObject" if name == "filters" else "form",
        "explode": True,
        "description": description,
        "schema": {"type": "object"} if name == "filters" else {"type": "string"},
    }


#: the query of the plugins' plain lists (users, files): a filter, a sort, a page
PLUGIN_LIST_QUERY = [
    _plugin_query("filters", "as on content types: `filters[username][$eq]=ann`"),
    _plugin_query("sort", "as on content types: `sort=username:asc`"),
    # Strapi's entity service paging, not the content API's `pagination[...]`
    # (query/entity_paging.py)
    _plugin_query("start", "rows to skip (top-level, as Strapi reads it here: `start=20`)"),
    _plugin_query("limit", "rows to answer, at most the maximum; -1 or 0: as many as allowed"),
]
