"""Every graphql-core internal contentapi leans on, in one module.

graphql-core's public API (``parse``, ``validate``, ``execute``, the type classes) is used
everywhere; what is not public — the executor's methods and helpers the compiled plan calls —
is imported or overridden here only, and ``tests/unit/test_graphql_executor_contract.py`` checks
their signatures so that a graphql-core release that changes them fails loudly, not subtly.
graphql-core 3.3 does change all of them (``ExecutionContext`` becomes ``Executor``,
``collect_sub_fields`` returns grouped field details for ``@defer``); docs/graphql.md says why
contentapi stays on 3.2.

- ``collect_sub_fields`` (plan.py, cost.py: a selection set's fields, fragments and
  ``@skip``/``@include`` applied), ``collect_fields`` (cost.py: the same for an operation's
  root), ``get_argument_values`` (plan.py, deferred.py, cost.py: a field's coerced arguments);
- ``ExecutionContext.handle_field_error`` (deferred.py: an extension resolver's error located on
  its field);
- ``ShapedExecutionContext``: passes ``Precompleted`` values through ``complete_value``, hands
  itself to the request context (deferred.py completes values with it), and rewords refused
  variables as graphql-js does (variables.py);
- ``WORDED_SPECIFIED_RULES``: the specification's validation rules reporting with graphql-js's
  quotes (messages.py) through their ``ValidationContext``; the project's own rules (depth
  limit, extensions') keep their words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    ValidationContext,
    specified_rules,
)
from graphql.execution import ExecutionContext
from graphql.execution.collect_fields import collect_fields, collect_sub_fields
from graphql.execution.values import get_argument_values

from contentapi.graphql.messages import requote
from contentapi.graphql.variables import scalar_worded, variable_errors

__all__ = [
    "WORDED_SPECIFIED_RULES",
    "ExecutionContext",
    "Precompleted",
    "ShapedExecutionContext",
    "collect_fields",
    "collect_sub_fields",
    "get_argument_values",
    "worded_rule",
]


@dataclass(frozen=True, slots=True)
class Precompleted:
    """A field value already in its response form: ``complete_value`` takes it as is."""

    data: Any


class ShapedExecutionContext(ExecutionContext):
    """graphql-core's executor, passing ``Precompleted`` values through untouched."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if hasattr(self.context_value, "execution"):  # GraphQLContext: deferred.py uses it
            self.context_value.execution = self

    def complete_value(
        self, return_type: Any, field_nodes: Any, info: Any, path: Any, result: Any
    ) -> Any:
        if result.__class__ is Precompleted:
            return result.data
        return super().complete_value(return_type, field_nodes, info, path, result)

    @classmethod
    def build(
        cls,
        schema: GraphQLSchema,
        document: DocumentNode,
        root_value: Any = None,
        context_value: Any = None,
        raw_variable_values: dict[str, Any] | None = None,
        operation_name: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> list[GraphQLError] | ExecutionContext:
        built = super().build(
            schema,
            document,
            root_value,
            context_value,
            raw_variable_values,
            operation_name,
            *args,
            **kwargs,
        )
        if not isinstance(built, list):
            return built
        operation = _operation(document, operation_name)
        if operation is not None and operation.variable_definitions:
            worded = variable_errors(
                schema, operation.variable_definitions, raw_variable_values or {}
            )
            if worded:
                return worded
        for error in built:  # "Unknown operation named 'x'." (or a check of graphql-core's own)
            error.message = _unknown_operation(error.message) or requote(error.message)
        return built


def _unknown_operation(message: str) -> str | None:
    """The operation name may be anything (``[object Object]``): quoted as a whole."""
    prefix = "Unknown operation named '"
    if message.startswith(prefix) and message.endswith("'."):
        return f'Unknown operation named "{message[len(prefix) : -2]}".'
    return None


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    found = None
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            if name is None:
                if found is not None:
                    return None
                found = definition
            elif definition.name is not None and definition.name.value == name:
                return definition
    return found


class _WordedContext:
    """A ``ValidationContext`` whose reported errors get graphql-js's quotes."""

    __slots__ = ("_context",)

    def __init__(self, context: ValidationContext) -> None:
        self._context = context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def report_error(self, error: GraphQLError) -> None:
        error.message = _worded(error)
        self._context.report_error(error)


def _worded(error: GraphQLError) -> str:
    # "Expected value of type 'Time', found 5; <the scalar's message>": the tail is the
    # scalar's own words
    worded = scalar_worded(error)
    return requote(error.message) if worded is None else worded


def worded_rule(rule: type[ASTValidationRule]) -> type[ASTValidationRule]:
    """``rule`` reporting its errors with graphql-js's quotes."""

    def __init__(self: Any, context: ValidationContext) -> None:
        rule.__init__(self, _WordedContext(context))  # type: ignore[arg-type]

    return type(rule.__name__, (rule,), {"__init__": __init__})


#: The specification's rules, worded as graphql-js words them.
WORDED_SPECIFIED_RULES = tuple(worded_rule(rule) for rule in specified_rules)
