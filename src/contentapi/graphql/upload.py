"""The upload plugin's GraphQL mutations: ``upload``, ``multipleUpload``, ``updateFileInfo``,
``removeFile`` — through the same ``UploadService`` as ``POST /api/upload``.

Files arrive per the GraphQL multipart request spec (``http.py`` maps them into the variables
as ``IncomingFile``s, the ``Upload`` scalar's values). Answers are ``UploadFileEntityResponse``
shaped by the planner like any Shadow CRUD answer.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLID,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLResolveInfo,
    GraphQLString,
)

from contentapi.errors import NotFoundError, ValidationError
from contentapi.graphql.context import GraphQLContext, Precompleted
from contentapi.graphql.crud import ContentTypeResolvers, entry_id
from contentapi.graphql.deferred import complete_deferred
from contentapi.graphql.scalars import UPLOAD
from contentapi.graphql.types import OutputTypes
from contentapi.query.ast import ReadQuery
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.registry import Registry
from contentapi.upload.service import IncomingFile, UploadService

__all__ = ["UPLOAD_ACTIONS", "UploadFields"]

_UPLOAD = "plugin::upload.content-api"

#: The upload plugin's scopes for the file's Shadow CRUD operations.
UPLOAD_ACTIONS = {
    "find": f"{_UPLOAD}.find",
    "findOne": f"{_UPLOAD}.findOne",
    "create": f"{_UPLOAD}.upload",
    "update": f"{_UPLOAD}.upload",
    "delete": f"{_UPLOAD}.destroy",
}

FILE_INFO_INPUT = GraphQLInputObjectType(
    "FileInfoInput",
    {name: GraphQLInputField(GraphQLString) for name in ("name", "alternativeText", "caption")},
)


class UploadFields:
    """The plugin's mutations, bound to one ``UploadService``."""

    def __init__(self, registry: Registry, types: OutputTypes, service: UploadService) -> None:
        self.files = ContentTypeResolvers(registry.content_types[FILE_UID], UPLOAD_ACTIONS)
        self.types = types
        self.service = service
        self.file_model = registry.content_types[FILE_UID]

    def mutations(self) -> dict[str, GraphQLField]:
        response = self.types.entity_response(self.file_model)
        attach = {
            "refId": GraphQLArgument(GraphQLID),
            "ref": GraphQLArgument(GraphQLString),
            "field": GraphQLArgument(GraphQLString),
        }
        return {
            "upload": GraphQLField(
                GraphQLNonNull(response),
                args={
                    **attach,
                    "info": GraphQLArgument(FILE_INFO_INPUT),
                    "file": GraphQLArgument(GraphQLNonNull(UPLOAD)),
                },
                resolve=self.upload,
            ),
            "multipleUpload": GraphQLField(
                GraphQLNonNull(GraphQLList(response)),
                args={**attach, "files": GraphQLArgument(GraphQLNonNull(GraphQLList(UPLOAD)))},
                resolve=self.multiple_upload,
            ),
            "updateFileInfo": GraphQLField(
                GraphQLNonNull(response),
                args={
                    "id": GraphQLArgument(GraphQLNonNull(GraphQLID)),
                    "info": GraphQLArgument(FILE_INFO_INPUT),
                },
                resolve=self.update_file_info,
            ),
            "removeFile": GraphQLField(
                response,
                args={"id": GraphQLArgument(GraphQLNonNull(GraphQLID))},
                resolve=self.remove_file,
            ),
        }

    @staticmethod
    def _attach(args: dict[str, Any]) -> tuple[Any, Any, Any] | None:
        if any(args.get(key) is not None for key in ("ref", "refId", "field")):
            return (args.get("ref"), args.get("refId"), args.get("field"))
        return None

    async def _shaped(self, info: GraphQLResolveInfo, entry: Any) -> Any:
        selection = self.files._selection(info, "response")
        ctx: GraphQLContext = info.context
        shaped = selection.shaper(entry, ctx.shape_errors)
        return await complete_deferred(info, shaped) if selection.deferred else shaped

    async def _reread(self, info: GraphQLResolveInfo, file_id: int) -> Any:
        selection = self.files._selection(info, "response")
        query = ReadQuery(fields=tuple(selection.fields), populate=selection.populate)
        return await self.service.find_one(file_id, query)

    # `info` is one of these mutations' arguments, so the resolve info takes another name.
    async def upload(self, _parent: Any, resolve_info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = resolve_info.context
        ctx.authorize(f"{_UPLOAD}.upload")
        incoming: IncomingFile = args["file"]
        if args.get("info"):
            incoming = IncomingFile(incoming.filename, incoming.source, args["info"])
        (created,) = await self.service.upload([incoming], self._attach(args))
        return Precompleted(await self._shaped(resolve_info, created))

    async def multiple_upload(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{_UPLOAD}.upload")
        incoming = [item for item in args["files"] if item is not None]
        if not incoming:
            raise ValidationError("Files are empty")
        created = await self.service.upload(incoming, self._attach(args))
        return Precompleted([await self._shaped(info, entry) for entry in created])

    async def update_file_info(
        self, _parent: Any, resolve_info: GraphQLResolveInfo, **args: Any
    ) -> Any:
        ctx: GraphQLContext = resolve_info.context
        ctx.authorize(f"{_UPLOAD}.upload")
        wanted = entry_id(args["id"])
        if wanted is None:
            raise NotFoundError("File not found")
        # as Strapi's updateFileInfo: the file's entry.update and media.update recorded
        await self.service.update_info(wanted, args.get("info") or {})
        return Precompleted(
            await self._shaped(resolve_info, await self._reread(resolve_info, wanted))
        )

    async def remove_file(self, _parent: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
        ctx: GraphQLContext = info.context
        ctx.authorize(f"{_UPLOAD}.destroy")
        wanted = entry_id(args["id"])
        if wanted is None:
            return Precompleted(await self._shaped(info, None))
        try:
            removed = await self.service.delete(wanted)
        except NotFoundError:
            removed = None
        return Precompleted(await self._shaped(info, removed))
