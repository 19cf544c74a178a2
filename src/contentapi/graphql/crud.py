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
from typing import Any, TypeVar

from graphql import GraphQLObjectType, GraphQLResolveInfo, get_named_type

from contentapi.errors import NotFoundError
from contentapi.graphql.context import GraphQLContext, Precompleted
from contentapi.graphql.deferred import complete_deferred
from contentapi.graphql.selection import Page, Selection
from contentapi.graphql.wrap import NO_AUTH_CONFIG, check_auth
from contentapi.query.ast import OffsetPagination, ReadQuery
from contentapi.query.pagination import Window
from contentapi.schema.model import ContentType
from contentapi.values import entry_id_of

__all__ = ["ContentTypeResolvers", "entry_id", "input_data"]

Resolver = Callable[..., Awaitable[Any]]
_Plan = TypeVar("_Plan")


def entry_id(raw: Any) -> int | None:
    """A GraphQL ``ID`` naming an entry, or ``None`` when it cannot name one."""
    return entry_id_of(str(raw))


def input_data(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A coerced ``XInput`` → the REST body's ``data`` object (same validation)."""
    return dict(value or {})


def _cached_plan(
    ctx: GraphQLContext, key: tuple[Any, ...] | None, node: Any, build: Callable[[], _Plan]
) -> _Plan:
    """The plan stored under ``key`` for this field node, else ``build()``'s, stored when
    there is a key (``None``: the plan may not be reused, so it is built every time)."""
    if key is not None:
        found = ctx.plans.get(key, node)
        if found is not None:
            return found
    plan = build()
    if key is not None:
        ctx.plans.put(key, node, plan)
    return plan


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
        return _cached_plan(ctx, key, node, lambda: self._new_selection(info, kind))

    def _new_selection(self, info: GraphQLResolveInfo, kind: str) -> Selection:
        ctx: GraphQLContext = info.context
        parent = get_named_type(info.return_type)
        assert isinstance(parent, GraphQLObjectType)
        plan_context = ctx.plan_context(info)
        nodes = list(info.field_nodes)
        if kind == "collection":
            selection = ctx.planner.collection(plan_context, self.content_type, parent, nodes)
        else:
            selection = ctx.planner.entity_response(plan_context, self.content_type, parent, nodes)
        selection.deferred = plan_context.deferred
        return selection

    def _list_plan(self, info: GraphQLResolveInfo, args: Mapping[str, Any]) -> _ListPlan:
        ctx: GraphQLContext = info.context
        key = ctx.plan_key(info, "list") if self.cache_list_plans else None
        node = info.field_nodes[0]
        return _cached_plan(ctx, key, node, lambda: self._new_list_plan(info, args))

    def _new_list_plan(self, info: GraphQLResolveInfo, args: Mapping[str, Any]) -> _ListPlan:
        ctx: GraphQLContext = info.context
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
        return _ListPlan(selection, query, bounds)

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

    def _begin_mutation(
        self, info: GraphQLResolveInfo, action: str, locale: str | None = None
    ) -> tuple[Selection, ReadQuery]:
        """What every mutation starts with: the caller may do ``action``; then the field's
        compiled selection and the query that reads the changed entry back (drafts too)."""
        self._authorize(info.context, action)
        selection = self._selection(info, "response")
        return selection, self._entry_query(selection, publication_state="preview", locale=locale)

    async def create(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        ctx: GraphQLContext = info.context
        selection, query = self._begin_mutation(info, "create")
        data = self._with_locale(input_data(args.get("data")), args.get("locale"))
        # GraphQL creates drafts unless publishedAt is given (REST POST publishes).
        entry = await ctx.services.entries.create(self.uid, data, query, publish=False)
        return await self._respond(info, selection, entry)

    async def _change_by_id(
        self,
        info: GraphQLResolveInfo,
        action: str,
        args: Mapping[str, Any],
        change: Callable[[int, ReadQuery], Awaitable[Any]],
    ) -> Precompleted:
        """``updateX``/``deleteX``: the change on the entry ``id`` names; ``{data: null}``
        (as Strapi answers) when the id names no entry or the entry is not there."""
        selection, query = self._begin_mutation(info, action)
        wanted = entry_id(args.get("id"))
        entry = None
        if wanted is not None:
            try:
                entry = await change(wanted, query)
            except NotFoundError:
                entry = None
        return await self._respond(info, selection, entry)

    async def update(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        entries = info.context.services.entries
        return await self._change_by_id(
            info,
            "update",
            args,
            lambda wanted, query: entries.update(
                self.uid, wanted, input_data(args.get("data")), query
            ),
        )

    async def delete(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Precompleted:
        entries = info.context.services.entries
        return await self._change_by_id(
            info, "delete", args, lambda wanted, query: entries.delete(self.uid, wanted, query)
        )

    async def update_single(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        locale = args.get("locale")
        selection, query = self._begin_mutation(info, "update", locale)
        data = input_data(args.get("data"))
        entry = await ctx.services.entries.upsert_single(self.uid, data, locale, query)
        return await self._respond(info, selection, entry)

    async def delete_single(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        locale = args.get("locale")
        selection, query = self._begin_mutation(info, "delete", locale)
        try:
            entry = await ctx.services.entries.delete_single(self.uid, locale, query)
        except NotFoundError:
            entry = None
        return await self._respond(info, selection, entry)

    async def create_localization(
        self, _parent: Any, info: GraphQLResolveInfo, **args: Any
    ) -> Precompleted:
        ctx: GraphQLContext = info.context
        selection, query = self._begin_mutation(info, "createLocalization")
        wanted: int | None = None  # a single type's: its entry, whatever the id says
        if not self.content_type.is_single:
            wanted = entry_id(args.get("id"))
            if wanted is None:
                raise NotFoundError()
        body = input_data(args.get("data"))
        if args.get("locale") is not None:
            body["locale"] = args["locale"]
        entry = await ctx.services.entries.create_localization(self.uid, wanted, body, query)
        return await self._respond(info, selection, entry)
