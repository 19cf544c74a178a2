"""GraphQL subscriptions (beyond Strapi): the ``Subscription`` root type and how one
subscription document becomes, for each event, a query the ordinary engine answers.

With ``CONTENTAPI_GRAPHQL_SUBSCRIPTIONS=true`` each collection type with a generated ``find``
gets ``<singular>Created``, ``<singular>Updated`` and ``<singular>Deleted``, and with draft &
publish ``<singular>Published`` and ``<singular>Unpublished`` (Strapi's naming:
``articleCreated``), answering ``<Type>EntityResponse``; all but deleted take the list's
``filters``, ``publicationState`` and ``locale``. A single type has no "created" of its own (its
first write creates it): its ``<singular>Updated`` follows both, and its fields take the single
query's ``publicationState`` and ``locale``. Delivered over WebSocket by ``websocket.py``.

For created and updated, the subscription's root field is rewritten once into the list query
``articles(filters: {and: [<its filters>, {id: {eq: $contentapiEntryId}}]}, …) { <its
selection> }``: each event runs it with the event's entry id, so the payload is shaped, checked
(private attributes, what the caller may ``find`` through relations) and read exactly as a
query's, and an entry the filters do not match sends nothing. A single type's becomes its own
query (``global(locale: …) { … }``), whose entry is sent only when it is the event's (an event of
another locale sends nothing). Deleted sends ``{data: {id, attributes: null}}``: the entry is
gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    ArgumentNode,
    DocumentNode,
    EnumValueNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLArgument,
    GraphQLError,
    GraphQLField,
    GraphQLObjectType,
    GraphQLSchema,
    ListValueNode,
    NamedTypeNode,
    NameNode,
    NonNullTypeNode,
    ObjectFieldNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    StringValueNode,
    VariableDefinitionNode,
    VariableNode,
    get_operation_ast,
    parse,
    print_ast,
    validate,
)

from contentapi.graphql import naming
from contentapi.graphql.inputs import PUBLICATION_STATE

__all__ = ["ENTRY_VARIABLE", "SubscriptionPlan", "plan_subscription", "subscription_type"]

#: the variable the per-event query takes the entry's id in
ENTRY_VARIABLE = "contentapiEntryId"
#: marks a Subscription field (its value: a :class:`Followed`)
KEY = "contentapi_subscription"
_KINDS = {
    "Created": ("entry.create",),
    "Updated": ("entry.update",),
    "Deleted": ("entry.delete",),
    # draft & publish types only
    "Published": ("entry.publish",),
    "Unpublished": ("entry.unpublish",),
}
#: a single type's: its first write creates it, which its subscribers hear as an update
_SINGLE_KINDS = {
    "Updated": ("entry.create", "entry.update"),
    "Deleted": ("entry.delete",),
    "Published": ("entry.publish",),
    "Unpublished": ("entry.unpublish",),
}


@dataclass(frozen=True, slots=True)
class Followed:
    """What one ``Subscription`` field follows and how its entries are read."""

    uid: str
    #: the change feed's events it hears
    events: tuple[str, ...]
    #: the ``Query`` field that reads them: the list's, or a single type's own
    query_field: str
    single: bool


def subscription_type(builder: Any) -> GraphQLObjectType | None:
    """The ``Subscription`` root type over the schema builder's types (``schema.py``)."""
    fields: dict[str, GraphQLField] = {}
    for content_type in builder._api_types():
        if not builder.switches.of(content_type.uid).generates("find"):
            continue
        single, plural = naming.query_names(content_type)
        response = builder.types.entity_response(content_type)
        locale = builder._locale(content_type)
        arguments = (
            {}
            if content_type.is_single
            else {"filters": GraphQLArgument(builder.inputs.filters(content_type))}
        )
        if content_type.draft_and_publish:
            arguments["publicationState"] = GraphQLArgument(PUBLICATION_STATE, default_value="live")
        arguments.update(locale)
        kinds = _SINGLE_KINDS if content_type.is_single else _KINDS
        query_field = single if content_type.is_single else plural
        for kind, events in kinds.items():
            if kind.endswith("ublished") and not content_type.draft_and_publish:
                continue
            if kind == "Deleted":
                kind_arguments = locale
            elif kind == "Unpublished":  # the entry is a draft now: read in preview
                kind_arguments = {k: v for k, v in arguments.items() if k != "publicationState"}
            else:
                kind_arguments = arguments
            followed = Followed(content_type.uid, events, query_field, content_type.is_single)
            fields[f"{single}{kind}"] = GraphQLField(
                response, args=kind_arguments, extensions={KEY: followed}
            )
    return GraphQLObjectType("Subscription", fields) if fields else None


