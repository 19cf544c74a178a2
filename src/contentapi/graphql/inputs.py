"""Input types: ``XInput``, component inputs, ``XFiltersInput``, the scalar ``…FilterInput``s,
``PaginationArg`` and the ``PublicationState`` enum.

Private attributes are left out of ``…FiltersInput`` (never an oracle on hidden data:
docs/differences-from-strapi.md) but stay writable in ``…Input``, as in REST.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLEnumValue,
    GraphQLFloat,
    GraphQLID,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    GraphQLString,
)

from contentapi.graphql import naming
from contentapi.graphql.scalars import DATE, DATETIME, JSON, LONG, TIME, dynamic_zone_input
from contentapi.graphql.shadow_crud import ShadowCrud
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    NestingAttribute,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from contentapi.schema.type_names import type_name

__all__ = ["FILTER_OPERATORS", "InputTypes", "scalar_type"]

#: Strapi's operators, in the order its ``…FilterInput`` types list them.
FILTER_OPERATORS = (
    "and",
    "or",
    "not",
    "eq",
    "eqi",
    "ne",
    "nei",
    "startsWith",
    "endsWith",
    "contains",
    "notContains",
    "containsi",
    "notContainsi",
    "gt",
    "gte",
    "lt",
    "lte",
    "null",
    "notNull",
    "in",
    "notIn",
    "between",
)

_SCALARS: dict[str, GraphQLScalarType] = {
    "string": GraphQLString,
    "text": GraphQLString,
    "richtext": GraphQLString,
    "email": GraphQLString,
    "password": GraphQLString,
    "uid": GraphQLString,
    "enumeration": GraphQLString,
    "integer": GraphQLInt,
    "biginteger": LONG,
    "float": GraphQLFloat,
    "decimal": GraphQLFloat,
    "boolean": GraphQLBoolean,
    "date": DATE,
    "time": TIME,
    "datetime": DATETIME,
    "timestamp": DATETIME,
    "json": JSON,
    "array": JSON,
    "blocks": JSON,  # Strapi's SCALARS_ASSOCIATIONS: blocks → JSON (and JSONFilterInput)
}


def scalar_type(attribute_type: str) -> GraphQLScalarType:
    """Strapi's ``strapiScalarToGraphQLScalar``."""
    return _SCALARS[attribute_type]


_Named = TypeVar("_Named", GraphQLEnumType, GraphQLScalarType, GraphQLInputObjectType)


def _once(made: dict[str, _Named], name: str, make: Callable[[], _Named]) -> _Named:
    """The type ``name``, made on its first use: a schema may hold one object per type name,
    and many attributes share one (an enum, a dynamic zone's input)."""
    found = made.get(name)
    if found is None:
        found = made[name] = make()
    return found


def _operator_fields(
    scalar: GraphQLScalarType, created: GraphQLInputObjectType
) -> dict[str, GraphQLInputField]:
    """``<Scalar>FilterInput``'s fields: lists for the many-valued operators, ``not`` the
    filter type itself."""
    result: dict[str, GraphQLInputField] = {}
    for operator in FILTER_OPERATORS:
        if operator in ("and", "or", "in", "notIn", "between"):
            result[operator] = GraphQLInputField(GraphQLList(scalar))
        elif operator == "not":
            result[operator] = GraphQLInputField(created)
        elif operator in ("null", "notNull"):
            result[operator] = GraphQLInputField(GraphQLBoolean)
        else:
            result[operator] = GraphQLInputField(scalar)
    return result


def _input_once(
    made: dict[str, GraphQLInputObjectType],
    name: str,
    fields: Callable[[GraphQLInputObjectType], dict[str, GraphQLInputField]],
) -> GraphQLInputObjectType:
    """The input type ``name`` (``_once``), its fields made when the schema first reads them
    and from the type itself: a filter input nests itself (``and``, ``or``, ``not``), and
    inputs reach other models' inputs that may lead back to it."""

    def make() -> GraphQLInputObjectType:
        created = GraphQLInputObjectType(name, lambda: fields(created))
        return created

    return _once(made, name, make)


PUBLICATION_STATE = GraphQLEnumType(
    "PublicationState",
    {"LIVE": GraphQLEnumValue("live"), "PREVIEW": GraphQLEnumValue("preview")},
)

PAGINATION_ARG = GraphQLInputObjectType(
    "PaginationArg",
    {name: GraphQLInputField(GraphQLInt) for name in ("page", "pageSize", "start", "limit")},
)


def list_arguments(
    filters: GraphQLInputType, publication_state: bool
) -> dict[str, GraphQLArgument]:
    """``filters``, ``pagination = {}``, ``sort = []`` (and ``publicationState = LIVE`` for
    draft & publish targets): the arguments of lists and to-many relations."""
    arguments = {
        "filters": GraphQLArgument(filters),
        "pagination": GraphQLArgument(PAGINATION_ARG, default_value={}),
        "sort": GraphQLArgument(GraphQLList(GraphQLString), default_value=[]),
    }
    if publication_state:
        arguments["publicationState"] = GraphQLArgument(PUBLICATION_STATE, default_value="live")
    return arguments


