"""``QueryParser.filters`` on GraphQL's spelling (``query/parse/spelling.py``): a
``…FiltersInput`` value means what its REST ``$``-form means, GraphQL's null rules hold, and
refusals carry the very messages (REST's keys and paths) REST's form gets."""

from __future__ import annotations

from typing import Any

import pytest

from contentapi.errors import ValidationError
from contentapi.query.ast import Comparison, Filter, Not, Or, Through
from contentapi.query.parse import QueryParser
from contentapi.query.parse.spelling import GRAPHQL

from .library import BOOK, WRITER


def graphql(parser: QueryParser, value: dict[str, Any], uid: str = BOOK) -> Filter | None:
    return parser.filters(parser.registry.model(uid), value, spelling=GRAPHQL)


def rest(parser: QueryParser, value: Any, uid: str = BOOK) -> Filter | None:
    return parser.filters(parser.registry.model(uid), value)


def title(value: object, operator: str = "$eq") -> Comparison:
    return Comparison("title", "string", operator, value, None)


def through_author(inner: Filter | None = None, negated: bool = False) -> Through:
    return Through(BOOK, "author", WRITER, inner, negated=negated)


@pytest.mark.parametrize(
    ("value", "same_as"),
    [
        ({"title": {"eq": "Dune"}}, {"title": {"$eq": "Dune"}}),
        ({"pages": {"gt": 100, "lte": 300}}, {"pages": {"$gt": 100, "$lte": 300}}),
        ({"pages": {"in": [1, 2]}}, {"pages": {"$in": [1, 2]}}),
        ({"title": {"not": {"containsi": "x"}}}, {"title": {"$not": {"$containsi": "x"}}}),
        ({"title": {"not": None}}, {"title": {"$not": None}}),  # IS NOT NULL
        (
            {"or": [{"title": {"eq": "a"}}, None, {"and": [{"pages": {"lt": 5}}]}]},
            {"$or": [{"title": {"$eq": "a"}}, {"$and": [{"pages": {"$lt": 5}}]}]},
        ),
        ({"not": {"or": [{"title": {"eq": "a"}}]}}, {"$not": {"$or": [{"title": "a"}]}}),
        ({"author": {"name": {"startsWith": "Fr"}}}, {"author": {"name": {"$startsWith": "Fr"}}}),
        ({"seo": {"metaTitle": {"endsWith": "x"}}}, {"seo": {"metaTitle": {"$endsWith": "x"}}}),
        ({"localizations": {"title": {"eq": "a"}}}, {"localizations": {"title": {"$eq": "a"}}}),
        ({"author": {"id": {"null": True}}}, {"author": {"id": {"$null": True}}}),
        ({"not": {"author": {"id": {"notNull": True}}}}, {"$not": {"author": {"$null": False}}}),
        # a JSON operand is a value, its keys left as they are: an object of plain keys is
        # dropped in both spellings, as Strapi's sanitizer drops it
        ({"metadata": {"eq": {"a": 1}}}, {"metadata": {"$eq": {"a": 1}}}),
    ],
)
def test_a_graphql_filter_means_its_rest_form(parser, value, same_as):
    assert graphql(parser, value) == rest(parser, same_as)


def test_a_null_scalar_is_is_null(parser):
    assert graphql(parser, {"title": None}) == title(None)


@pytest.mark.parametrize(
    "value",
    [
        {"author": None},  # a null relation is no condition…
        {"seo": None},  # …nor a null component…
        {"localizations": None},
        {"vault": None},  # …not even through a type the caller may not find
        {"not": None},
        {"and": None, "or": [None]},
        {"title": {}},
        {"author": {}},
    ],
)
def test_graphql_nulls_and_empty_inputs_are_no_condition(parser, value):
    assert graphql(parser, value) is None


def test_a_null_not_beside_a_null_id_still_asks_for_no_related_entry(parser):
    # as `{id: {null: true}}` alone: GraphQL leaves a null `not` or relation out altogether
    expected = through_author(None, negated=True)
    assert graphql(parser, {"author": {"id": {"null": True}, "not": None}}) == expected
    assert graphql(parser, {"author": {"id": {"null": True}, "books": None}}) == expected


def test_a_null_and_beside_a_null_id_is_a_condition_on_the_ids(parser):
    # a null `and` is an empty list, which is not the "has no related entry" form
    no_id = Comparison("id", "integer", "$null", True, None)
    expected = Or((through_author(no_id), through_author(None, negated=True)))
    assert graphql(parser, {"author": {"id": {"null": True}, "and": None}}) == expected


def test_not_is_pushed_inside_the_exists(parser):
    value = {"not": {"author": {"name": {"eq": "Frank"}}}}
    name = Comparison("name", "string", "$eq", "Frank", None)
    assert graphql(parser, value) == through_author(Not(name))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"vault": {"label": {"eq": "x"}}}, "Invalid parameter vault"),
        ({"cover": None}, "Invalid parameter cover"),  # no filters through media, null or not
        ({"title": {"or": [{"eq": "x"}]}}, "Undefined attribute level operator $or"),
        ({"title": {"and": None}}, "Undefined attribute level operator $and"),
        (
            {"pages": {"contains": "1"}},
            "Operator $contains does not apply to integer at filters.pages",
        ),
        (
            {"or": [{"pages": {"between": [1]}}]},
            "filters.$or.pages.$between takes an array of two values",
        ),
        ({"not": {"title": {"gt": None}}}, "filters.$not.title.$gt needs a value"),
        ({"title": {"not": {"lt": None}}}, "filters.title.$not.$lt needs a value"),
        ({"metadata": {"eq": {"$a": 1}}}, "Invalid value for filters.metadata.$eq"),
        (
            {"author": {"name": {"startsWith": "a\x00"}}},
            "Invalid value for filters.author.name.$startsWith: NUL characters are not allowed",
        ),
    ],
)
def test_refusals_carry_rest_keys_and_paths(parser, value, message):
    with pytest.raises(ValidationError) as caught:
        graphql(parser, value)
    assert caught.value.message == message
