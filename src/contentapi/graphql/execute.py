"""One GraphQL operation: cached parse + validation, execution, Strapi-shaped errors.

Documents are parsed and validated once per query text (kept in a ``caching.BoundedCache``);
each operation is then costed (``cost.py``) and refused over the budget (``budget.py``) before
anything runs — a batch as a whole, so that none of it runs when together they are over.
Execution is graphql-core's, with one change (``executor.ShapedExecutionContext``): a resolver
may return a ``Precompleted`` value — Shadow CRUD roots do, having shaped their whole subtree
in one pass — which is taken as is instead of being walked field by field. Everything else
(introspection, the plugins' payloads) runs through graphql-core's normal completion. Messages
of a document that cannot run are graphql-js's (messages.py), as Strapi answers them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    VariableDefinitionNode,
    execute,
    parse,
    validate,
)

from contentapi.caching import GRAPHQL_DOCUMENTS, BoundedCache
from contentapi.db.read_position import current_read_position
from contentapi.errors import ApplicationError, ServiceUnavailableError
from contentapi.graphql.budget import Budget, asks_for_cost
from contentapi.graphql.context import GraphQLContext
from contentapi.graphql.cost import Cost, operation_cost
from contentapi.graphql.errors import format_error, format_request_error
from contentapi.graphql.executor import WORDED_SPECIFIED_RULES, ShapedExecutionContext
from contentapi.graphql.extension import Plugin
from contentapi.graphql.limits import depth_limit_rule, introspection_disabled_rule
from contentapi.graphql.messages import control_character_15, js_string_of, requote, syntax_15
from contentapi.graphql.wrap import settle

__all__ = [
    "Admitted",
    "Engine",
    "Outcome",
    "ShapedExecutionContext",
]  # the last re-exported (executor.py)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The response body of one operation and the HTTP status Apollo would give it."""

    body: dict[str, Any]
    status: int = 200


@dataclass(frozen=True, slots=True)
class Admitted:
    """An operation ready to run: its validated document, variables, operation and cost
    (``None`` when no budget asks for it, or when it cannot run: execution says why) — or one
    only parsed, whose cost already refuses it (``Engine._costly_unvalidated``)."""

    document: DocumentNode
    variables: Any
    operation_name: str | None
    cost: Cost | None
    reports_cost: bool


@dataclass(frozen=True, slots=True)
class _Prepared:
    document: DocumentNode | None
    errors: tuple[dict[str, Any], ...] = ()
    #: cost per operation name, when sent without variables (then it follows from the text)
    costs: dict[str | None, Cost | None] = field(default_factory=dict)


def _failure(errors: list[dict[str, Any]], status: int = 400) -> Outcome:
    return Outcome({"errors": errors}, status)


