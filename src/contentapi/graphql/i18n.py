"""The i18n plugin's ``i18NLocale`` / ``i18NLocales`` queries over the database's locales.

A database holds a handful of locales (Strapi's ``i18n_locale`` rows), so these two queries read
them all and filter, sort and paginate the list in memory with the same operators the
``I18NLocaleFiltersInput`` type offers; everything else about them (types, names, pagination
meta) is Strapi's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLID,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLString,
)

from contentapi.errors import ValidationError
from contentapi.graphql.context import GraphQLContext
from contentapi.graphql.inputs import InputTypes, list_arguments
from contentapi.graphql.scalars import DATETIME
from contentapi.graphql.types import RESPONSE_COLLECTION_META
from contentapi.i18n.store import read_locales
from contentapi.query.pagination import graphql_window

__all__ = ["I18nFields", "locale_records"]

FIND = "plugin::i18n.locale.find"
FIND_ONE = "plugin::i18n.locale.findOne"


async def locale_records(ctx: GraphQLContext) -> list[dict[str, Any]]:
    """The database's locales (``i18n_locale``, as ``GET /api/i18n/locales`` reads them)."""
    async with ctx.services.database.read() as conn:
        return [
            {key: value for key, value in row.items() if key != "isDefault"}
            for row in await read_locales(conn)
        ]


_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda v, x: v == x,
    "ne": lambda v, x: v != x,
    "eqi": lambda v, x: str(v).lower() == str(x).lower(),
    "nei": lambda v, x: str(v).lower() != str(x).lower(),
    "contains": lambda v, x: str(x) in str(v),
    "notContains": lambda v, x: str(x) not in str(v),
    "containsi": lambda v, x: str(x).lower() in str(v).lower(),
    "notContainsi": lambda v, x: str(x).lower() not in str(v).lower(),
    "startsWith": lambda v, x: str(v).startswith(str(x)),
    "endsWith": lambda v, x: str(v).endswith(str(x)),
    "gt": lambda v, x: v > x,
    "gte": lambda v, x: v >= x,
    "lt": lambda v, x: v < x,
    "lte": lambda v, x: v <= x,
    "in": lambda v, x: v in (x or ()),
    "notIn": lambda v, x: v not in (x or ()),
    "between": lambda v, x: len(x or ()) == 2 and x[0] <= v <= x[1],
    "null": lambda v, x: (v is None) == bool(x),
    "notNull": lambda v, x: (v is not None) == bool(x),
}


def _matches_value(value: Any, operators: Mapping[str, Any]) -> bool:
    for operator, operand in operators.items():
        if operand is None and operator not in ("null", "notNull"):
            continue
        if operator == "not":
            if _matches_value(value, operand):
                return False
        elif operator == "and":
            if not all(value == item for item in operand):
                return False
        elif operator == "or":
            if not any(value == item for item in operand):
                return False
        elif not _TESTS[operator](value, operand):
            return False
    return True


def _matches(record: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    for key, node in filters.items():
        if node is None:
            continue
        if key == "and" and not all(_matches(record, item) for item in node if item):
            return False
        if key == "or" and not any(_matches(record, item) for item in node if item):
            return False
        if key == "not" and _matches(record, node):
            return False
        if key not in ("and", "or", "not"):
            value = str(record["id"]) if key == "id" else record.get(key)
            comparable = {
                op: ([str(x) for x in v] if isinstance(v, list) else str(v)) if key == "id" else v
                for op, v in node.items()
            }
            if not _matches_value(value, comparable):
                return False
    return True


def _sorted(records: list[dict[str, Any]], sort: list[str]) -> list[dict[str, Any]]:
    for item in reversed([s for s in sort if s]):
        name, _, direction = item.partition(":")
        if name not in ("id", "name", "code", "createdAt", "updatedAt"):
            raise ValidationError(f"Invalid parameter {name}")
        records = sorted(records, key=lambda r: r[name], reverse=direction.lower() == "desc")
    return records


class I18nFields:
    """``I18NLocale`` types and the two root queries."""

    def __init__(self, inputs: InputTypes, amount_limit: int) -> None:
        self.amount_limit = amount_limit
        string_filter = inputs.scalar_filter(GraphQLString)
        datetime_filter = inputs.scalar_filter(DATETIME)
        self.filters: GraphQLInputObjectType = GraphQLInputObjectType(
            "I18NLocaleFiltersInput",
            lambda: {
                "id": GraphQLInputField(inputs.id_filter),
                "name": GraphQLInputField(string_filter),
                "code": GraphQLInputField(string_filter),
                "createdAt": GraphQLInputField(datetime_filter),
                "updatedAt": GraphQLInputField(datetime_filter),
                "and": GraphQLInputField(GraphQLList(self.filters)),
                "or": GraphQLInputField(GraphQLList(self.filters)),
                "not": GraphQLInputField(self.filters),
            },
        )
        self.locale = locale = GraphQLObjectType(
            "I18NLocale",
            {
                "name": GraphQLField(GraphQLString),
                "code": GraphQLField(GraphQLString),
                "createdAt": GraphQLField(DATETIME),
                "updatedAt": GraphQLField(DATETIME),
            },
        )
        self.entity = GraphQLObjectType(
            "I18NLocaleEntity",
            {"id": GraphQLField(GraphQLID), "attributes": GraphQLField(locale)},
        )
        self.response = GraphQLObjectType(
            "I18NLocaleEntityResponse", {"data": GraphQLField(self.entity)}
        )
        self.collection = GraphQLObjectType(
            "I18NLocaleEntityResponseCollection",
            {
                "data": GraphQLField(GraphQLNonNull(GraphQLList(GraphQLNonNull(self.entity)))),
                "meta": GraphQLField(GraphQLNonNull(RESPONSE_COLLECTION_META)),
            },
        )

    def queries(self) -> dict[str, GraphQLField]:
        return {
            "i18NLocale": GraphQLField(
                self.response, args={"id": GraphQLArgument(GraphQLID)}, resolve=self.find_one
            ),
            "i18NLocales": GraphQLField(
                self.collection, args=list_arguments(self.filters, False), resolve=self.find
            ),
        }

    @staticmethod
    def _entity(record: dict[str, Any]) -> dict[str, Any]:
        return {"id": str(record["id"]), "attributes": record}

    async def find_one(self, _parent: Any, info: GraphQLResolveInfo, id: Any = None) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(FIND_ONE)
        records = await locale_records(ctx)
        found = next((r for r in records if str(r["id"]) == str(id)), None)
        return {"data": None if found is None else self._entity(found)}

    async def find(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(FIND)
        bounds = graphql_window(args.get("pagination"), self.amount_limit)
        filters = args.get("filters") or {}
        records = [r for r in await locale_records(ctx) if _matches(r, filters)]
        records = _sorted(records, list(args.get("sort") or []))
        total = len(records)
        page = records[bounds.start : bounds.start + bounds.limit]
        return {
            "data": [self._entity(r) for r in page],
            "meta": {"pagination": bounds.meta(total)},
        }
