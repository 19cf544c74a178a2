"""Variable errors in graphql-js's words: ``Variable "$f" got invalid value { nosuch: 1 }; …``.

graphql-core's ``coerce_variable_values`` prints the invalid value with Python's notation
(``{'nosuch': 1}``) and quotes names with ``'``. When it refuses the variables, the executor
(``executor.ShapedExecutionContext.build``) asks this module for the same errors worded as
graphql-js writes them — the same checks, in the same order, through graphql-core's public
``coerce_input_value``. The accepted path is graphql-core's alone, so this costs nothing on a
valid request.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, cast

from graphql import (
    GraphQLError,
    GraphQLInputType,
    GraphQLSchema,
    VariableDefinitionNode,
    coerce_input_value,
    is_input_type,
    is_non_null_type,
    print_ast,
    type_from_ast,
)
from graphql.pyutils import inspect as python_inspect

from contentapi.graphql.messages import js_inspect, requote

__all__ = ["ScalarError", "scalar_worded", "variable_errors"]

MAX_ERRORS = 50


class ScalarError(GraphQLError):
    """A custom scalar's own message (graphql-scalars', Strapi's), already worded as the
    reference answers it: never requoted."""


def scalar_worded(error: GraphQLError) -> str | None:
    """The message of an error a scalar raised, in graphql-js's words: a ``ScalarError``'s
    as it is; graphql-core's words requoted before the scalar's own (``Expected type 'Time'.
    <the scalar's message>``); ``None``: not a scalar's error, the caller words it."""
    if isinstance(error, ScalarError):
        return error.message
    original = error.original_error
    if original is not None and not isinstance(original, GraphQLError):
        own = str(original)
        if error.message.endswith(own):
            return requote(error.message[: len(error.message) - len(own)]) + own
    return None


class _TooMany(Exception):
    pass


def variable_errors(
    schema: GraphQLSchema,
    definitions: Collection[VariableDefinitionNode],
    inputs: Mapping[str, Any],
) -> list[GraphQLError]:
    """The errors graphql-js's ``coerceVariableValues`` reports for ``inputs``."""
    errors: list[GraphQLError] = []

    def report(error: GraphQLError) -> None:
        if len(errors) >= MAX_ERRORS:
            errors.append(
                GraphQLError(
                    "Too many errors processing variables, error limit reached. Execution aborted."
                )
            )
            raise _TooMany
        errors.append(error)

    try:
        for definition in definitions:
            _check(schema, definition, inputs, report)
    except _TooMany:
        pass
    return errors


def _check(
    schema: GraphQLSchema,
    definition: VariableDefinitionNode,
    inputs: Mapping[str, Any],
    report: Any,
) -> None:
    name = definition.variable.name.value
    var_type = type_from_ast(schema, definition.type)
    if var_type is None or not is_input_type(var_type):
        report(
            GraphQLError(
                f'Variable "${name}" expected value of type "{print_ast(definition.type)}" '
                "which cannot be used as an input type.",
                definition.type,
            )
        )
        return
    if name not in inputs:
        if definition.default_value is None and is_non_null_type(var_type):
            report(
                GraphQLError(
                    f'Variable "${name}" of required type "{var_type}" was not provided.',
                    definition,
                )
            )
        return
    value = inputs[name]
    if value is None and is_non_null_type(var_type):
        report(
            GraphQLError(
                f'Variable "${name}" of non-null type "{var_type}" must not be null.', definition
            )
        )
        return

    def on_error(path: list[str | int], invalid: Any, error: GraphQLError) -> None:
        prefix = f'Variable "${name}" got invalid value {js_inspect(invalid)}'
        if path:
            printed = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path)
            prefix += f' at "{name}{printed}"'
        report(
            GraphQLError(
                f"{prefix}; {_reason(error, invalid)}",
                definition,
                original_error=error.original_error,
            )
        )

    coerce_input_value(value, cast(GraphQLInputType, var_type), on_error)


def _reason(error: GraphQLError, invalid: Any) -> str:
    """The coercion error's own message in graphql-js's words."""
    worded = scalar_worded(error)
    if worded is not None:
        return worded
    message = error.message
    python, javascript = python_inspect(invalid), js_inspect(invalid)
    if python != javascript and python in message:  # built-in scalars print the value
        message = message.replace(python, javascript)
    return requote(message)
