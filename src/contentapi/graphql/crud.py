"""Shadow CRUD resolvers: ``x``, ``xs``, ``createX``, ``updateX``, ``deleteX``,
``createXLocalization`` — each one call to the entry service, answered whole by the shaper.

A root resolver checks the caller's permission once (``find``, ``findOne``, ``create`` …),
takes its compiled plan (cached per document, variables and caller), runs one ``ReadQuery``
through the same ``EntryService`` and ``Populator`` as REST, and returns the shaped value as
``Precompleted``. GraphQL's own rules are kept: page size 10 by default, ``x(id)`` also finds
drafts, ``createX`` makes a draft unless ``publishedAt`` is given, a missing entry is
``{data: null}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLObjectType, GraphQLResolveInfo, get_named_type

from contentapi.errors import NotFoundError
from contentapi.graphql.context import GraphQLContext, Precompleted
from contentapi.graphql.deferred import complete_deferred
from contentapi.graphql.plan import Page, Selection, Window
from contentapi.graphql.wrap import NO_AUTH_CONFIG, check_auth
from contentapi.query.ast import OffsetPagination, ReadQuery
from contentapi.schema.model import ContentType
from contentapi.values import entry_id_of

__all__ = ["ContentTypeResolvers", "entry_id", "input_data"]

Resolver = Callable[..., Awaitable[Any]]


def entry_id(raw: Any) -> int | None:
    """A GraphQL ``ID`` naming an entry, or ``None`` when it cannot name one."""
    return entry_id_of(str(raw))


def input_data(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A coerced ``XInput`` → the REST body's ``data`` object (same validation)."""
    return dict(value or {})


@dataclass(slots=True)
class _ListPlan:
    selection: Selection
    query: ReadQuery
    window: Window


