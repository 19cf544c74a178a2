"""The Shadow CRUD schema, built once from the Registry at start-up (graphql-core types).

Root fields come in the order Strapi's plugin registers them: the upload file's queries, the
users-permissions role and user queries, the i18n locale queries, every API content type, then
``me``; mutations likewise, then the upload, users-permissions and i18n mutations. Types that no
root field reaches are not part of the schema (Strapi prunes them too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLID,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
)

from contentapi.graphql import naming
from contentapi.graphql.crud import ContentTypeResolvers
from contentapi.graphql.i18n import I18nFields
from contentapi.graphql.inputs import PUBLICATION_STATE, InputTypes, list_arguments
from contentapi.graphql.roles import KEY, GeneratedRoot
from contentapi.graphql.scalars import i18n_locale_code
from contentapi.graphql.shadow_crud import ShadowCrud
from contentapi.graphql.types import OutputTypes
from contentapi.graphql.upload import UPLOAD_ACTIONS, UploadFields
from contentapi.graphql.users import UsersPermissionsFields
from contentapi.schema.builtin import FILE_UID, FOLDER_UID, ROLE_UID, USER_UID
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry
from contentapi.schema.type_names import type_name
from contentapi.upload.service import UploadService

__all__ = ["SchemaOptions", "build_schema"]


@dataclass(frozen=True, slots=True)
class SchemaOptions:
    shadow_crud: bool = True
    locales: tuple[str, ...] = ("en",)
    amount_limit: int = 100
    #: what extensions switched off (``app.graphql.shadow_crud(uid)``)
    switches: ShadowCrud = field(default_factory=ShadowCrud)
    #: the ``Subscription`` root type (``CONTENTAPI_GRAPHQL_SUBSCRIPTIONS``: subscriptions.py)
    subscriptions: bool = False


def _root(
    response: Any, *, args: dict[str, GraphQLArgument], resolve: Any, action: str
) -> GraphQLField:
    """A Shadow CRUD root field, tagged with its resolvers and the action it checks (so that
    ``resolvers_config`` can replace that check)."""
    return GraphQLField(
        response,
        args=args,
        resolve=resolve,
        extensions={KEY: GeneratedRoot(resolve.__self__, action)},
    )


class _Builder:
    def __init__(
        self,
        registry: Registry,
        options: SchemaOptions,
        upload: UploadService,
    ) -> None:
        self.registry = registry
        self.options = options
        self.switches = options.switches
        self.inputs = InputTypes(registry, options.switches)
        self.types = OutputTypes(registry, self.inputs)
        self.locale_code = i18n_locale_code()
        self.users = UsersPermissionsFields(registry, self.types)
        self.upload = UploadFields(registry, self.types, upload)
        self.i18n = I18nFields(self.inputs, options.amount_limit)
        self.types.morph_extras.append(self.i18n.locale)

    def _api_types(self) -> list[ContentType]:
        return [
            ct
            for uid, ct in self.registry.content_types.items()
            if uid.startswith("api::") and self.switches.enabled(uid)
        ]

    def _generated(
        self,
        content_type: ContentType,
        action: str,
        field_name: str,
        response: Any,
        args: dict[str, GraphQLArgument],
        resolve: Any,
    ) -> dict[str, GraphQLField]:
        """The root field of one action (``_root``), or nothing when an extension switched the
        action off: every Shadow CRUD root field is made this way."""
        if not self.switches.of(content_type.uid).generates(action):
            return {}
        return {field_name: _root(response, args=args, resolve=resolve, action=action)}

    def _locale(self, content_type: ContentType) -> dict[str, GraphQLArgument]:
        return {"locale": GraphQLArgument(self.locale_code)} if content_type.localized else {}

    # ------------------------------------------------------------ queries

    def _queries_of(self, content_type: ContentType) -> dict[str, GraphQLField]:
        actions = UPLOAD_ACTIONS if content_type.uid == FILE_UID else None
        resolvers = ContentTypeResolvers(content_type, actions)
        single, plural = naming.query_names(content_type)
        response = self.types.entity_response(content_type)
        if content_type.is_single:
            arguments: dict[str, GraphQLArgument] = {}
            if content_type.draft_and_publish:
                arguments["publicationState"] = GraphQLArgument(
                    PUBLICATION_STATE, default_value="live"
                )
            arguments.update(self._locale(content_type))
            return self._generated(
                content_type, "find", single, response, arguments, resolvers.find_single
            )
        one_arguments = {"id": GraphQLArgument(GraphQLID), **self._locale(content_type)}
        list_type = self.types.collection(content_type)
        many_arguments = {
            **list_arguments(self.inputs.filters(content_type), content_type.draft_and_publish),
            **self._locale(content_type),
        }
        return {
            **self._generated(
                content_type, "findOne", single, response, one_arguments, resolvers.find_one
            ),
            **self._generated(
                content_type, "find", plural, list_type, many_arguments, resolvers.find
            ),
        }

    def query(self) -> GraphQLObjectType:
        fields: dict[str, GraphQLField] = {}
        if self.options.shadow_crud:
            for uid in (FILE_UID, FOLDER_UID, ROLE_UID, USER_UID):
                if self.switches.enabled(uid):
                    fields.update(self._queries_of(self.registry.content_types[uid]))
            fields.update(self.i18n.queries())
            for content_type in self._api_types():
                fields.update(self._queries_of(content_type))
        fields.update(self.users.queries())
        return GraphQLObjectType("Query", fields)

    # ------------------------------------------------------------ mutations

    def _mutations_of(self, content_type: ContentType) -> dict[str, GraphQLField]:
        actions = UPLOAD_ACTIONS if content_type.uid == FILE_UID else None
        resolvers = ContentTypeResolvers(content_type, actions)
        name = type_name(content_type)
        response = self.types.entity_response(content_type)
        data = GraphQLArgument(GraphQLNonNull(self.inputs.input(content_type)))
        required_id = GraphQLArgument(GraphQLNonNull(GraphQLID))
        locale = self._locale(content_type)

        def generated(
            action: str, args: dict[str, GraphQLArgument], resolve: Any
        ) -> dict[str, GraphQLField]:
            """``<action>X`` (``createX``, ``updateX``, ``deleteX``), answering the entry."""
            return self._generated(content_type, action, f"{action}{name}", response, args, resolve)

        if content_type.is_single:
            return {
                **generated("update", {"data": data, **locale}, resolvers.update_single),
                **generated("delete", dict(locale), resolvers.delete_single),
            }
        return {
            **generated("create", {"data": data, **locale}, resolvers.create),
            **generated("update", {"id": required_id, "data": data, **locale}, resolvers.update),
            **generated("delete", {"id": required_id, **locale}, resolvers.delete),
        }

    def _localization_mutations(self) -> dict[str, GraphQLField]:
        fields: dict[str, GraphQLField] = {}
        for content_type in self._api_types():
            if not content_type.localized:
                continue  # single types too (their ``id`` is ignored, as Strapi ignores it)
            if not self.switches.of(content_type.uid).generates("createLocalization"):
                continue
            resolvers = ContentTypeResolvers(content_type)
            fields[f"create{type_name(content_type)}Localization"] = _root(
                self.types.entity_response(content_type),
                args={
                    "id": GraphQLArgument(GraphQLID),
                    "data": GraphQLArgument(self.inputs.input(content_type)),
                    "locale": GraphQLArgument(self.locale_code),
                },
                resolve=resolvers.create_localization,
                action="createLocalization",
            )
        return fields

    def mutation(self) -> GraphQLObjectType:
        fields: dict[str, GraphQLField] = {}
        if self.options.shadow_crud:
            for uid in (FILE_UID, FOLDER_UID):
                if self.switches.enabled(uid):
                    fields.update(self._mutations_of(self.registry.content_types[uid]))
            for content_type in self._api_types():
                fields.update(self._mutations_of(content_type))
        fields.update(self.upload.mutations())
        fields.update(self.users.mutations())
        if self.options.shadow_crud:
            fields.update(self._localization_mutations())
        return GraphQLObjectType("Mutation", fields)


def build_schema(
    registry: Registry,
    options: SchemaOptions,
    upload: UploadService,
) -> GraphQLSchema:
    """The whole schema; raises graphql-core's ``TypeError`` on an inconsistent model set."""
    builder = _Builder(registry, options, upload)
    subscription = None
    if options.subscriptions and options.shadow_crud:
        from contentapi.graphql.subscriptions import subscription_type

        subscription = subscription_type(builder)
    return GraphQLSchema(
        query=builder.query(), mutation=builder.mutation(), subscription=subscription
    )