class Engine:
    """Runs operations against one schema."""

    def __init__(
        self,
        schema: GraphQLSchema,
        *,
        depth_limit: int,
        introspection: bool,
        budget: Budget,
        token_limit: int = 0,
        cache_size: int = GRAPHQL_DOCUMENTS,
        plugins: Sequence[Plugin] = (),
    ) -> None:
        self.schema = schema
        self.budget = budget
        #: the most tokens a document may hold (0: no limit; ``CONTENTAPI_GRAPHQL_TOKEN_LIMIT``)
        self.token_limit = token_limit
        self.rules = [*WORDED_SPECIFIED_RULES, depth_limit_rule(depth_limit)]
        if not introspection:
            self.rules.append(introspection_disabled_rule())
        for plugin in plugins:
            self.rules.extend(plugin.validation_rules)
        self.before = [p.on_execute for p in plugins if p.on_execute is not None]
        self.after = [p.on_result for p in plugins if p.on_result is not None]
        #: parsed and validated documents by their text
        self._documents: BoundedCache[str, _Prepared] = BoundedCache(cache_size)

    def _parse(self, query: str) -> DocumentNode | _Prepared:
        """The document, or the prepared refusal of a text that does not parse (at most
        ``token_limit`` tokens: parsing and validating grow with them, before any budget)."""
        try:
            document = parse(query, max_tokens=self.token_limit or None)
            refused = control_character_15(query)
            if refused is not None:
                raise refused
        except GraphQLError as error:
            control = control_character_15(query)
            if control is not None and _position(control) < _position(error, len(query)):
                error = control  # graphql-js 15 stops at the control character first
            return _Prepared(None, (format_request_error(_syntax(error), "GRAPHQL_PARSE_FAILED"),))
        return document

    def _validated(self, parsed: DocumentNode | _Prepared) -> _Prepared:
        if isinstance(parsed, _Prepared):
            return parsed
        problems = validate(self.schema, parsed, self.rules)
        return _Prepared(
            None if problems else parsed,
            tuple(format_request_error(p, "GRAPHQL_VALIDATION_FAILED") for p in problems),
        )

    def _costly_unvalidated(
        self, parsed: DocumentNode, operation_name: str | None, variables: Any, reports: bool
    ) -> Admitted | None:
        """A new text's operation over the budget, refused before validation.

        Validating grows with the document (a second for 500 aliases of a list with relations):
        what is over the budget is answered without it. The cost is read from the parsed
        document as from a validated one; when it cannot be read (an unknown field, a wrong
        variable) validation says why, and a valid document within the budget is validated and
        kept as before. An over-budget answer only refuses: nothing of it runs.
        """
        if not self.budget.limit:
            return None
        try:
            cost = operation_cost(
                self.schema, parsed, operation_name, variables, self.budget.amount_limit
            )
        except Exception:  # an invalid document: validation will name what is wrong
            return None
        if cost is None or self.budget.refusal(cost) is None:
            return None
        return Admitted(parsed, variables, operation_name, cost, reports)

    def admit(self, payload: Any, *, read_only: bool = False) -> Admitted | Outcome:
        """One ``{query, variables, operationName, extensions}`` object made ready to run —
        parsed, validated and costed — or the answer refusing it (nothing ran)."""
        if not isinstance(payload, Mapping):
            return _failure([_bad_request("Each GraphQL request must be a JSON object.")])
        query = payload.get("query")
        if query is None or query == "":
            return _failure([_apollo_error(_NO_QUERY)])
        if not isinstance(query, str):
            return _failure([_bad_request("GraphQL queries must be strings.")])
        variables, unreadable = _variables(payload.get("variables"))
        if unreadable is not None:
            return _failure([unreadable])
        operation_name = payload.get("operationName")
        if operation_name is not None and not isinstance(operation_name, str):
            # graphql-js compares it with each operation's name: "Unknown operation named "5"."
            operation_name = js_string_of(operation_name)
        reports = asks_for_cost(payload)
        prepared = self._documents.get(query)
        if prepared is None:  # parsed and validated once per text, then kept
            parsed = self._parse(query)
            if not isinstance(parsed, _Prepared):
                costly = self._costly_unvalidated(parsed, operation_name, variables, reports)
                if costly is not None:
                    return costly
            prepared = self._documents.put(query, self._validated(parsed))
        if prepared.document is None:
            return _failure(list(prepared.errors))
        if read_only and _is_mutation(prepared.document, operation_name):
            message = "GET supports only query operation"  # Apollo: 405, INTERNAL_SERVER_ERROR
            return _failure(
                [{"message": message, "extensions": {"code": "INTERNAL_SERVER_ERROR"}}], 405
            )
        cost = None
        if self.budget.limit or reports:
            cost = self._cost(prepared, operation_name, variables)
        return Admitted(prepared.document, variables, operation_name, cost, reports)

    def _cost(self, prepared: _Prepared, operation_name: str | None, variables: Any) -> Cost | None:
        """The operation's cost; kept with its document when no variables are sent (0.2 ms
        for the benchmark's query, 2 % of its answer)."""
        if not variables and operation_name in prepared.costs:
            return prepared.costs[operation_name]
        assert prepared.document is not None
        cost = operation_cost(
            self.schema, prepared.document, operation_name, variables, self.budget.amount_limit
        )
        if not variables:
            prepared.costs[operation_name] = cost
        return cost

    async def run(
        self, payload: Any, context: GraphQLContext, *, read_only: bool = False
    ) -> Outcome:
        """One operation: refused when it costs more than the budget, else executed."""
        admitted = self.admit(payload, read_only=read_only)
        if isinstance(admitted, Outcome):
            return admitted
        refused = None if admitted.cost is None else self.budget.refusal(admitted.cost)
        if refused is not None:
            return _failure([refused])
        return await self.execute(admitted, context)

    async def run_batch(
        self, payloads: list[Any], context: Callable[[], GraphQLContext], *, read_only: bool
    ) -> list[Outcome] | Outcome:
        """A batched POST: at most ``batch_limit`` operations whose costs together stay within
        the budget — else one 400 answer and none of them runs — each then answered in turn."""
        if len(payloads) > self.budget.batch_limit:
            message = (
                f"Too many operations in one batch: {len(payloads)}, at most "
                f"{self.budget.batch_limit}."
            )
            return _failure([_bad_request(message)])
        admitted = [self.admit(payload, read_only=read_only) for payload in payloads]
        costs = [item.cost for item in admitted if isinstance(item, Admitted) and item.cost]
        total = sum(costs, Cost())
        refused = self.budget.refusal(total, batch=len(payloads))
        if refused is not None:
            return _failure([refused])
        return [
            item
            if isinstance(item, Outcome)
            else await self.execute(item, context(), batch=total if len(costs) > 1 else None)
            for item in admitted
        ]

    async def execute(
        self, admitted: Admitted, context: GraphQLContext, *, batch: Cost | None = None
    ) -> Outcome:
        """Run an admitted operation (the extensions' hooks around it)."""
        position = current_read_position()
        if position is not None:  # read replicas: a query's reads may go to one, not a mutation's
            position.replica_ok = not _is_mutation(admitted.document, admitted.operation_name)
        for hook in self.before:
            try:
                await settle(hook(context, admitted.document, admitted.operation_name))
            except ApplicationError as refused:
                return Outcome(
                    {
                        "errors": [
                            format_error(GraphQLError(refused.message, original_error=refused))
                        ],
                        "data": None,
                    }
                )
        variables = admitted.variables
        result = execute(
            self.schema,
            admitted.document,
            context_value=context,
            variable_values=dict(variables) if variables else None,
            operation_name=admitted.operation_name,
            execution_context_class=ShapedExecutionContext,
        )
        if inspect.isawaitable(result):
            result = await result
        outcome = self._outcome(result, context)
        if admitted.reports_cost and admitted.cost is not None:
            outcome.body["extensions"] = {"cost": self.budget.report(admitted.cost, batch)}
        for hook in self.after:
            await settle(hook(context, outcome.body))
        return outcome

    @staticmethod
    def _outcome(result: ExecutionResult, context: GraphQLContext) -> Outcome:
        if result.data is None and result.errors and not any(e.path for e in result.errors):
            # Before execution (variables, unknown operation): HTTP 400 as Apollo answers.
            # (Field errors carry a path; a null bubbling to the root is still a 200.)
            return _failure([_before_execution(e) for e in result.errors])
        for error in result.errors or ():
            if isinstance(error.original_error, ServiceUnavailableError):
                # Nothing useful can be answered: the whole request is a 503 with Retry-After
                # (rendered by http/errors.py), which clients retry, not a field error.
                raise error.original_error
        errors = [format_error(e) for e in result.errors or ()]
        errors.extend(context.shape_errors)
        body: dict[str, Any] = {"errors": errors} if errors else {}
        body["data"] = result.data
        return Outcome(body)


