"""REST handlers of one content type: request → permission → query → entry service → envelope.

One handler per path dispatches on the method, so that a wrong method gets a 405 whose
``Allow`` header lists every method of that path (as Strapi's router does).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import Request
from starlette.responses import Response

from contentapi.auth.actor import Actor, may
from contentapi.auth.deps import require
from contentapi.errors import NotFoundError
from contentapi.query.ast import ReadQuery, RelationPopulate
from contentapi.query.parse import LOCALIZATIONS, QueryParser
from contentapi.query.qs import parse_query
from contentapi.rest.body import read_data, read_json_object
from contentapi.rest.envelope import list_envelope, single_envelope
from contentapi.rest.parsed_queries import ParsedQueries, RouteKind
from contentapi.rest.responses import OrjsonResponse
from contentapi.runtime import Runtime
from contentapi.schema.model import ContentType
from contentapi.values import entry_id_of

__all__ = ["Resource", "parse_entry_id", "query_params"]


def parse_entry_id(raw: str) -> int:
    """A path id: a positive integer that fits the id columns, else 404 (``/api/articles/abc``
    and ``/api/articles/3000000000`` name no entry)."""
    parsed = entry_id_of(raw)
    if parsed is None:
        raise NotFoundError()
    return parsed


def query_params(request: Request) -> dict[str, Any]:
    """The query string parsed exactly as Strapi's ``qs`` options parse it."""
    raw: bytes = request.scope.get("query_string", b"")
    return parse_query(raw.decode("utf-8", errors="replace"))


class Resource:
    """The routes of one content type, bound to its uid."""

    def __init__(self, content_type: ContentType) -> None:
        self.content_type = content_type
        self.uid = content_type.uid
        #: this type's parsed query strings (``rest/parsed_queries.py``)
        self.parsed = ParsedQueries()

    def _action(self, name: str) -> str:
        return f"{self.uid}.{name}"

    def _parser(self, runtime: Runtime, actor: Actor) -> QueryParser:
        return runtime.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))

    def _entry_query(self, runtime: Runtime, request: Request, actor: Actor) -> ReadQuery:
        return self._query(runtime, request, actor, "entry")

    def _list_query(self, runtime: Runtime, request: Request, actor: Actor) -> ReadQuery:
        return self._query(runtime, request, actor, "list")

    def _query(
        self, runtime: Runtime, request: Request, actor: Actor, kind: RouteKind
    ) -> ReadQuery:
        """The request's query string parsed for this caller (kept: ``ParsedQueries``)."""

        def parse() -> ReadQuery:
            parser = self._parser(runtime, actor)
            read = parser.entry_query if kind == "entry" else parser.read_query
            return read(self.content_type, query_params(request))

        raw: bytes = request.scope.get("query_string", b"")
        return self.parsed.get(self.uid, kind, raw, actor, parse)

    def _single(self, runtime: Runtime, entry: dict[str, Any]) -> OrjsonResponse:
        return OrjsonResponse(single_envelope(runtime.serializer.entry(self.content_type, entry)))

    async def collection(self, request: Request) -> Response:
        """``GET /api/P`` (find) and ``POST /api/P`` (create)."""
        runtime: Runtime = request.app.state.runtime
        if request.method == "POST":
            actor = await require(request, self._action("create"))
            query = self._entry_query(runtime, request, actor)
            data = await read_data(request)
            return self._single(runtime, await runtime.entries.create(self.uid, data, query))
        actor = await require(request, self._action("find"))
        query = self._list_query(runtime, request, actor)
        page = await runtime.entries.find_many(self.uid, query)
        data = runtime.serializer.entries(self.content_type, page.entries)
        return OrjsonResponse(list_envelope(data, query.pagination, page.total))

    async def item(self, request: Request, entry_id: str) -> Response:
        """``GET`` (findOne), ``PUT`` (update) and ``DELETE`` (delete) of ``/api/P/:id``."""
        runtime: Runtime = request.app.state.runtime
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "findOne")
        actor = await require(request, self._action(action))
        parsed_id = parse_entry_id(entry_id)
        query = self._entry_query(runtime, request, actor)
        if action == "update":
            data = await read_data(request)
            entry = await runtime.entries.update(
                self.uid, parsed_id, data, query, sync_populated=True
            )
        elif action == "delete":
            entry = await runtime.entries.delete(self.uid, parsed_id, query)
        else:
            found = await runtime.entries.find_one(self.uid, parsed_id, query)
            if found is None:
                raise NotFoundError()
            entry = found
        return self._single(runtime, entry)

    async def localizations(self, request: Request, entry_id: str) -> Response:
        """``POST /api/P/:id/localizations``: answered flat, as Strapi does, with the group."""
        return await self._create_localization(request, entry_id)

    async def single_localizations(self, request: Request) -> Response:
        """``POST /api/S/localizations`` (a localized single type): made from the type's
        entry, whatever its locale — Strapi's i18n route for single types."""
        return await self._create_localization(request, None)

    async def _create_localization(self, request: Request, entry_id: str | None) -> Response:
        runtime: Runtime = request.app.state.runtime
        actor = await require(request, self._action("createLocalization"))
        parsed_id = None if entry_id is None else parse_entry_id(entry_id)
        query = self._entry_query(runtime, request, actor)
        # The whole group, drafts included (a new localization is itself a draft).
        query = replace(
            query,
            publication_state="preview",
            populate={**query.populate, LOCALIZATIONS: RelationPopulate()},
        )
        body = await read_json_object(request)
        entry = await runtime.entries.create_localization(self.uid, parsed_id, body, query)
        others = entry.pop(LOCALIZATIONS)
        flat = runtime.serializer.plain(self.content_type, entry)
        flat[LOCALIZATIONS] = [runtime.serializer.plain(self.content_type, e) for e in others]
        return OrjsonResponse(flat)

    async def single(self, request: Request) -> Response:
        """``GET``, ``PUT`` and ``DELETE`` of a single type's ``/api/S``."""
        runtime: Runtime = request.app.state.runtime
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "find")
        actor = await require(request, self._action(action))
        query = self._entry_query(runtime, request, actor)
        if action == "update":
            data = await read_data(request)
            entry = await runtime.entries.upsert_single(
                self.uid, data, query.locale, query, rest=True
            )
        elif action == "delete":
            entry = await runtime.entries.delete_single(self.uid, query.locale, query)
        else:
            found = await runtime.entries.find_single(self.uid, query)
            if found is None:
                raise NotFoundError()
            entry = found
        return self._single(runtime, entry)
