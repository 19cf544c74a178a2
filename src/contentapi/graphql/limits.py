"""``depthLimit``: graphql-depth-limit 1.1.0's rule, with its counting and message.

Depth is 0 at the operation's root fields and grows by one per field that has a selection
set; fragments add nothing; introspection fields (``__schema`` …) are not counted. Every node
deeper than the limit reports ``'<operation>' exceeds maximum operation depth of N`` (``''``
for an anonymous operation, as Strapi answers).

    >>> from graphql import parse, validate, specified_rules
    >>> # validate(schema, parse(query), [*specified_rules, depth_limit_rule(10)])
"""

from __future__ import annotations

from typing import Any

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    ValidationContext,
)

__all__ = ["depth_limit_rule", "introspection_disabled_rule"]


def depth_limit_rule(max_depth: int) -> type[ASTValidationRule]:
    class DepthLimit(ASTValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            document = context.document
            self.fragments = {
                d.name.value: d
                for d in document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }

        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            name = node.name.value if node.name else ""
            self._depth(node, 0, name, set())

        def _depth(self, node: Any, depth: int, operation: str, seen: set[str]) -> int:
            if depth > max_depth:
                self.report_error(
                    GraphQLError(
                        f"'{operation}' exceeds maximum operation depth of {max_depth}", node
                    )
                )
                return depth
            if isinstance(node, FieldNode):
                if node.name.value.startswith("__") or node.selection_set is None:
                    return 0
                return 1 + max(
                    (
                        self._depth(child, depth + 1, operation, seen)
                        for child in node.selection_set.selections
                    ),
                    default=0,
                )
            if isinstance(node, FragmentSpreadNode):
                fragment = self.fragments.get(node.name.value)
                if fragment is None or node.name.value in seen:
                    return 0  # unknown or cyclic: other rules report it
                return self._depth(fragment, depth, operation, seen | {node.name.value})
            if isinstance(
                node, InlineFragmentNode | FragmentDefinitionNode | OperationDefinitionNode
            ):
                return max(
                    (
                        self._depth(child, depth, operation, seen)
                        for child in node.selection_set.selections
                    ),
                    default=0,
                )
            return 0

    return DepthLimit


class _NoIntrospection(ASTValidationRule):
    """Apollo Server's production rule, with its message."""

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        if node.name.value in ("__schema", "__type"):
            self.report_error(
                GraphQLError(
                    "GraphQL introspection is not allowed by Apollo Server, but the query "
                    "contained __schema or __type. To enable introspection, pass "
                    "introspection: true to ApolloServer in production",
                    node,
                )
            )


def introspection_disabled_rule() -> type[ASTValidationRule]:
    return _NoIntrospection
