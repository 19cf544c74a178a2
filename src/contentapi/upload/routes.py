"""``/api/upload`` routes (Strapi's shapes: plain file objects and arrays) and ``/uploads``.

The multipart body is parsed from a byte-counting stream: past the configured size the request
is refused with 413 while it is still arriving, and file parts are spooled to disk by the
parser, never held whole in memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import APIRouter, Request
from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

from contentapi.auth.actor import may
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.errors import NotFoundError, ValidationError
from contentapi.http.limits import hold_body_to
from contentapi.http.params import parse_entry_id, query_params
from contentapi.http.responses import OrjsonResponse
from contentapi.http.services import ContentServices
from contentapi.query.ast import ReadQuery
from contentapi.query.entity_paging import with_entity_paging
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import ContentType
from contentapi.schema.registry import Registry
from contentapi.upload.related import in_attachment_order, plain_related, with_related
from contentapi.upload.service import IncomingFile, UploadService
from contentapi.upload.sniff import is_passive, stored_mime

__all__ = ["UploadServices", "UploadsStatic", "build_upload_router"]

UPLOAD = "plugin::upload.content-api"
#: the message of Strapi's upload controller for a file id that names no file
MISSING_FILE = "file.notFound"
_FORM_OVERHEAD = 64 * 1024  # multipart boundaries and small fields beyond the files' bytes


#: Anything else (SVG, HTML-like text, XML, archives, Flash…) runs in a sandbox of its own
#: origin with nothing allowed, and is offered as a download when opened.
_ACTIVE_HEADERS = {
    "content-security-policy": "default-src 'none'; sandbox",
    "content-disposition": "attachment",
}
#: SVG stays displayable (``<img>`` ignores the disposition, a tab shows it without script).
_SVG_HEADERS = {"content-security-policy": "default-src 'none'; sandbox"}


class UploadsStatic(StaticFiles):
    """Stored files, served as the type stored for them — from the key's extension, which the
    server chose from the file's bytes (``upload/sniff.py``), never re-guessed from the name
    (``mimetypes`` would answer ``text/html`` for a text file uploaded as ``page.html``).
    Anything a browser could run gets ``default-src 'none'; sandbox``; ``nosniff`` and the
    other security headers come with every response (``http/security_headers.py``)."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        mime = stored_mime(os.path.splitext(full_path)[1])
        media_type = f"{mime}; charset=utf-8" if mime == "text/plain" else mime
        headers = None
        if mime == "image/svg+xml":
            headers = _SVG_HEADERS
        elif not is_passive(mime):
            headers = _ACTIVE_HEADERS
        response = FileResponse(
            full_path,
            status_code=status_code,
            headers=headers,
            media_type=media_type,
            stat_result=stat_result,
        )
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


def _infos(raw: list[Any], count: int) -> list[dict[str, Any]]:
    """``fileInfo``: one JSON object per file (or a JSON array of them)."""
    parsed: list[Any] = []
    for item in raw:
        try:
            value = orjson.loads(item) if isinstance(item, str) else {}
        except orjson.JSONDecodeError as error:
            raise ValidationError("fileInfo must be JSON") from error
        parsed.extend(value if isinstance(value, list) else [value])
    infos = [item if isinstance(item, dict) else {} for item in parsed]
    return (infos + [{}] * count)[:count]


@dataclass(frozen=True)
class UploadServices:
    """What the upload routes use, built once by the composition root (``app.py``)."""

    #: who is asking, and how files are read and rendered
    content: ContentServices
    uploads: UploadService
    registry: Registry
    #: ``upload/related.py`` reads the order of a file's attachments
    database: Database
    tables: ContentTables
    file_type: ContentType
    #: ``CONTENTAPI_UPLOAD_MAX_SIZE``
    max_size: int
    #: ``CONTENTAPI_REST_MAX_LIMIT``: the files list's size when no pagination is asked
    max_limit: int