#: graphql-core's words for a refused operation where graphql-js 15 (Strapi's) has its own.
_OPERATION_MESSAGES = {
    "Schema is not configured to execute subscription operation.": (
        "Schema is not configured for subscriptions."
    ),
}


def _before_execution(error: GraphQLError) -> dict[str, Any]:
    """Apollo Server 3 gives a refused variable ``BAD_USER_INPUT``; any other error raised
    before execution (no operation of that name, a subscription) ``INTERNAL_SERVER_ERROR``."""
    if error.nodes and isinstance(error.nodes[0], VariableDefinitionNode):
        return format_request_error(error, "BAD_USER_INPUT")
    error.message = _OPERATION_MESSAGES.get(error.message, error.message)
    return format_request_error(error, "INTERNAL_SERVER_ERROR")


def _position(error: GraphQLError, default: int = 0) -> int:
    return next(iter(error.positions or ()), default)


def _syntax(error: GraphQLError) -> GraphQLError:
    """A syntax error as graphql-js 15 (Strapi's) writes it: its quotes, its lexer's words."""
    message, shift = syntax_15(requote(error.message))
    if shift and error.source is not None and error.positions:
        return GraphQLError(message, source=error.source, positions=[_position(error) + shift])
    error.message = message
    return error


_NO_QUERY = "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension."


def _apollo_error(message: str) -> dict[str, Any]:
    """What Apollo Server 3 answers with its own errors: HTTP 400, ``INTERNAL_SERVER_ERROR``."""
    return {"message": message, "extensions": {"code": "INTERNAL_SERVER_ERROR"}}


def _variables(value: Any) -> tuple[Any, dict[str, Any] | None]:
    """``variables`` as Apollo Server 3 reads them, or the error refusing them: a JSON string
    is parsed, an array is an object of its indexes (so no variable is found in it), anything
    else but an object is graphql-js's refusal."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None, _bad_request("Variables are invalid JSON.")
    if isinstance(value, list):
        return {str(index): item for index, item in enumerate(value)}, None
    if value is not None and not isinstance(value, Mapping):
        return None, _apollo_error(_NOT_AN_OBJECT)
    return value, None


_NOT_AN_OBJECT = (
    "Variables must be provided as an Object where each property is a variable value. "
    "Perhaps look to see if an unparsed JSON string was provided."
)


def _bad_request(message: str) -> dict[str, Any]:
    return {"message": message, "extensions": {"code": "BAD_REQUEST"}}


def _is_mutation(document: DocumentNode, operation_name: str | None) -> bool:
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode) and (
            operation_name is None or (definition.name and definition.name.value == operation_name)
        ):
            return definition.operation != OperationType.QUERY
    return False
