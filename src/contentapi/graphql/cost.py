"""``costLimit``: what an operation may cost, computed before it runs.

``depthLimit`` bounds one path and ``amountLimit`` one list; neither bounds a document: 500
aliases of ``books(pagination: {limit: 100})`` each pass both and together read 50,000 books
and their relations. Like GitHub's node limit (each list's requested size multiplied down the
tree) and Shopify's calculated query cost, the cost is read from the validated document and
its coerced variables alone, so an operation over the budget is refused before any statement:

- every field the answer holds counts 1 — ``__typename`` and scalars included, so 5,000
  aliases of ``__typename`` cost 5,000;
- a list multiplies what it holds by its size: the ``pagination`` of the field (Strapi's
  rules and ``amountLimit``, ``query/pagination.py``: 10 when none is given, ``limit: -1`` as
  ``amountLimit``) — the ``data`` of an ``…EntityResponseCollection`` or
  ``…RelationResponseCollection`` takes its field's;
- a list nothing bounds (a dynamic zone, a file's ``related``, introspection's) counts as a
  page of the default size, 10: an estimate, the statement timeout bounding the rest;
- a field that reads from the database adds ``READ_COST`` once (not per item: nested readings
  are batched per level): each root field but introspection, each relation, media,
  component, dynamic zone and ``localizations`` field — 1,000 aliases of
  ``books(pagination: {limit: 1}) { data { id } }`` hold few values but run 2,000 statements;
- fragments are expanded and ``@skip``/``@include`` applied (graphql-core's own field
  collection, as execution does); an item of a union or an interface costs what the most
  costly of its possible types selects.

    >>> from graphql import parse
    >>> # operation_cost(schema, parse("{ a: __typename b: __typename }"), None, {}, 100) == 2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    OperationDefinitionNode,
    SchemaMetaFieldDef,
    TypeMetaFieldDef,
    get_operation_ast,
    get_variable_values,
    is_abstract_type,
)

from contentapi.errors import ApplicationError
from contentapi.graphql.executor import collect_fields, collect_sub_fields, get_argument_values
from contentapi.graphql.roles import field_of
from contentapi.query.pagination import GRAPHQL_DEFAULT_LIMIT, graphql_window

__all__ = ["READ_COST", "UNBOUNDED_ITEMS", "Cost", "operation_cost"]

#: The size a list counts as when nothing in the document bounds it.
UNBOUNDED_ITEMS = GRAPHQL_DEFAULT_LIMIT


#: What a field that reads from the database adds: a root field (its own statements, its
#: permission check and plan) or a relation, media, component or dynamic zone (one statement
#: per distinct reading per level, whatever the rows). Measured on this project's 2-core
#: machine, one costs 1 to 8 ms, a value shaped and sent 2 to 4 µs.
READ_COST = 1_000

#: The attribute fields the planner populates: each is one more reading of its level.
_POPULATED = frozenset(("relation", "media", "component", "dynamiczone", "localizations", "morph"))


@dataclass(frozen=True, slots=True)
class Cost:
    """An operation's cost: the ``values`` its answer can hold and the ``reads`` it runs."""

    values: int = 0
    reads: int = 0

    @property
    def total(self) -> int:
        """What the budget compares: ``values + READ_COST * reads``."""
        return self.values + READ_COST * self.reads

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.values + other.values, self.reads + other.reads)

    def times(self, items: int) -> Cost:
        """Held once per item of a list: the values repeat, the reads do not (one statement
        per level, whatever the rows)."""
        return Cost(self.values * items, self.reads)


_NOTHING = Cost()


def _sum(costs: Iterable[Cost]) -> Cost:
    total = _NOTHING
    for cost in costs:
        total = total + cost
    return total


def operation_cost(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
    amount_limit: int,
) -> Cost | None:
    """The cost of the operation ``operation_name`` selects, or ``None`` when it cannot run
    (no such operation, refused variables): execution then refuses it in its own words."""
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return None
    coerced = get_variable_values(
        schema, operation.variable_definitions or (), dict(variables or {})
    )
    if isinstance(coerced, list):
        return None
    root = schema.get_root_type(operation.operation)
    if root is None:
        return None
    return _Walk(schema, document, coerced, amount_limit).operation(root, operation)


