"""Output types: ``X``, ``XEntity``, ``XEntityResponse``, ``XEntityResponseCollection``,
``XRelationResponseCollection``, component types, dynamic-zone unions, ``Error``,
``Pagination`` and ``ResponseCollectionMeta`` — in the field order Strapi's plugin serves.

Each type and attribute field is tagged (``roles.py``) so the planner can read a selection set
without knowing names. Fields have no resolvers: Shadow CRUD reads are answered whole by the
shaper, and everything else reads plain dicts.
"""

from __future__ import annotations

from graphql import (
    GraphQLField,
    GraphQLID,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLString,
    GraphQLUnionType,
)

from contentapi.graphql import naming
from contentapi.graphql.inputs import InputTypes, list_arguments, scalar_type
from contentapi.graphql.roles import KEY, AttributeField, TypeRole
from contentapi.graphql.scalars import DATETIME
from contentapi.query.parse import LOCALIZATIONS
from contentapi.schema.builtin import FILE_UID, FOLDER_UID, PERMISSION_UID, ROLE_UID, USER_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from contentapi.schema.type_names import type_name

__all__ = ["ERROR", "PAGINATION", "RESPONSE_COLLECTION_META", "OutputTypes"]

PAGINATION = GraphQLObjectType(
    "Pagination",
    {
        name: GraphQLField(GraphQLNonNull(GraphQLInt))
        for name in ("total", "page", "pageSize", "pageCount")
    },
    extensions={KEY: TypeRole("pagination")},
)
RESPONSE_COLLECTION_META = GraphQLObjectType(
    "ResponseCollectionMeta",
    {"pagination": GraphQLField(GraphQLNonNull(PAGINATION))},
    extensions={KEY: TypeRole("meta")},
)
ERROR = GraphQLObjectType(
    "Error",
    {"code": GraphQLField(GraphQLNonNull(GraphQLString)), "message": GraphQLField(GraphQLString)},
    extensions={KEY: TypeRole("error")},
)