class InputTypes:
    """Builds (once) every input type of a registry's models."""

    def __init__(self, registry: Registry, switches: ShadowCrud | None = None) -> None:
        self.registry = registry
        self.switches = switches or ShadowCrud()
        self._filter_inputs: dict[str, GraphQLInputObjectType] = {}
        self._model_filters: dict[str, GraphQLInputObjectType] = {}
        self._model_inputs: dict[str, GraphQLInputObjectType] = {}
        self.enums: dict[str, GraphQLEnumType] = {}
        self._zones: dict[str, GraphQLScalarType] = {}
        self.id_filter = self.scalar_filter(GraphQLID)

    # ------------------------------------------------------------ shared pieces

    def scalar_filter(self, scalar: GraphQLScalarType) -> GraphQLInputObjectType:
        """``<Scalar>FilterInput`` with Strapi's 22 operators."""
        return _input_once(
            self._filter_inputs,
            f"{scalar.name}FilterInput",
            lambda created: _operator_fields(scalar, created),
        )

    def enum(self, model: Model, attribute: ScalarAttribute) -> GraphQLEnumType:
        name = naming.enum_name(model, attribute.name)
        return _once(
            self.enums,
            name,
            lambda: GraphQLEnumType(
                name, {value: GraphQLEnumValue(value) for value in attribute.enum}
            ),
        )

    def zone_input(self, model: Model, attribute: DynamicZoneAttribute) -> GraphQLScalarType:
        name = naming.dynamic_zone_input_name(model, attribute.name)
        components = self.registry.components
        return _once(
            self._zones,
            name,
            lambda: dynamic_zone_input(
                name, {type_name(components[uid]): uid for uid in attribute.components}
            ),
        )

    # ------------------------------------------------------------ filters

    def filters(self, model: Model) -> GraphQLInputObjectType:
        """``XFiltersInput``: ``id``, the attributes (no media, no dynamic zones, nothing
        private), the timestamps, ``localizations``/``locale``, then ``and``/``or``/``not``."""
        return _input_once(
            self._model_filters,
            naming.filters_input_name(model),
            lambda created: self._filter_fields(model, created),
        )

    def _filter_fields(
        self, model: Model, created: GraphQLInputObjectType
    ) -> dict[str, GraphQLInputField]:
        result: dict[str, GraphQLInputField] = {}
        is_entry = isinstance(model, ContentType)
        if is_entry:
            result["id"] = GraphQLInputField(self.id_filter)
        for attribute in model.attributes.values():
            if attribute.private or not self.switches.filters(model.uid, attribute.name):
                continue
            if isinstance(attribute, RelationAttribute) and not self.switches.enabled(
                attribute.target
            ):
                continue
            if isinstance(attribute, ScalarAttribute):
                result[attribute.name] = GraphQLInputField(
                    self.scalar_filter(scalar_type(attribute.type))
                )
            elif isinstance(attribute, NestingAttribute):
                result[attribute.name] = GraphQLInputField(
                    self.filters(self.registry.target(attribute))
                )
        if isinstance(model, ContentType):
            datetime_filter = self.scalar_filter(DATETIME)
            result["createdAt"] = GraphQLInputField(datetime_filter)
            result["updatedAt"] = GraphQLInputField(datetime_filter)
            if model.draft_and_publish:
                result["publishedAt"] = GraphQLInputField(datetime_filter)
            if model.localized:
                result["localizations"] = GraphQLInputField(created)
                result["locale"] = GraphQLInputField(self.scalar_filter(GraphQLString))
        result["and"] = GraphQLInputField(GraphQLList(created))
        result["or"] = GraphQLInputField(GraphQLList(created))
        result["not"] = GraphQLInputField(created)
        return result

    # ------------------------------------------------------------ inputs

    def input(self, model: Model) -> GraphQLInputObjectType:
        """``XInput`` / ``ComponentXInput``: every writable attribute, all optional; components
        start with ``id`` (to update an item in place), entries end with ``publishedAt``."""
        return _input_once(
            self._model_inputs, naming.input_name(model), lambda _: self._input_fields(model)
        )

    def _input_fields(self, model: Model) -> dict[str, GraphQLInputField]:
        result: dict[str, GraphQLInputField] = {}
        if not isinstance(model, ContentType):
            result["id"] = GraphQLInputField(GraphQLID)
        for attribute in model.attributes.values():
            if not self.switches.input(model.uid, attribute.name):
                continue
            field_type: GraphQLInputType
            if isinstance(attribute, ScalarAttribute):
                field_type = (
                    self.enum(model, attribute)
                    if attribute.type == "enumeration"
                    else scalar_type(attribute.type)
                )
            elif isinstance(attribute, MediaAttribute):
                field_type = GraphQLList(GraphQLID) if attribute.multiple else GraphQLID
            elif isinstance(attribute, RelationAttribute):
                field_type = GraphQLList(GraphQLID) if attribute.is_to_many else GraphQLID
            elif isinstance(attribute, ComponentAttribute):
                component_input = self.input(self.registry.target(attribute))
                field_type = (
                    GraphQLList(component_input) if attribute.repeatable else component_input
                )
            else:
                field_type = GraphQLList(GraphQLNonNull(self.zone_input(model, attribute)))
            result[attribute.name] = GraphQLInputField(field_type)
        if isinstance(model, ContentType) and model.draft_and_publish:
            result["publishedAt"] = GraphQLInputField(DATETIME)
        return result