@dataclass(frozen=True, slots=True)
class SubscriptionPlan:
    """One subscription, ready to follow the change feed."""

    uid: str
    events: tuple[str, ...]
    #: the root field's response key (its alias or name)
    key: str
    #: the per-event query (``None`` for a deleted subscription)
    query: str | None
    variables: dict[str, Any]
    #: a single type's: its query reads one entry whatever the event, so the answer is sent
    #: only when that entry is the event's
    single: bool = False
    #: the ``locale`` argument's value, where one is given
    locale: str | None = None


def plan_subscription(schema: GraphQLSchema, payload: Any) -> SubscriptionPlan | list[GraphQLError]:
    """The plan of a ``subscribe`` message's payload, or the errors that refuse it."""
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return [GraphQLError("A subscription needs a query")]
    try:
        document = parse(payload["query"])
    except GraphQLError as error:
        return [error]
    errors = validate(schema, document)
    if errors:
        return errors
    operation_name = payload.get("operationName")
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return [GraphQLError("Unknown operation")]
    if operation.operation is not OperationType.SUBSCRIPTION:
        return [GraphQLError("Only subscription operations are served over WebSocket")]
    (root,) = operation.selection_set.selections  # one root field: validation checked it
    if not isinstance(root, FieldNode):
        return [GraphQLError("A subscription selects its field directly")]
    assert schema.subscription_type is not None
    followed: Followed = schema.subscription_type.fields[root.name.value].extensions[KEY]
    key = root.alias.value if root.alias else root.name.value
    variables = payload.get("variables") or {}
    if not isinstance(variables, dict):
        return [GraphQLError("Variables must be an object")]
    locale = _locale_argument(root, variables)
    if followed.events == ("entry.delete",):
        return SubscriptionPlan(
            followed.uid, followed.events, key, None, variables, followed.single, locale
        )
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    preview = followed.events == ("entry.unpublish",)
    query = _per_event_query(operation, root, key, followed, fragments, preview=preview)
    return SubscriptionPlan(
        followed.uid, followed.events, key, query, variables, followed.single, locale
    )


def _locale_argument(root: FieldNode, variables: dict[str, Any]) -> str | None:
    """The root field's ``locale``, given literally or as a variable."""
    for argument in root.arguments:
        if argument.name.value != "locale":
            continue
        if isinstance(argument.value, StringValueNode):
            return argument.value.value
        if isinstance(argument.value, VariableNode):
            given = variables.get(argument.value.name.value)
            return given if isinstance(given, str) else None
    return None


def _per_event_query(
    operation: OperationDefinitionNode,
    root: FieldNode,
    key: str,
    followed: Followed,
    fragments: list[FragmentDefinitionNode],
    *,
    preview: bool,
) -> str:
    """The query that reads one event's entry as the subscription selects it (``preview``:
    drafts included, for an unpublished entry): the list's, held to the event's entry by
    ``$contentapiEntryId``, or a single type's own."""
    arguments = [a for a in root.arguments if a.name.value not in ("filters", "publicationState")]
    arguments += [a for a in root.arguments if a.name.value == "publicationState" and not preview]
    if preview:
        state = EnumValueNode(value="PREVIEW")
        arguments.append(ArgumentNode(name=NameNode(value="publicationState"), value=state))
    variable_definitions = operation.variable_definitions
    if not followed.single:
        arguments.append(ArgumentNode(name=NameNode(value="filters"), value=_this_entry(root)))
        entry_id = VariableDefinitionNode(
            variable=VariableNode(name=NameNode(value=ENTRY_VARIABLE)),
            type=NonNullTypeNode(type=NamedTypeNode(name=NameNode(value="ID"))),
            directives=(),
        )
        variable_definitions = (*variable_definitions, entry_id)
    field = FieldNode(
        alias=NameNode(value=key),
        name=NameNode(value=followed.query_field),
        arguments=tuple(arguments),
        directives=root.directives,
        selection_set=root.selection_set,
    )
    query = OperationDefinitionNode(
        operation=OperationType.QUERY,
        name=operation.name,
        variable_definitions=variable_definitions,
        directives=(),
        selection_set=SelectionSetNode(selections=(field,)),
    )
    return print_ast(DocumentNode(definitions=(query, *fragments)))


def _this_entry(root: FieldNode) -> ObjectValueNode:
    """The subscription's ``filters`` and the event's entry: ``{and: [<its filters>, {id: {eq:
    $contentapiEntryId}}]}``."""
    this_entry = ObjectValueNode(
        fields=(
            ObjectFieldNode(
                name=NameNode(value="id"),
                value=ObjectValueNode(
                    fields=(
                        ObjectFieldNode(
                            name=NameNode(value="eq"),
                            value=VariableNode(name=NameNode(value=ENTRY_VARIABLE)),
                        ),
                    )
                ),
            ),
        )
    )
    given = next((a.value for a in root.arguments if a.name.value == "filters"), None)
    if given is None:
        return this_entry
    return ObjectValueNode(
        fields=(
            ObjectFieldNode(
                name=NameNode(value="and"),
                value=ListValueNode(values=(given, this_entry)),
            ),
        )
    )