def build_upload_router(services: UploadServices) -> APIRouter:
    service = services.uploads
    callers = services.content.callers
    router = APIRouter(prefix="/api/upload")
    file_type = services.file_type

    def plain(entry: dict[str, Any]) -> dict[str, Any]:
        flat = services.content.serializer.plain(file_type, entry)
        return plain_related(services.content.serializer, services.registry, flat)

    @router.post("")
    async def upload(request: Request) -> Response:
        await callers.require(request, f"{UPLOAD}.upload")
        hold_body_to(request, services.max_size + _FORM_OVERHEAD)
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise ValidationError("Expected a multipart/form-data body with `files`")
        parser = MultiPartParser(request.headers, request.stream(), max_files=50, max_fields=50)
        try:
            form = await parser.parse()
        except MultiPartException as error:
            raise ValidationError(f"Invalid multipart body: {error.message}") from error
        try:
            parts = [item for item in form.getlist("files") if isinstance(item, UploadFile)]
            replaced = request.query_params.get("id")
            if replaced is not None:
                # ``?id=N``: Strapi's replaceFile with one file, its updateFileInfo without
                if len(parts) > 1:
                    raise ValidationError("Cannot replace a file with multiple ones")
                (info,) = _infos(form.getlist("fileInfo"), 1)
                file_id = parse_entry_id(replaced)
                if parts:
                    part = parts[0]
                    incoming_one = IncomingFile(part.filename or "file", part.file, info)
                    updated = await service.replace(file_id, incoming_one)
                else:
                    updated = await service.update_info(file_id, info)
                return OrjsonResponse(plain(updated))
            infos = _infos(form.getlist("fileInfo"), len(parts))
            incoming = [
                IncomingFile(part.filename or "file", part.file, info)
                for part, info in zip(parts, infos, strict=True)
            ]
            attach = None
            if any(form.get(key) is not None for key in ("ref", "refId", "field")):
                attach = (form.get("ref"), form.get("refId"), form.get("field"))
            created = await service.upload(incoming, attach)
        finally:
            await form.close()
        return OrjsonResponse([plain(entry) for entry in created])

    @router.get("/files")
    async def find(request: Request) -> Response:
        actor = await callers.require(request, f"{UPLOAD}.find")
        parser = services.content.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))
        params = query_params(request)
        # paged as Strapi's entity service pages (top-level start/limit), at most maxLimit rows
        query = parser.read_query(file_type, {k: v for k, v in params.items() if k != "pagination"})
        query = with_entity_paging(query, params, services.max_limit)
        query = with_related(
            query, params, services.registry, lambda uid: may(actor, f"{uid}.find")
        )
        page = await services.content.entries.find_many(FILE_UID, query)
        await in_attachment_order(services.database, services.tables, page.entries)
        return OrjsonResponse([plain(entry) for entry in page.entries])

    @router.get("/files/{file_id}")
    async def find_one(request: Request, file_id: str) -> Response:
        actor = await callers.require(request, f"{UPLOAD}.findOne")
        parser = services.content.query_parser.for_caller(lambda uid: may(actor, f"{uid}.find"))
        # Strapi checks the whole query (a private or unknown name is 400) and then reads the
        # file with the populate alone: `fields` are not applied.
        params = query_params(request)
        checked = parser.entry_query(file_type, params)
        query = with_related(
            ReadQuery(populate=checked.populate),
            params,
            services.registry,
            lambda uid: may(actor, f"{uid}.find"),
        )
        found = await service.find_one(parse_entry_id(file_id), query)
        if found is None:
            raise NotFoundError(MISSING_FILE)
        await in_attachment_order(services.database, services.tables, [found])
        return OrjsonResponse(plain(found))

    @router.delete("/files/{file_id}")
    async def destroy(request: Request, file_id: str) -> Response:
        await callers.require(request, f"{UPLOAD}.destroy")
        try:
            return OrjsonResponse(plain(await service.delete(parse_entry_id(file_id))))
        except NotFoundError as error:
            raise NotFoundError(MISSING_FILE) from error

    return router