class ContentTypeResolvers:
    """The root resolvers of one content type."""

    def __init__(self, content_type: ContentType, actions: Mapping[str, str] | None = None) -> None:
        self.content_type = content_type
        self.uid = content_type.uid
        #: actions a plugin checks instead of ``<uid>.<action>`` (upload's ``content-api.*``)
        self.actions = dict(actions or {})
        #: ``resolvers_config`` ``auth`` replacing an action's own check (``False`` or a scope)
        self.auth: dict[str, Any] = {}
        #: whether a list plan (with its filters) may be cached per field node and variables:
        #: not when an extension's resolver computes the arguments (``for_extensions``)
        self.cache_list_plans = True

    @classmethod
    def for_extensions(cls, content_type: ContentType) -> ContentTypeResolvers:
        """The generated reads for an extension's own resolvers (``app.graphql.find(uid)``):
        no permission check of their own (the field's ``resolvers_config`` decides) and
        arguments that may differ for the same field node."""
        resolvers = cls(content_type)
        resolvers.auth = {"find": False, "findOne": False}
        resolvers.cache_list_plans = False
        return resolvers

    # ------------------------------------------------------------ planning

    def _selection(self, info: GraphQLResolveInfo, kind: str) -> Selection:
        """The compiled selection of this root field (``collection`` or ``response``)."""
        ctx: GraphQLContext = info.context
        key = ctx.plan_key(info, kind)
        node = info.field_nodes[0]
        if key is not None:
            found = ctx.plans.get(key, node)
            if found is not None:
                return found
        parent = get_named_type(info.return_type)
        assert isinstance(parent, GraphQLObjectType)
        plan_context = ctx.plan_context(info)
        nodes = list(info.field_nodes)
        if kind == "collection":
            selection = ctx.planner.collection(plan_context, self.content_type, parent, nodes)
        else:
            selection = ctx.planner.entity_response(plan_context, self.content_type, parent, nodes)
        selection.deferred = plan_context.deferred
        if key is not None:
            ctx.plans.put(key, node, selection)
        return selection

    def _list_plan(self, info: GraphQLResolveInfo, args: Mapping[str, Any]) -> _ListPlan:
        ctx: GraphQLContext = info.context
        key = ctx.plan_key(info, "list") if self.cache_list_plans else None
        node = info.field_nodes[0]
        if key is not None:
            found = ctx.plans.get(key, node)
            if found is not None:
                return found
        selection = self._selection(info, "collection")
        planner, model = ctx.planner, self.content_type
        bounds = planner.window(args.get("pagination"))
        plan_context = ctx.plan_context(info)
        query = ReadQuery(
            pagination=OffsetPagination(bounds.start, bounds.limit, selection.counts),
            publication_state=args.get("publicationState") or "live",
            locale=args.get("locale"),
            filters=planner.filters(plan_context, model, args.get("filters")),
            sort=planner.sort(plan_context, model, args.get("sort")),
            fields=tuple(selection.fields),
            populate=selection.populate,
        )
        plan = _ListPlan(selection, query, bounds)
        if key is not None:
            ctx.plans.put(key, node, plan)
        return plan

    def _entry_query(self, selection: Selection, **extra: Any) -> ReadQuery:
        return ReadQuery(fields=tuple(selection.fields), populate=selection.populate, **extra)

    @staticmethod
    async def _respond(info: GraphQLResolveInfo, selection: Selection, value: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        shaped = selection.shaper(value, ctx.shape_errors)
        if selection.deferred:  # fields an extension resolves, after the compiled pass
            shaped = await complete_deferred(info, shaped)
        return Precompleted(shaped)

    def scope(self, name: str) -> str:
        """The permission action ``name`` needs (``api::article.article.find``)."""
        return self.actions.get(name) or f"{self.uid}.{name}"

    def _authorize(self, ctx: GraphQLContext, action: str) -> None:
        rule = self.auth.get(action, NO_AUTH_CONFIG)
        if rule is NO_AUTH_CONFIG:
            ctx.authorize(self.scope(action))
        else:
            check_auth(ctx.actor, rule)

    def _with_locale(self, data: dict[str, Any], locale: Any) -> dict[str, Any]:
        if locale is not None and self.content_type.localized and locale != "all":
            data.setdefault("locale", locale)
        return data

    # ------------------------------------------------------------ queries

    async def find(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "find")
        plan = self._list_plan(info, args)
        page = await ctx.services.entries.find_many(self.uid, plan.query)
        return await self._respond(
            info, plan.selection, Page(page.entries, page.total, plan.window)
        )

    async def find_one(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "findOne")
        selection = self._selection(info, "response")
        wanted = entry_id(args.get("id"))
        entry = None
        if wanted is not None:  # Strapi's findOne also answers drafts
            query = self._entry_query(selection, publication_state="preview")
            entry = await ctx.services.entries.find_one(self.uid, wanted, query)
        return await self._respond(info, selection, entry)

    async def find_single(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "find")
        selection = self._selection(info, "response")
        query = self._entry_query(
            selection,
            publication_state=args.get("publicationState") or "live",
            locale=args.get("locale"),
        )
        entry = await ctx.services.entries.find_single(self.uid, query)
        return await self._respond(info, selection, entry)

    # ------------------------------------------------------------ mutations

    async def create(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "create")
        selection = self._selection(info, "response")
        data = self._with_locale(input_data(args.get("data")), args.get("locale"))
        query = self._entry_query(selection, publication_state="preview")
        # GraphQL creates drafts unless publishedAt is given (REST POST publishes).
        entry = await ctx.services.entries.create(self.uid, data, query, publish=False)
        return await self._respond(info, selection, entry)

    async def update(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "update")
        selection = self._selection(info, "response")
        query = self._entry_query(selection, publication_state="preview")
        wanted = entry_id(args.get("id"))
        entry = None
        if wanted is not None:
            data = input_data(args.get("data"))
            try:
                entry = await ctx.services.entries.update(self.uid, wanted, data, query)
            except NotFoundError:
                entry = None  # Strapi answers {data: null}
        return await self._respond(info, selection, entry)

    async def delete(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "delete")
        selection = self._selection(info, "response")
        query = self._entry_query(selection, publication_state="preview")
        wanted = entry_id(args.get("id"))
        entry = None
        if wanted is not None:
            try:
                entry = await ctx.services.entries.delete(self.uid, wanted, query)
            except NotFoundError:
                entry = None
        return await self._respond(info, selection, entry)

    async def update_single(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "update")
        selection = self._selection(info, "response")
        locale = args.get("locale")
        query = self._entry_query(selection, publication_state="preview", locale=locale)
        data = input_data(args.get("data"))
        entry = await ctx.services.entries.upsert_single(self.uid, data, locale, query)
        return await self._respond(info, selection, entry)

    async def delete_single(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "delete")
        selection = self._selection(info, "response")
        locale = args.get("locale")
        query = self._entry_query(selection, publication_state="preview", locale=locale)
        try:
            entry = await ctx.services.entries.delete_single(self.uid, locale, query)
        except NotFoundError:
            entry = None
        return await self._respond(info, selection, entry)

    async def create_localization(
        self, _parent: Any, info: GraphQLResolveInfo, **args: Any
    ) -> Precompleted:
        ctx: GraphQLContext = info.context
        self._authorize(ctx, "createLocalization")
        selection = self._selection(info, "response")
        wanted: int | None = None  # a single type's: its entry, whatever the id says
        if not self.content_type.is_single:
            wanted = entry_id(args.get("id"))
            if wanted is None:
                raise NotFoundError()
        body = input_data(args.get("data"))
        if args.get("locale") is not None:
            body["locale"] = args["locale"]
        query = self._entry_query(selection, publication_state="preview")
        entry = await ctx.services.entries.create_localization(self.uid, wanted, body, query)
        return await self._respond(info, selection, entry)
