"""The graphql-core internals ``contentapi/graphql/executor.py`` leans on, as it expects them.

These are not graphql-core's public API; a release that changes them must fail here, loudly,
before a request answers wrong. (graphql-core 3.3 fails every one of them: ``ExecutionContext``
became ``Executor`` and ``collect_sub_fields`` became ``collect_subfields``.)
"""

from __future__ import annotations

import inspect

import graphql
from graphql import build_schema, parse

from contentapi.graphql import executor


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_graphql_core_is_the_3_2_line():
    assert graphql.version_info.major == 3
    assert graphql.version_info.minor == 2


def test_collect_sub_fields():
    assert _parameters(executor.collect_sub_fields) == [
        "schema",
        "fragments",
        "variable_values",
        "return_type",
        "field_nodes",
    ]
    schema = build_schema("type Query { a: A } type A { x: Int y: Int }")
    document = parse("{ a { x ...F y @skip(if: true) } } fragment F on A { x z: y }")
    field = document.definitions[0].selection_set.selections[0]
    fragments = {"F": document.definitions[1]}
    fields = executor.collect_sub_fields(schema, fragments, {}, schema.type_map["A"], [field])
    assert list(fields) == ["x", "z"]  # response keys in order, each with its field nodes
    assert len(fields["x"]) == 2


def test_collect_fields():
    assert _parameters(executor.collect_fields)[:5] == [
        "schema",
        "fragments",
        "variable_values",
        "runtime_type",
        "selection_set",
    ]
    schema = build_schema("type Query { x: Int y: Int }")
    document = parse("{ x ...F y @include(if: false) } fragment F on Query { z: y }")
    fragments = {"F": document.definitions[1]}
    selection_set = document.definitions[0].selection_set
    fields = executor.collect_fields(schema, fragments, {}, schema.query_type, selection_set)
    assert list(fields) == ["x", "z"]


def test_get_argument_values():
    assert _parameters(executor.get_argument_values)[:3] == [
        "type_def",
        "node",
        "variable_values",
    ]
    schema = build_schema("type Query { a(n: Int = 3, s: String): Int }")
    node = parse("query($s: String) { a(s: $s) }").definitions[0].selection_set.selections[0]
    values = executor.get_argument_values(schema.query_type.fields["a"], node, {"s": "v"})
    assert values == {"n": 3, "s": "v"}


def test_execution_context_methods():
    context = executor.ExecutionContext
    assert _parameters(context.handle_field_error) == ["self", "error", "return_type", "path"]
    assert _parameters(context.complete_value) == [
        "self",
        "return_type",
        "field_nodes",
        "info",
        "path",
        "result",
    ]
    assert _parameters(context.build)[:6] == [
        "schema",
        "document",
        "root_value",
        "context_value",
        "raw_variable_values",
        "operation_name",
    ]


def test_shaped_execution_passes_precompleted_values_and_rewords_variables():
    schema = build_schema("type Query { a(n: Int): Obj } type Obj { x: Int }")
    document = parse("{ a { x } }")
    result = graphql.execute(
        schema,
        document,
        root_value={"a": executor.Precompleted({"untouched": True})},
        execution_context_class=executor.ShapedExecutionContext,
    )
    assert result.data == {"a": {"untouched": True}}
    refused = graphql.execute(
        schema,
        parse("query Q($n: Int) { a(n: $n) { x } }"),
        variable_values={"n": "seven"},
        execution_context_class=executor.ShapedExecutionContext,
    )
    assert [error.message for error in refused.errors] == [
        'Variable "$n" got invalid value "seven"; Int cannot represent non-integer value: "seven"'
    ]


def test_worded_rules_report_with_graphql_js_quotes():
    schema = build_schema("type Query { a: Int }")
    errors = graphql.validate(schema, parse("{ zzz }"), executor.WORDED_SPECIFIED_RULES)
    assert [error.message for error in errors] == ['Cannot query field "zzz" on type "Query".']
    assert errors[0].locations[0].column == 3