class _Walk:
    """One operation's walk: the fragments, coerced variables and list bounds it reads."""

    __slots__ = ("amount_limit", "fragments", "roots", "schema", "variables")

    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        variables: dict[str, Any],
        amount_limit: int,
    ) -> None:
        self.schema = schema
        self.variables = variables
        self.amount_limit = amount_limit
        self.roots = (schema.query_type, schema.mutation_type)
        self.fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }

    def operation(self, root: GraphQLObjectType, operation: OperationDefinitionNode) -> Cost:
        fields = collect_fields(
            self.schema, self.fragments, self.variables, root, operation.selection_set
        )
        return _sum(self._field(root, nodes, None) for nodes in fields.values())

    def _selection(
        self, parent: GraphQLObjectType, nodes: list[FieldNode], page: int | None
    ) -> Cost:
        """What ``nodes``' selection sets cost on ``parent``; ``page``: the size of the lists
        directly in it (a collection's ``data``), when its field was paginated."""
        fields = collect_sub_fields(self.schema, self.fragments, self.variables, parent, nodes)
        return _sum(self._field(parent, sub, page) for sub in fields.values())

    def _field(self, parent: GraphQLObjectType, nodes: list[FieldNode], page: int | None) -> Cost:
        name = nodes[0].name.value
        definition = self._definition(parent, name)
        if definition is None:  # __typename (validation has refused unknown fields)
            return _ONE_VALUE
        own = _ONE_READ if self._reads(parent, name, definition) else _ONE_VALUE
        window = self._window(definition, nodes[0])
        field_type = definition.type
        if isinstance(field_type, GraphQLNonNull):
            field_type = field_type.of_type
        if isinstance(field_type, GraphQLList):
            size = window if window is not None else page
            return own + self._value(field_type, nodes, size)
        return own + self._value(field_type, nodes, None, inner_page=window)

    def _reads(self, parent: GraphQLObjectType, name: str, definition: GraphQLField) -> bool:
        """Whether the field runs statements of its own (``READ_COST``)."""
        if name.startswith("__"):
            return False
        if parent in self.roots:
            return True
        tag = field_of(definition)
        return tag is not None and tag.kind in _POPULATED

    def _definition(self, parent: GraphQLObjectType, name: str) -> GraphQLField | None:
        if name == "__schema" and parent is self.schema.query_type:
            return SchemaMetaFieldDef
        if name == "__type" and parent is self.schema.query_type:
            return TypeMetaFieldDef
        return parent.fields.get(name)

    def _window(self, definition: GraphQLField, node: FieldNode) -> int | None:
        """The page size a ``pagination`` argument asks for (Strapi's rules, capped at
        ``amountLimit``); a refused one counts as the default page (the field errs)."""
        if "pagination" not in definition.args:
            return None
        try:
            arguments = get_argument_values(definition, node, self.variables)
            return graphql_window(arguments.get("pagination"), self.amount_limit).limit
        except (ApplicationError, GraphQLError, TypeError, ValueError):
            return min(GRAPHQL_DEFAULT_LIMIT, self.amount_limit)

    def _value(
        self,
        value_type: GraphQLOutputType,
        nodes: list[FieldNode],
        size: int | None,
        *,
        inner_page: int | None = None,
    ) -> Cost:
        """What a field's value holds below the field itself."""
        if isinstance(value_type, GraphQLNonNull):
            return self._value(value_type.of_type, nodes, size, inner_page=inner_page)
        if isinstance(value_type, GraphQLList):
            items = UNBOUNDED_ITEMS if size is None else size
            return self._value(value_type.of_type, nodes, None).times(items)
        if isinstance(value_type, GraphQLObjectType):
            return self._selection(value_type, nodes, inner_page)
        if is_abstract_type(value_type):
            possible = self.schema.get_possible_types(value_type)  # type: ignore[arg-type]
            costs = [self._selection(t, nodes, inner_page) for t in possible]
            return max(costs, key=lambda cost: cost.total, default=_NOTHING)
        return _NOTHING  # a scalar or an enum: the field's own value


_ONE_VALUE = Cost(values=1)
_ONE_READ = Cost(values=1, reads=1)
