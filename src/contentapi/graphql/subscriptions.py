"""GraphQL subscriptions (beyond Strapi): the ``Subscription`` root type and how one
subscription document becomes, for each event, a query the ordinary engine answers.

With ``CONTENTAPI_GRAPHQL_SUBSCRIPTIONS=true`` each collection type with a generated ``find``
gets ``<singular>Created``, ``<singular>Updated`` and ``<singular>Deleted``, and with draft &
publish ``<singular>Published`` and ``<singular>Unpublished`` (Strapi's naming:
``articleCreated``), answering ``<Type>EntityResponse``; all but deleted take the list's
``filters``, ``publicationState`` and ``locale``. Delivered over WebSocket by ``websocket.py``.

For created and updated, the subscription's root field is rewritten once into the list query
``articles(filters: {and: [<its filters>, {id: {eq: $contentapiEntryId}}]}, …) { <its
selection> }``: each event runs it with the event's entry id, so the payload is shaped, checked
(private attributes, what the caller may ``find`` through relations) and read exactly as a
query's, and an entry the filters do not match sends nothing. Deleted sends ``{data: {id,
attributes: null}}``: the entry is gone.
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
#: marks a Subscription field: (content type uid, the change feed's events it follows, the
#: Query field that lists the type's entries)
KEY = "contentapi_subscription"
_KINDS = {
    "Created": ("entry.create",),
    "Updated": ("entry.update",),
    "Deleted": ("entry.delete",),
    # draft & publish types only
    "Published": ("entry.publish",),
    "Unpublished": ("entry.unpublish",),
}


def subscription_type(builder: Any) -> GraphQLObjectType | None:
    """The ``Subscription`` root type over the schema builder's types (``schema.py``)."""
    fields: dict[str, GraphQLField] = {}
    for content_type in builder._api_types():
        if content_type.is_single:
            continue
        if not builder.switches.of(content_type.uid).generates("find"):
            continue
        single, plural = naming.query_names(content_type)
        response = builder.types.entity_response(content_type)
        arguments = {"filters": GraphQLArgument(builder.inputs.filters(content_type))}
        if content_type.draft_and_publish:
            arguments["publicationState"] = GraphQLArgument(PUBLICATION_STATE, default_value="live")
        arguments.update(builder._locale(content_type))
        for kind, events in _KINDS.items():
            if kind.endswith("ublished") and not content_type.draft_and_publish:
                continue
            if kind == "Deleted":
                kind_arguments = builder._locale(content_type)
            elif kind == "Unpublished":  # the entry is a draft now: read in preview
                kind_arguments = {k: v for k, v in arguments.items() if k != "publicationState"}
            else:
                kind_arguments = arguments
            fields[f"{single}{kind}"] = GraphQLField(
                response,
                args=kind_arguments,
                extensions={KEY: (content_type.uid, events, plural)},
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
    uid, events, list_name = schema.subscription_type.fields[root.name.value].extensions[KEY]
    key = root.alias.value if root.alias else root.name.value
    variables = payload.get("variables") or {}
    if not isinstance(variables, dict):
        return [GraphQLError("Variables must be an object")]
    if events == ("entry.delete",):
        return SubscriptionPlan(uid, events, key, None, variables)
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    preview = events == ("entry.unpublish",)
    query = _per_event_query(operation, root, key, list_name, fragments, preview=preview)
    return SubscriptionPlan(uid, events, key, query, variables)


def _per_event_query(
    operation: OperationDefinitionNode,
    root: FieldNode,
    key: str,
    list_name: str,
    fragments: list[FragmentDefinitionNode],
    *,
    preview: bool,
) -> str:
    """The list query that reads one event's entry as the subscription selects it
    (``preview``: drafts included, for an unpublished entry)."""
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
    arguments = [a for a in root.arguments if a.name.value != "filters"]
    given = next((a.value for a in root.arguments if a.name.value == "filters"), None)
    filters = (
        this_entry
        if given is None
        else ObjectValueNode(
            fields=(
                ObjectFieldNode(
                    name=NameNode(value="and"),
                    value=ListValueNode(values=(given, this_entry)),
                ),
            )
        )
    )
    arguments.append(ArgumentNode(name=NameNode(value="filters"), value=filters))
    if preview:
        state = EnumValueNode(value="PREVIEW")
        arguments.append(ArgumentNode(name=NameNode(value="publicationState"), value=state))
    field = FieldNode(
        alias=NameNode(value=key),
        name=NameNode(value=list_name),
        arguments=tuple(arguments),
        directives=root.directives,
        selection_set=root.selection_set,
    )
    entry_id = VariableDefinitionNode(
        variable=VariableNode(name=NameNode(value=ENTRY_VARIABLE)),
        type=NonNullTypeNode(type=NamedTypeNode(name=NameNode(value="ID"))),
        directives=(),
    )
    query = OperationDefinitionNode(
        operation=OperationType.QUERY,
        name=operation.name,
        variable_definitions=(*operation.variable_definitions, entry_id),
        directives=(),
        selection_set=SelectionSetNode(selections=(field,)),
    )
    return print_ast(DocumentNode(definitions=(query, *fragments)))