class OutputTypes:
    """Builds (once) every output type of a registry's models."""

    def __init__(self, registry: Registry, inputs: InputTypes) -> None:
        self.registry = registry
        self.inputs = inputs
        self.switches = inputs.switches
        self._objects: dict[str, GraphQLObjectType] = {}
        self._unions: dict[str, GraphQLUnionType] = {}
        #: types of other plugins that belong to ``GenericMorph`` (i18n's ``I18NLocale``)
        self.morph_extras: list[GraphQLObjectType] = []

    def _object(self, name: str, role: TypeRole, fields: object) -> GraphQLObjectType:
        found = self._objects.get(name)
        if found is None:
            found = GraphQLObjectType(name, fields, extensions={KEY: role})  # type: ignore[arg-type]
            self._objects[name] = found
        return found

    def model_type(self, model: Model) -> GraphQLObjectType:
        """``X`` (or ``ComponentX``): attributes, then timestamps and localizations."""
        name = type_name(model)
        if name in self._objects:
            return self._objects[name]
        return self._object(name, TypeRole("attributes", model), lambda: self._fields(model))

    def entity(self, model: ContentType) -> GraphQLObjectType:
        return self._object(
            naming.entity_name(model),
            TypeRole("entity", model),
            lambda: {
                "id": GraphQLField(GraphQLID),
                "attributes": GraphQLField(self.model_type(model)),
            },
        )

    def entity_response(self, model: ContentType) -> GraphQLObjectType:
        return self._object(
            naming.entity_response_name(model),
            TypeRole("entity_response", model),
            lambda: {"data": GraphQLField(self.entity(model))},
        )

    def collection(self, model: ContentType) -> GraphQLObjectType:
        return self._object(
            naming.entity_response_collection_name(model),
            TypeRole("collection", model),
            lambda: {
                "data": self._entity_list(model),
                "meta": GraphQLField(GraphQLNonNull(RESPONSE_COLLECTION_META)),
            },
        )

    def relation_collection(self, model: ContentType) -> GraphQLObjectType:
        return self._object(
            naming.relation_response_collection_name(model),
            TypeRole("relation_collection", model),
            lambda: {"data": self._entity_list(model)},
        )

    def _entity_list(self, model: ContentType) -> GraphQLField:
        """``data: [XEntity!]!``, the entries of both list types (a root list's, a relation's)."""
        return GraphQLField(GraphQLNonNull(GraphQLList(GraphQLNonNull(self.entity(model)))))

    def zone(self, model: Model, attribute: DynamicZoneAttribute) -> GraphQLUnionType:
        name = naming.dynamic_zone_name(model, attribute.name)
        found = self._unions.get(name)
        if found is None:
            members = [self.registry.components[uid] for uid in attribute.components]
            found = GraphQLUnionType(
                name,
                lambda: [*(self.model_type(member) for member in members), ERROR],
                extensions={KEY: TypeRole("zone", model)},
            )
            self._unions[name] = found
        return found

    def generic_morph(self) -> GraphQLUnionType:
        """``GenericMorph``: every component and model type, in the order Strapi registers
        them (components as it loads them — the reverse of their path order for the example
        models — then upload, users-permissions, i18n, then the API types)."""
        found = self._unions.get("GenericMorph")
        if found is None:

            def members() -> list[GraphQLObjectType]:
                registry = self.registry
                components = [
                    self.model_type(c) for c in reversed(list(registry.components.values()))
                ]
                plugins = [FILE_UID, FOLDER_UID, PERMISSION_UID, ROLE_UID, USER_UID]
                builtin = [self.model_type(registry.content_types[uid]) for uid in plugins]
                api = [
                    self.model_type(content_type)
                    for uid, content_type in registry.content_types.items()
                    if not content_type.is_builtin and self.switches.enabled(uid)
                ]
                return [*components, *builtin, *self.morph_extras, *api]

            found = GraphQLUnionType("GenericMorph", members, extensions={KEY: TypeRole("zone")})
            self._unions["GenericMorph"] = found
        return found

    # ------------------------------------------------------------ attribute fields

    def _fields(self, model: Model) -> dict[str, GraphQLField]:
        fields: dict[str, GraphQLField] = {}
        if not isinstance(model, ContentType):
            fields["id"] = GraphQLField(
                GraphQLNonNull(GraphQLID), extensions={KEY: AttributeField("id", "id")}
            )
        for attribute in model.attributes.values():
            if attribute.private or not self.switches.output(model.uid, attribute.name):
                continue
            if isinstance(attribute, RelationAttribute) and not self.switches.enabled(
                attribute.target
            ):
                continue  # relations to a disabled content type are left out, as in Strapi
            field = self._attribute_field(model, attribute)
            if attribute.required:
                field.type = GraphQLNonNull(field.type)
            fields[attribute.name] = field
            if model.uid == FILE_UID and attribute.name == "provider_metadata":
                # the upload file's polymorphic `related` (morphToMany) follows it
                fields["related"] = GraphQLField(
                    GraphQLList(self.generic_morph()),
                    extensions={KEY: AttributeField("morph", "related", "", "", True)},
                )
        if isinstance(model, ContentType):
            system = ["createdAt", "updatedAt"] + (
                ["publishedAt"] if model.draft_and_publish else []
            )
            for name in system:
                if not self.switches.output(model.uid, name):
                    continue
                fields[name] = GraphQLField(
                    DATETIME, extensions={KEY: AttributeField("scalar", name, "datetime")}
                )
            if model.localized:
                tag = AttributeField("localizations", LOCALIZATIONS, "", model.uid, True)
                fields[LOCALIZATIONS] = self._entries_field(model, tag)
                fields["locale"] = GraphQLField(
                    GraphQLString, extensions={KEY: AttributeField("scalar", "locale", "string")}
                )
        return fields

    def _entries_field(self, target: ContentType, tag: AttributeField) -> GraphQLField:
        """A field answering ``target`` entries (a relation, media, ``localizations``): a
        to-many one lists them with the list arguments, a to-one answers one entry."""
        if tag.to_many:
            arguments = list_arguments(self.inputs.filters(target), target.draft_and_publish)
            return GraphQLField(
                self.relation_collection(target), args=arguments, extensions={KEY: tag}
            )
        return GraphQLField(self.entity_response(target), extensions={KEY: tag})

    def _attribute_field(self, model: Model, attribute: object) -> GraphQLField:
        if isinstance(attribute, ScalarAttribute):
            output: GraphQLOutputType = (
                self.inputs.enum(model, attribute)
                if attribute.type == "enumeration"
                else scalar_type(attribute.type)
            )
            tag = AttributeField("scalar", attribute.name, attribute.type)
            return GraphQLField(output, extensions={KEY: tag})
        if isinstance(attribute, RelationAttribute):
            target = self.registry.content_types[attribute.target]
            tag = AttributeField("relation", attribute.name, "", target.uid, attribute.is_to_many)
            return self._entries_field(target, tag)
        if isinstance(attribute, MediaAttribute):
            files = self.registry.content_types[FILE_UID]
            tag = AttributeField("media", attribute.name, "", FILE_UID, attribute.multiple)
            return self._entries_field(files, tag)
        if isinstance(attribute, ComponentAttribute):
            component = self.registry.components[attribute.component]
            tag = AttributeField(
                "component", attribute.name, "", component.uid, attribute.repeatable
            )
            if attribute.repeatable:
                arguments = list_arguments(self.inputs.filters(component), False)
                return GraphQLField(
                    GraphQLList(self.model_type(component)), args=arguments, extensions={KEY: tag}
                )
            return GraphQLField(self.model_type(component), extensions={KEY: tag})
        assert isinstance(attribute, DynamicZoneAttribute)
        tag = AttributeField("dynamiczone", attribute.name, "", "", True)
        return GraphQLField(GraphQLList(self.zone(model, attribute)), extensions={KEY: tag})
