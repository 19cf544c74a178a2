"""``graphql/cost.py``: what an operation costs, from the document and its variables alone
(the example models' schema; no database)."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLSchema, parse

from contentapi.graphql.cost import READ_COST, Cost, operation_cost
from contentapi.graphql.schema import SchemaOptions, build_schema
from contentapi.schema import load_registry
from tests.conftest import MODELS


@pytest.fixture(scope="module")
def schema() -> GraphQLSchema:
    return build_schema(load_registry(MODELS), SchemaOptions(), None)  # type: ignore[arg-type]


def cost_of(
    schema: GraphQLSchema,
    query: str,
    variables: dict[str, Any] | None = None,
    operation_name: str | None = None,
) -> Cost:
    found = operation_cost(schema, parse(query), operation_name, variables, 100)
    assert found is not None
    return found


def test_every_typename_alias_counts_one(schema):
    aliases = " ".join(f"t{n}: __typename" for n in range(5000))
    assert cost_of(schema, "{" + aliases + "}") == Cost(values=5000, reads=0)


def test_a_root_field_is_a_read_and_its_list_multiplies_by_the_default_page(schema):
    # articles (1) + data (1) + 10 articles x id
    assert cost_of(schema, "{ articles { data { id } } }") == Cost(values=12, reads=1)


def test_explicit_pagination_sets_the_list_size(schema):
    cost = cost_of(schema, "{ articles(pagination: {limit: 100}) { data { id } } }")
    assert cost.values == 2 + 100
    cost = cost_of(schema, "{ articles(pagination: {page: 2, pageSize: 30}) { data { id } } }")
    assert cost.values == 2 + 30


def test_a_limit_given_by_a_variable_counts_as_given(schema):
    query = "query($n: Int) { articles(pagination: {limit: $n}) { data { id } } }"
    assert cost_of(schema, query, {"n": 100}).values == 2 + 100
    assert cost_of(schema, query, {"n": 3}).values == 2 + 3


def test_sizes_are_capped_by_the_amount_limit_and_minus_one_is_the_limit(schema):
    assert (
        cost_of(schema, "{ articles(pagination: {limit: 100000}) { data { id } } }").values == 102
    )
    assert cost_of(schema, "{ articles(pagination: {limit: -1}) { data { id } } }").values == 102


def test_nested_lists_multiply_down_the_tree_but_reads_do_not(schema):
    query = """{ categories(pagination: {limit: 100}) { data { attributes {
        articles(pagination: {limit: 100}) { data { attributes {
            categories(pagination: {limit: 100}) { data { id } } } } } } } } }"""
    cost = cost_of(schema, query)
    # one category: attributes, articles, data, then 100 x (attributes, categories, data, 100 ids)
    per_category = 3 + 100 * (3 + 100)
    assert cost == Cost(values=2 + 100 * per_category, reads=3)
    assert cost.total == cost.values + 3 * READ_COST


def test_aliases_each_count(schema):
    one = "books: articles(pagination: {limit: 100}) { data { id attributes { title } } }"
    single = cost_of(schema, "{ a: " + one.split(": ", 1)[1] + " }")
    many = cost_of(
        schema, "{" + " ".join(f"a{n}: {one.split(': ', 1)[1]}" for n in range(500)) + "}"
    )
    assert many == Cost(values=500 * single.values, reads=500)


def test_fragments_are_expanded(schema):
    inline = cost_of(schema, "{ articles { data { id attributes { title slug } } } }")
    spread = cost_of(
        schema,
        "{ articles { data { ...E } } } fragment E on ArticleEntity { id attributes { ...A } } "
        "fragment A on Article { title slug }",
    )
    assert spread == inline


def test_skip_and_include_are_applied(schema):
    query = (
        "query($on: Boolean!) { articles { data { id "
        "a: attributes @include(if: $on) { title } } } }"
    )
    assert cost_of(schema, query, {"on": False}).values == 12
    assert cost_of(schema, query, {"on": True}).values == 12 + 10 * 2


def test_a_dynamic_zone_item_costs_its_most_costly_member(schema):
    query = """{ article(id: 1) { data { attributes { blocks {
        __typename
        ... on ComponentBlocksQuote { body author { data { attributes { name } } } }
        ... on ComponentBlocksRichText { body }
    } } } } }"""
    cost = cost_of(schema, query)
    # article, data, attributes, blocks; 10 items x (__typename + the quote's 5 values)
    assert cost == Cost(values=4 + 10 * 6, reads=3)  # the root, the zone, the quote's author


def test_relations_media_and_components_are_reads(schema):
    query = """{ article(id: 1) { data { attributes {
        author { data { id } } cover { data { id } } seo { metaTitle } links { label }
    } } } }"""
    assert cost_of(schema, query).reads == 5


def test_introspection_is_no_read(schema):
    assert cost_of(schema, "{ __schema { queryType { name } } }").reads == 0


def test_an_operation_is_chosen_by_name(schema):
    document = "query A { __typename } query B { a: __typename b: __typename }"
    assert cost_of(schema, document, operation_name="B").values == 2


def test_refused_variables_or_an_unknown_operation_have_no_cost(schema):
    query = parse("query($n: Int) { articles(pagination: {limit: $n}) { data { id } } }")
    assert operation_cost(schema, query, None, {"n": "many"}, 100) is None
    assert operation_cost(schema, query, "Nope", {}, 100) is None
