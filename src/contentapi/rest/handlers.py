"""REST handlers of one content type: request → permission → entry service → envelope.

One handler per path dispatches on the method, so that a wrong method gets a 405 whose
``Allow`` header lists every method of that path (as Strapi's router does).
"""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from contentapi.auth.deps import require
from contentapi.entries.serialize import RestSerializer
from contentapi.errors import NotFoundError
from contentapi.query.ast import PagePagination, ReadQuery
from contentapi.rest.body import read_data
from contentapi.rest.envelope import list_envelope, single_envelope
from contentapi.rest.responses import OrjsonResponse
from contentapi.runtime import Runtime
from contentapi.schema.model import ContentType

__all__ = ["Resource", "parse_entry_id"]


def parse_entry_id(raw: str) -> int:
    """A path id: a positive integer, else 404 (``/api/articles/abc`` names no entry)."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise NotFoundError()
    return int(raw)


class Resource:
    """The routes of one content type, bound to its uid."""

    def __init__(self, content_type: ContentType) -> None:
        self.content_type = content_type
        self.uid = content_type.uid
        self.serializer = RestSerializer(content_type)

    def _action(self, name: str) -> str:
        return f"{self.uid}.{name}"

    def _read_query(self, request: Request) -> ReadQuery:
        runtime: Runtime = request.app.state.runtime
        return ReadQuery(pagination=_default_page(runtime))

    async def collection(self, request: Request) -> Response:
        """``GET /api/P`` (find) and ``POST /api/P`` (create)."""
        runtime: Runtime = request.app.state.runtime
        if request.method == "POST":
            await require(request, self._action("create"))
            data = await read_data(request)
            entry = await runtime.entries.create(self.uid, data)
            return OrjsonResponse(single_envelope(self.serializer.entry(entry)))
        await require(request, self._action("find"))
        query = self._read_query(request)
        page = await runtime.entries.find_many(self.uid, query)
        data = [self.serializer.entry(entry) for entry in page.entries]
        return OrjsonResponse(list_envelope(data, query.pagination, page.total))

    async def item(self, request: Request, entry_id: str) -> Response:
        """``GET`` (findOne), ``PUT`` (update) and ``DELETE`` (delete) of ``/api/P/:id``."""
        runtime: Runtime = request.app.state.runtime
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "findOne")
        await require(request, self._action(action))
        parsed_id = parse_entry_id(entry_id)
        if action == "update":
            data = await read_data(request)
            entry = await runtime.entries.update(self.uid, parsed_id, data)
        elif action == "delete":
            entry = await runtime.entries.delete(self.uid, parsed_id)
        else:
            found = await runtime.entries.find_one(self.uid, parsed_id, self._read_query(request))
            if found is None:
                raise NotFoundError()
            entry = found
        return OrjsonResponse(single_envelope(self.serializer.entry(entry)))

    async def single(self, request: Request) -> Response:
        """``GET``, ``PUT`` and ``DELETE`` of a single type's ``/api/S``."""
        runtime: Runtime = request.app.state.runtime
        action = {"PUT": "update", "DELETE": "delete"}.get(request.method, "find")
        await require(request, self._action(action))
        if action == "update":
            data = await read_data(request)
            entry = await runtime.entries.upsert_single(self.uid, data)
        elif action == "delete":
            entry = await runtime.entries.delete_single(self.uid)
        else:
            found = await runtime.entries.find_single(self.uid, self._read_query(request))
            if found is None:
                raise NotFoundError()
            entry = found
        return OrjsonResponse(single_envelope(self.serializer.entry(entry)))


def _default_page(runtime: Runtime) -> PagePagination:
    return PagePagination(
        page=1,
        page_size=runtime.settings.rest_default_limit,
        with_count=runtime.settings.rest_with_count,
    )
