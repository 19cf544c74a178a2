"""A Shadow CRUD selection set → what to read (fields and ``Populate``) and how to shape it.

The planner walks the selection once with graphql-core's own field collection (fragments,
aliases, ``@skip``/``@include``), reading each field's tag (``roles.py``):

- scalars become the entry's ``fields``;
- relations, media, components, dynamic zones and localizations become ``Populate`` nodes —
  with their arguments (``filters``, ``sort``, ``pagination``, ``publicationState``) turned
  into the same AST the REST parser builds, through the same field-visibility rules;
- every field also yields its part of the ``Shaper`` that writes the response.

An attribute selected under several aliases is read once per distinct (arguments,
sub-selection): equal readings share one populate key, a different one gets ``name#n``
(``ast.variant_key``) and its shaper reads that key. The result reads with one statement per
populated reading per level, whatever the number of rows: no per-parent resolvers, no
DataLoader. Nested arguments the parser refuses null only their field, once per parent row.
It composes ``combinators.py``'s shapers into ``selection.py``'s ``Selection``; a list's window
is ``query/pagination.py``'s (GraphQL's rules beside REST's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    FieldNode,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLUnionType,
    get_named_type,
)

from contentapi.errors import ApplicationError
from contentapi.graphql.combinators import (
    as_entity,
    entity_list,
    entries_of_page,
    failing_field,
    forbidden_row,
    items_by_type,
    optional_entity,
    page_meta_shaper,
    required_value,
    sliced_items,
    sliced_wrapper,
    value_of,
)
from contentapi.graphql.executor import collect_sub_fields, get_argument_values
from contentapi.graphql.roles import AttributeField, custom_of, field_of, role_of
from contentapi.graphql.selection import PlanContext, Selection
from contentapi.graphql.shape import (
    Shaper,
    constant,
    deferred_shaper,
    nullable,
    object_shaper,
    scalar_renderer,
    scalar_shaper,
)
from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    Filter,
    MediaPopulate,
    MorphPopulate,
    PopulateNode,
    RelationPopulate,
    SortKey,
)
from contentapi.query.pagination import Window, graphql_window
from contentapi.query.parse.spelling import GRAPHQL
from contentapi.schema.model import ContentType, Model, ScalarAttribute
from contentapi.schema.registry import Registry

__all__ = ["Planner"]


class Planner:
    """Compiles selections against one schema and registry."""

    def __init__(self, registry: Registry, amount_limit: int) -> None:
        self.registry = registry
        self.amount_limit = amount_limit

    # ------------------------------------------------------------ helpers

    @staticmethod
    def _subfields(
        ctx: PlanContext, parent: GraphQLObjectType, nodes: list[FieldNode]
    ) -> dict[str, list[FieldNode]]:
        return collect_sub_fields(ctx.schema, ctx.fragments, ctx.variables, parent, nodes)

    def _fields(
        self,
        ctx: PlanContext,
        parent: GraphQLObjectType,
        nodes: list[FieldNode],
        shaper_of: Callable[[str, list[FieldNode]], Shaper | None],
    ) -> Shaper:
        """The shaper of one object of type ``parent``: every object answers ``__typename``
        with its type's name, each other selected key ``shaper_of(field name, its nodes)``
        (``None``: the key is left out)."""
        out: list[tuple[str, Shaper]] = []
        for key, sub in self._subfields(ctx, parent, nodes).items():
            name = sub[0].name.value
            shaper = constant(parent.name) if name == "__typename" else shaper_of(name, sub)
            if shaper is not None:
                out.append((key, shaper))
        return object_shaper(out)

    @staticmethod
    def _object_type(parent: GraphQLObjectType, name: str) -> GraphQLObjectType:
        """The object type of ``parent``'s field ``name``, lists and non-null taken off."""
        named = get_named_type(parent.fields[name].type)
        assert isinstance(named, GraphQLObjectType)
        return named

    def filters(self, ctx: PlanContext, model: Model, value: Any) -> Filter | None:
        """A ``…FiltersInput`` read as it is by REST's one filter parser (GraphQL spelling)."""
        if not value:
            return None
        return ctx.parser.filters(model, value, spelling=GRAPHQL)

    def sort(self, ctx: PlanContext, model: Model, value: Any) -> tuple[SortKey, ...]:
        if not value:
            return ()
        return ctx.parser.sort(model, [item for item in value if item is not None])

    def window(self, pagination: Any) -> Window:
        return graphql_window(pagination, self.amount_limit)

    # ------------------------------------------------------------ roots

    def collection(
        self, ctx: PlanContext, model: Model, parent: GraphQLObjectType, nodes: list[FieldNode]
    ) -> Selection:
        """``XEntityResponseCollection``: ``data`` entities and ``meta.pagination``."""
        result = Selection()

        def shaper_of(name: str, sub: list[FieldNode]) -> Shaper | None:
            if name == "data":
                entity_type = self._object_type(parent, "data")
                return entries_of_page(self._entity(ctx, model, entity_type, sub, result))
            if name == "meta":
                result.counts = True
                return self._meta(ctx, parent, sub)
            return None

        result.shaper = self._fields(ctx, parent, nodes, shaper_of)
        return result

    def _meta(self, ctx: PlanContext, parent: GraphQLObjectType, nodes: list[FieldNode]) -> Shaper:
        meta_type = self._object_type(parent, "meta")

        def pagination(name: str, sub: list[FieldNode]) -> Shaper:
            pagination_type = self._object_type(meta_type, "pagination")
            selected = self._subfields(ctx, pagination_type, sub).items()
            return page_meta_shaper(tuple((key, inner[0].name.value) for key, inner in selected))

        return self._fields(ctx, meta_type, nodes, pagination)

    def entity_response(
        self, ctx: PlanContext, model: Model, parent: GraphQLObjectType, nodes: list[FieldNode]
    ) -> Selection:
        """``XEntityResponse``: ``{data: entity | null}`` for one entry (or ``None``)."""
        result = Selection()
        result.shaper = self._wrapper(ctx, model, parent, nodes, result, many=False)
        return result

    # ------------------------------------------------------------ entities
    #
    # Each method below returns the shaper of its part and adds what the part reads to
    # ``reads``: the one ``Selection`` of the entries it shapes. Every alias of a level adds to
    # the same one, so a populate key is chosen once per level (``Selection.add_populate``).

    def _wrapper(
        self,
        ctx: PlanContext,
        model: Model,
        parent: GraphQLObjectType,
        nodes: list[FieldNode],
        reads: Selection,
        *,
        many: bool,
    ) -> Shaper:
        def data(name: str, sub: list[FieldNode]) -> Shaper:
            entity = self._entity(ctx, model, self._object_type(parent, "data"), sub, reads)
            return entity_list(entity) if many else optional_entity(entity)

        return self._fields(ctx, parent, nodes, data)

    def _entity(
        self,
        ctx: PlanContext,
        model: Model,
        parent: GraphQLObjectType,
        nodes: list[FieldNode],
        reads: Selection,
    ) -> Shaper:
        """``XEntity``: ``id`` and ``attributes``."""

        def shaper_of(name: str, sub: list[FieldNode]) -> Shaper:
            if name == "id":
                return lambda entry, errors: str(entry["id"])
            if name == "attributes" and custom_of(parent.fields[name]) is None:
                attributes_type = self._object_type(parent, "attributes")
                return nullable(self._attributes(ctx, model, attributes_type, sub, reads))
            # a field an extension added to `XEntity` (or resolves itself)
            self._defer(ctx, model, reads)
            return deferred_shaper(parent.fields[name], parent, sub, None, as_entity)

        return self._fields(ctx, parent, nodes, shaper_of)

    @staticmethod
    def _defer(ctx: PlanContext, model: Model, into: Selection) -> None:
        """A field resolved after the compiled pass (an extension's, or one it resolves): the
        plan is deferred, and every readable scalar of ``model`` read — what a custom
        resolver's parent holds."""
        ctx.deferred = True
        for attribute in model.attributes.values():
            readable = isinstance(attribute, ScalarAttribute) and not attribute.private
            if readable and attribute.name not in into.fields:
                into.fields.append(attribute.name)

    def _attributes(
        self,
        ctx: PlanContext,
        model: Model,
        parent: GraphQLObjectType,
        nodes: list[FieldNode],
        reads: Selection,
    ) -> Shaper:
        """``X`` or ``ComponentX``: scalars, relations, media, components, dynamic zones."""

        def shaper_of(name: str, sub: list[FieldNode]) -> Shaper:
            definition = parent.fields[name]
            tag = field_of(definition)
            custom = custom_of(definition)
            if tag is not None and custom is None:
                return self._attribute(ctx, model, parent, name, tag, sub, reads)
            # an extension's field, or a generated one it resolves or wraps: resolved after
            # the compiled pass, with the whole entry as its parent
            self._defer(ctx, model, reads)
            computed = None
            if tag is not None and custom is not None and custom.resolver is None:
                computed = self._attribute(ctx, model, parent, name, tag, sub, reads)
            return deferred_shaper(definition, parent, sub, computed)

        return self._fields(ctx, parent, nodes, shaper_of)

    def _attribute(
        self,
        ctx: PlanContext,
        model: Model,
        parent: GraphQLObjectType,
        name: str,
        tag: AttributeField,
        nodes: list[FieldNode],
        reads: Selection,
    ) -> Shaper:
        """One generated attribute field: what it reads (into ``reads``) and its shaper."""
        non_null = isinstance(parent.fields[name].type, GraphQLNonNull)
        if tag.kind in ("scalar", "id"):
            if tag.kind == "scalar" and name not in reads.fields:
                reads.fields.append(name)
            render = scalar_renderer("id" if tag.kind == "id" else tag.value_type)
            return scalar_shaper(name, render, non_null, parent.name, name)
        node, shaper_at = self._populated(ctx, model, parent, name, tag.kind, nodes)
        shaper = shaper_at(name if node is None else reads.add_populate(name, node))
        if non_null:
            shaper = required_value(shaper, parent.name, name)
        return shaper

    def _populated(
        self,
        ctx: PlanContext,
        model: Model,
        parent: GraphQLObjectType,
        name: str,
        kind: str,
        nodes: list[FieldNode],
    ) -> tuple[PopulateNode | None, Callable[[str], Shaper]]:
        """What a relation, media, component or zone field reads, and its shaper given the
        populate key its values will be found under."""
        definition = parent.fields[name]
        tag = field_of(definition)
        assert tag is not None
        arguments = get_argument_values(definition, nodes[0], ctx.variables)
        inner = get_named_type(definition.type)
        if kind in ("relation", "localizations"):
            target = self.registry.content_types[tag.target]
            if kind == "relation" and not ctx.may_find(target.uid):
                return None, lambda key: forbidden_row
            assert isinstance(inner, GraphQLObjectType)
            if tag.to_many:
                try:
                    filters, sort, bounds = self._list_arguments(ctx, target, arguments)
                except ApplicationError as error:
                    return None, failing_field(error)
            reads = Selection()
            wrapper = self._wrapper(ctx, target, inner, nodes, reads, many=tag.to_many)
            populate = RelationPopulate(
                fields=tuple(reads.fields),
                populate=reads.populate,
                publication_state=arguments.get("publicationState", "live"),
            )
            if tag.to_many:
                populate = RelationPopulate(
                    fields=populate.fields,
                    populate=populate.populate,
                    publication_state=populate.publication_state,
                    filters=filters,
                    sort=sort,
                    limit=bounds.limit,
                    offset=bounds.start,
                )
            return populate, lambda key: nullable(value_of(key, wrapper))
        if kind == "media":
            files = self.registry.content_types[tag.target]
            assert isinstance(inner, GraphQLObjectType)
            reads = Selection()
            wrapper = self._wrapper(ctx, files, inner, nodes, reads, many=tag.to_many)
            # the files' own `related` (a morph populate, as under `uploadFiles`) is read
            # once per level for the files of every parent
            if not tag.to_many:
                return MediaPopulate(tuple(reads.fields), populate=reads.populate), (
                    lambda key: nullable(value_of(key, wrapper))
                )
            # Strapi's association resolver: the files filtered and sorted (in SQL, per
            # level), then each parent's page cut here (10 per parent by default)
            try:
                filters, sort, bounds = self._list_arguments(ctx, files, arguments)
            except ApplicationError as error:
                return None, failing_field(error)
            media = MediaPopulate(
                tuple(reads.fields), filters=filters, sort=sort, populate=reads.populate
            )
            return media, lambda key: nullable(sliced_wrapper(key, bounds, wrapper))
        if kind == "component":
            component = self.registry.components[tag.target]
            assert isinstance(inner, GraphQLObjectType)
            reads = Selection()
            item = self._attributes(ctx, component, inner, nodes, reads)
            if not tag.to_many:
                node = ComponentPopulate(tuple(reads.fields), reads.populate)
                return node, lambda key: nullable(
                    value_of(key, lambda v, errors: None if v is None else item(v, errors))
                )
            # Strapi's component resolver: the items filtered and sorted (in SQL, per level),
            # then each parent's page cut here (10 per parent by default)
            try:
                filters, sort, bounds = self._list_arguments(ctx, component, arguments)
            except ApplicationError as error:
                return None, failing_field(error)
            node = ComponentPopulate(tuple(reads.fields), reads.populate, filters, sort)
            return node, lambda key: nullable(sliced_items(key, bounds, item))
        if kind == "morph":
            on, shapers = self._members(ctx, inner, nodes)
            return MorphPopulate(on=on), lambda key: nullable(items_by_type(key, shapers, "__type"))
        # a dynamic zone: every component populated; each item shaped by its own type
        on, shapers = self._members(ctx, inner, nodes)
        return DynamicZonePopulate(on=on), lambda key: nullable(
            items_by_type(key, shapers, "__component")
        )

    def _list_arguments(
        self, ctx: PlanContext, model: Model, arguments: Mapping[str, Any]
    ) -> tuple[Filter | None, tuple[SortKey, ...], Window]:
        """A nested list's ``pagination``, ``filters`` and ``sort`` (checked in that order,
        as Strapi's resolver transforms, then validates them)."""
        bounds = self.window(arguments.get("pagination"))
        filters = self.filters(ctx, model, arguments.get("filters"))
        return filters, self.sort(ctx, model, arguments.get("sort")), bounds

    def _members(
        self, ctx: PlanContext, union: Any, nodes: list[FieldNode]
    ) -> tuple[dict[str, ComponentPopulate], dict[str, Shaper]]:
        """Per member model of a union (a dynamic zone's components; ``UploadFile.related``,
        where a file is attached): what to read of it and its shaper. Members without a
        model (a zone's ``Error``, ``I18NLocale`` among a file's related) are never read, nor
        are entries of types the caller may not ``find`` (left out, as REST populate leaves
        them out)."""
        assert isinstance(union, GraphQLUnionType)
        on: dict[str, ComponentPopulate] = {}
        shapers: dict[str, Shaper] = {}
        for member in union.types:
            role = role_of(member)
            if role is None or role.model is None:
                continue
            related = role.model
            if isinstance(related, ContentType) and not ctx.may_find(related.uid):
                continue
            reads = Selection()
            shapers[related.uid] = self._attributes(ctx, related, member, nodes, reads)
            on[related.uid] = ComponentPopulate(tuple(reads.fields), reads.populate)
        return on, shapers
