"""REST handlers of one content type: request → permission → query → entry service → envelope.

One handler per path dispatches on the method, so that a wrong method gets a 405 whose
``Allow`` header lists every method of that path (as Strapi's router does); ``HEAD`` is
answered as ``GET``. Reads carry validators and ``Cache-Control`` (``http/conditional.py``),
writes ``Cache-Control: no-store``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response

from contentapi.auth.actor import Actor, may
from contentapi.entries.lifecycles import Action
from contentapi.errors import NotFoundError
from contentapi.http.body import read_data, read_json_object
from contentapi.http.conditional import CachePolicy, cacheable_response, no_store, revalidated
from contentapi.http.params import parse_entry_id, query_params
from contentapi.http.response_cache import with_surrogate_keys
from contentapi.http.responses import OrjsonResponse
from contentapi.http.services import ContentServices
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.query.parse import LOCALIZATIONS, QueryParser
from contentapi.rest.customize import ActionRules, RestContext
from contentapi.rest.envelope import list_envelope, single_envelope
from contentapi.rest.parsed_queries import ParsedQueries, RouteKind
from contentapi.schema.model import ContentType

__all__ = ["Resource"]

#: the actions whose answers are reads: validators and ``Cache-Control``; the others are writes
_READS = frozenset({"find", "findOne"})
#: the lifecycle hooks of those reads: an extension's hook may answer anything, not kept
_READ_HOOKS: tuple[Action, ...] = ("find_many", "find_one")


class Resource:
    """The routes of one content type, bound to its uid.

    Each action is a core function ``(request, actor, ...)`` answering the response's body;
    ``_guarded`` runs it behind the caller's permission — or, for an action an extension
    configured (``rest/customize.py``), behind its auth, policies, middlewares and controller.
    """

    def __init__(
        self,
        content_type: ContentType,
        services: ContentServices,
        rules: Mapping[str, ActionRules] | None = None,
    ) -> None:
        self.services = services
        self.content_type = content_type
        self.uid = content_type.uid
        #: this type's parsed query strings (``rest/parsed_queries.py``)
        self.parsed = ParsedQueries()
        #: the actions an extension configured; empty for most types
        self.rules: Mapping[str, ActionRules] = rules or {}
        #: ``Cache-Control`` of its reads: the configured one, then the model's own
        self.cache = CachePolicy.of(services.cache.overridden(content_type.cache))

    def _action(self, name: str) -> str:
        return f"{self.uid}.{name}"

    async def _guarded(
        self, request: Request, action: str, core: Callable[..., Awaitable[Any]], *args: Any
    ) -> Response:
        rules = self.rules.get(action)
        if rules is None:
            actor = await self.services.callers.require(request, self._action(action))
            responses = self.services.responses
            if responses is not None and self._kept(action):
                body, tables = await responses.body(
                    request, actor, lambda: self._rendered(core, request, actor, *args)
                )
                assert body is not None  # a read that fails raises
                return with_surrogate_keys(cacheable_response(request, body, self.cache), tables)
            answer = await core(request, actor, *args)
            if action in _READS:
                return cacheable_response(request, orjson.dumps(answer), self.cache)
            return no_store(OrjsonResponse(answer))
        actor = await rules.caller(self.services.callers, request)
        # the entry's id as Strapi's ``ctx.params.id`` (GraphQL's policies read ``args.id``)
        params = {"id" if k == "entry_id" else k: v for k, v in request.path_params.items()}
        context = RestContext(request, actor, self._action(action), params, self.services)
        response = await rules.run(context, lambda: core(request, actor, *args))
        if action in _READS:
            return revalidated(request, response, self.cache)
        return no_store(response)

    async def _rendered(
        self, core: Callable[..., Awaitable[Any]], request: Request, actor: Actor, *args: Any
    ) -> bytes | None:
        return orjson.dumps(await core(request, actor, *args))

    def _kept(self, action: str) -> bool:
        """Whether this read's answer may be kept (``http/response_cache.py``): ``find`` and
        ``findOne`` of a type whose reads no extension lifecycle hooks into."""
        if action not in _READS:
            return False
        lifecycles = self.services.entries.lifecycles
        return all(lifecycles.of(self.uid, hook) is None for hook in _READ_HOOKS)

    def _parser(self, actor: Actor) -> QueryParser:
        return self.services.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))

    def _entry_query(self, request: Request, actor: Actor) -> ReadQuery:
        return self._query(request, actor, "entry")

    def _list_query(self, request: Request, actor: Actor) -> ReadQuery:
        return self._query(request, actor, "list")

    def _query(self, request: Request, actor: Actor, kind: RouteKind) -> ReadQuery:
        """The request's query string parsed for this caller (kept: ``ParsedQueries``)."""

        def parse() -> ReadQuery:
            parser = self._parser(actor)
            read = parser.entry_query if kind == "entry" else parser.read_query
            return read(self.content_type, query_params(request))

        raw: bytes = request.scope.get("query_string", b"")
        return self.parsed.get(self.uid, kind, raw, actor, parse)

    def _single(self, entry: dict[str, Any]) -> dict[str, Any]:
        return single_envelope(self.services.serializer.entry(self.content_type, entry))

    # ---------------------------------------------------------------- routes

    async def collection(self, request: Request) -> Response:
        """``GET /api/P`` (find) and ``POST /api/P`` (create)."""
        if request.method == "POST":
            return await self._guarded(request, "create", self._create)
        return await self._guarded(request, "find", self._find)

    async def item(self, request: Request, entry_id: str) -> Response:
        """``GET`` (findOne), ``PUT`` (update) and ``DELETE`` (delete) of ``/api/P/:id``."""
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "findOne")
        return await self._guarded(request, action, self._item, action, entry_id)

    async def localizations(self, request: Request, entry_id: str) -> Response:
        """``POST /api/P/:id/localizations``: answered flat, as Strapi does, with the group."""
        return await self._guarded(
            request, "createLocalization", self._create_localization, entry_id
        )

    async def single_localizations(self, request: Request) -> Response:
        """``POST /api/S/localizations`` (a localized single type): made from the type's
        entry, whatever its locale — Strapi's i18n route for single types."""
        return await self._guarded(request, "createLocalization", self._create_localization, None)

    async def single(self, request: Request) -> Response:
        """``GET``, ``PUT`` and ``DELETE`` of a single type's ``/api/S``."""
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "find")
        return await self._guarded(request, action, self._single_type, action)

    # ---------------------------------------------------------------- core actions

    async def _find(self, request: Request, actor: Actor) -> dict[str, Any]:
        query = self._list_query(request, actor)
        page = await self.services.entries.find_many(self.uid, query)
        data = self.services.serializer.entries(self.content_type, page.entries)
        return list_envelope(data, query.pagination, page.total)

    async def _create(self, request: Request, actor: Actor) -> dict[str, Any]:
        query = self._entry_query(request, actor)
        data = await read_data(request)
        return self._single(await self.services.entries.create(self.uid, data, query))

    async def _item(
        self, request: Request, actor: Actor, action: str, entry_id: str
    ) -> dict[str, Any]:
        parsed_id = parse_entry_id(entry_id)
        query = self._entry_query(request, actor)
        if action == "update":
            data = await read_data(request)
            entry = await self.services.entries.update(
                self.uid, parsed_id, data, query, sync_populated=True
            )
        elif action == "delete":
            entry = await self.services.entries.delete(self.uid, parsed_id, query)
        else:
            found = await self.services.entries.find_one(self.uid, parsed_id, query)
            if found is None:
                raise NotFoundError()
            entry = found
        return self._single(entry)

    async def _create_localization(
        self, request: Request, actor: Actor, entry_id: str | None
    ) -> dict[str, Any]:
        parsed_id = None if entry_id is None else parse_entry_id(entry_id)
        query = self._entry_query(request, actor)
        # The whole group, drafts included (a new localization is itself a draft).
        query = replace(
            query,
            publication_state="preview",
            populate={**query.populate, LOCALIZATIONS: RelationPopulate()},
        )
        body = await read_json_object(request)
        entry = await self.services.entries.create_localization(self.uid, parsed_id, body, query)
        others = entry.pop(LOCALIZATIONS)
        flat = self.services.serializer.plain(self.content_type, entry)
        flat[LOCALIZATIONS] = [self.services.serializer.plain(self.content_type, e) for e in others]
        return flat

    async def _single_type(self, request: Request, actor: Actor, action: str) -> dict[str, Any]:
        query = self._entry_query(request, actor)
        if action == "update":
            data = await read_data(request)
            entry = await self.services.entries.upsert_single(
                self.uid, data, query.locale, query, rest=True
            )
        elif action == "delete":
            entry = await self.services.entries.delete_single(self.uid, query.locale, query)
        else:
            found = await self.services.entries.find_single(self.uid, query)
            if found is None:
                raise NotFoundError()
            entry = found
        return self._single(entry)
