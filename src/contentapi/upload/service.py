"""Uploading, attaching and deleting files: the ``files`` rows and the stored bytes together.

An upload request is all-or-nothing: every file is sniffed, checked and stored, its formats
generated, then all rows (and the attachment to an entry) are written in one transaction; if
anything fails, the bytes already written are removed again, so no stray file stays in the
storage (the uploads folder or the S3 bucket: ``upload/storage.py``).
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, BinaryIO

from sqlalchemy import Table, and_, func, select

from contentapi.entries.access import EntryAccess
from contentapi.entries.events import EventName
from contentapi.entries.row_values import row_values
from contentapi.errors import NotFoundError, ValidationError
from contentapi.query.ast import Comparison, OffsetPagination, ReadQuery
from contentapi.schema.builtin import FILE_UID, FOLDER_UID
from contentapi.schema.model import ContentType, MediaAttribute
from contentapi.upload.folders import api_upload_folder, file_in_folder
from contentapi.upload.images import ImageError, ImageTooLargeError, inspect_image, renditions
from contentapi.upload.sniff import sniff
from contentapi.upload.storage import StorageProvider
from contentapi.values import entry_id_of

__all__ = ["IncomingFile", "UploadService"]

log = logging.getLogger("contentapi.upload")

_FORMAT_TYPES = {
    "PNG": ("image/png", ".png"),
    "JPEG": ("image/jpeg", ".jpg"),
    "GIF": ("image/gif", ".gif"),
    "WEBP": ("image/webp", ".webp"),
}


@dataclass(frozen=True, slots=True)
class IncomingFile:
    """One uploaded part: the client's file name, its spooled bytes, and its ``fileInfo``."""

    filename: str
    source: BinaryIO
    info: Mapping[str, Any]


def _kilobytes(size: int) -> float:
    """Strapi's ``bytesToKbytes``: ``Math.round((bytes / 1000) * 100) / 100`` — JavaScript's
    rounding of halves up (15 bytes: 0.02), not Python's ``round`` (0.01)."""
    return math.floor(size / 1000 * 100 + 0.5) / 100


def _display_name(filename: str) -> str:
    """The client's file name without any directory part (``../../x.png`` → ``x.png``)."""
    name = re.split(r"[\\/]", filename)[-1].strip().replace("\x00", "")
    return name[:200] or "file"


def _info_text(info: Mapping[str, Any], key: str) -> str | None:
    """A ``fileInfo`` text (``name``, ``alternativeText``, ``caption``): what its ``files``
    column can hold — a string of at most 255 characters without NUL — else 400."""
    value = info.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or "\x00" in value or len(value) > 255:
        raise ValidationError(
            f"fileInfo.{key} must be a string of at most 255 characters without NUL characters"
        )
    return value


#: ``fileInfo``'s keys and the ``files`` columns they describe
_INFO_COLUMNS = (("name", "name"), ("alternativeText", "alternative_text"), ("caption", "caption"))


def _hash(name: str) -> str:
    base = name.rsplit(".", 1)[0] if "." in name else name
    slug = re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_")[:50] or "file"
    return f"{slug}_{secrets.token_hex(5)}"


@dataclass(frozen=True, slots=True)
class _Replaced:
    """The file a replacement takes the place of: its hash and extension, its stored keys."""

    hash: str
    ext: str
    keys: list[str]


@dataclass(slots=True, eq=False)
class UploadService(EntryAccess):
    """Uploads and deletes of files, built once by the composition root and shared by REST's
    ``/api/upload`` and GraphQL's upload mutations (a dataclass: it holds what it is handed,
    and the two tables it writes, looked up once)."""

    storage: StorageProvider
    max_size: int
    files: Table = field(init=False)
    morphs: Table = field(init=False)

    def __post_init__(self) -> None:
        self.files = self.tables.entity(FILE_UID)
        morphs = self.tables.file_morphs
        assert morphs is not None
        self.morphs = morphs

    async def _store(
        self,
        incoming: IncomingFile,
        saved: list[str],
        replacing: _Replaced | None = None,
    ) -> dict[str, Any]:
        """Check and store one file (and its formats); the values of its ``files`` row.
        ``replacing``: the file it replaces — its hash and extension kept (its URL stays), its
        stored bytes and formats deleted once the new file is checked, before it is saved."""
        head = incoming.source.read(8192)
        if not head:
            raise ValidationError(f"File {_display_name(incoming.filename)} is empty")
        kind = sniff(head, incoming.filename)
        name = _info_text(incoming.info, "name") or _display_name(incoming.filename)
        if replacing is None:
            file_hash, ext = _hash(name), kind.ext
        else:
            file_hash, ext = replacing.hash, replacing.ext
        width = height = None
        formats: dict[str, Any] | None = None
        pictures = []
        if kind.is_raster_image:
            # Decoding and resizing take CPU time: off the event loop, which goes on serving.
            try:
                info = await asyncio.to_thread(inspect_image, incoming.source)
            except ImageTooLargeError as error:
                raise ValidationError(f"Image is too large: {error}") from error
            except ImageError as error:
                raise ValidationError("File is not a valid image") from error
            width, height = info.width, info.height
            pictures = await asyncio.to_thread(renditions, incoming.source, info)
        key = f"{file_hash}{ext}"
        if replacing is not None:
            await self._remove(replacing.keys)
        size = await self.storage.save(key, incoming.source, self.max_size)
        saved.append(key)
        if pictures:
            formats = {}
            for picture in pictures:
                mime, ext = _FORMAT_TYPES.get(info.format, (kind.mime, kind.ext))
                picture_key = f"{picture.name}_{file_hash}{ext}"
                await self.storage.save_bytes(picture_key, picture.data)
                saved.append(picture_key)
                formats[picture.name] = {
                    "name": f"{picture.name}_{name}",
                    "hash": f"{picture.name}_{file_hash}",
                    "ext": ext,
                    "mime": mime,
                    "path": None,
                    "width": picture.width,
                    "height": picture.height,
                    "size": _kilobytes(len(picture.data)),
                    "sizeInBytes": len(picture.data),
                    "url": self.storage.url(picture_key),
                }
        now = datetime.now(UTC).replace(tzinfo=None)
        return {
            "name": name,
            "alternative_text": _info_text(incoming.info, "alternativeText"),
            "caption": _info_text(incoming.info, "caption"),
            "width": width,
            "height": height,
            "formats": formats,
            "hash": file_hash,
            "ext": ext,
            "mime": kind.mime,
            "size": _kilobytes(size),
            "url": self.storage.url(key),
            "preview_url": None,
            "provider": self.storage.name,
            "provider_metadata": None,
            "folder_path": "/",
            "created_at": now,
            "updated_at": now,
        }

    def _target(self, ref: Any, ref_id: Any, field: Any) -> tuple[str, int, MediaAttribute]:
        """``ref``/``refId``/``field`` → (uid, entry id, media attribute); 400 when invalid."""
        registry = self.registry
        model = registry.content_types.get(ref) or registry.components.get(ref)
        if model is None:
            raise ValidationError(f"ref {ref!r} is not a content type or component")
        attribute = model.attributes.get(field) if isinstance(field, str) else None
        if not isinstance(attribute, MediaAttribute):
            raise ValidationError(f"field {field!r} is not a media attribute of {ref}")
        entry_id = entry_id_of(ref_id)
        if entry_id is None:
            raise ValidationError("refId must be an entry id")
        return model.uid, entry_id, attribute

    async def upload(
        self, incoming: Sequence[IncomingFile], attach: tuple[Any, Any, Any] | None
    ) -> list[dict[str, Any]]:
        if not incoming:
            raise ValidationError("Files are empty")
        target = self._target(*attach) if attach is not None else None
        saved: list[str] = []
        try:
            rows = [await self._store(item, saved) for item in incoming]
            async with self.database.write() as conn:
                # in Strapi's "API Uploads" media-library folder, as Strapi files them
                folder = await api_upload_folder(conn, self.tables)
                if folder.created:
                    await self._record_folder(conn, folder.id)
                ids = []
                for row in rows:
                    row["folder_path"] = folder.path
                    created = await conn.execute(
                        # `formats`/`provider_metadata` None as SQL NULL, as Strapi stores it
                        self.files.insert()
                        .values(row_values(self.files, row))
                        .returning(self.files.c.id)
                    )
                    ids.append(int(created.scalar_one()))
                await file_in_folder(conn, self.tables, ids, folder.id)
                if target is not None:
                    await self._attach(conn, target, ids, rows)
                await self._record(conn, "media.create", ids)
        except BaseException:
            await self._remove(saved)
            raise
        query = ReadQuery(
            pagination=OffsetPagination(0, len(ids), False),
            filters=Comparison("id", "integer", "$in", ids),
        )
        page = await self.entries.find_many(FILE_UID, query)
        return page.entries  # one statement for the whole request, in id (upload) order

    @property
    def _file_type(self) -> ContentType:
        return self.registry.content_types[FILE_UID]

    async def _record(self, conn: Any, event: EventName, ids: list[int]) -> None:
        """Record ``event`` of each file in ``ids`` in the write's transaction, each file as
        read back there (Strapi's ``{media}`` payload)."""
        for file_id in ids:
            file = await self.entries.reads.read_back_existing(conn, self._file_type, file_id, None)
            await self.entries.events.media(conn, event, self._file_type, file)

    async def _record_folder(self, conn: Any, folder_id: int) -> None:
        """The ``entry.create`` of the "API Uploads" folder the first upload makes."""
        folder_type = self.entries.content_type(FOLDER_UID)
        folder = await self.entries.reads.read_back_existing(conn, folder_type, folder_id, None)
        await self.entries.events.entry(conn, "entry.create", folder_type, folder)

    async def _remove(self, keys: list[str]) -> None:
        """Remove what a failed upload stored; a key the storage cannot remove now (it is
        unreachable) is logged for the operator, and the upload's own error is what answers."""
        for key in keys:
            try:
                await self.storage.delete(key)
            except Exception as error:
                log.warning("could not remove stored file %s of a failed upload: %s", key, error)

    async def _attach(
        self, conn: Any, target: tuple[str, int, MediaAttribute], ids: list[int], rows: list[dict]
    ) -> None:
        uid, entry_id, attribute = target
        table = self.tables.entity(uid)
        exists = await conn.execute(select(table.c.id).where(table.c.id == entry_id))
        if exists.first() is None:
            raise ValidationError(f"Entry {entry_id} of {uid} does not exist")
        where = and_(
            self.morphs.c.related_id == entry_id,
            self.morphs.c.related_type == uid,
            self.morphs.c.field == attribute.name,
        )
        if not attribute.multiple:
            ids = ids[-1:]
            await conn.execute(self.morphs.delete().where(where))
            start = 0.0
        else:
            start = float(
                (await conn.execute(select(func.max(self.morphs.c.order)).where(where))).scalar()
                or 0
            )
        await conn.execute(
            self.morphs.insert(),
            [
                {
                    "file_id": file_id,
                    "related_id": entry_id,
                    "related_type": uid,
                    "field": attribute.name,
                    "order": start + index,
                }
                for index, file_id in enumerate(ids, start=1)
            ],
        )

    async def update_info(self, file_id: int, info: Mapping[str, Any]) -> dict[str, Any]:
        """A file's name, alternative text and caption from ``info`` (``fileInfo``; a key
        missing or null keeps the stored value), as Strapi's ``updateFileInfo``: the file's
        ``entry.update`` (model ``file``) and ``media.update`` recorded with it."""
        values = {
            column: text
            for key, column in _INFO_COLUMNS
            if (text := _info_text(info, key)) is not None
        }
        async with self.database.write() as conn:
            locked = select(self.files.c.id).where(self.files.c.id == file_id).with_for_update()
            if (await conn.execute(locked)).first() is None:
                raise NotFoundError()
            now = datetime.now(UTC).replace(tzinfo=None)
            await conn.execute(
                self.files.update()
                .where(self.files.c.id == file_id)
                .values(**values, updated_at=now)
            )
            file = await self.entries.reads.read_back_existing(conn, self._file_type, file_id, None)
            await self.entries.events.entry(conn, "entry.update", self._file_type, file)
            await self.entries.events.media(conn, "media.update", self._file_type, file)
        return file

    async def replace(self, file_id: int, incoming: IncomingFile) -> dict[str, Any]:
        """``POST /api/upload?id=N`` with a file: the file's bytes replaced, as Strapi's
        ``replace`` — the same id, hash and extension (its URL stays), the new file's name (or
        ``fileInfo.name``), type, size, dimensions and formats (``{}`` when it is no image),
        alternative text and caption from ``fileInfo`` where given; its ``entry.update``
        (model ``file``) and ``media.update`` recorded. As Strapi, the old bytes and formats
        are deleted from the storage once the new file is checked, before the row is written
        (the storage never overwrites a key)."""
        async with self.database.read() as conn:
            old = (
                await conn.execute(
                    select(self.files.c.hash, self.files.c.ext, self.files.c.formats).where(
                        self.files.c.id == file_id
                    )
                )
            ).first()
        if old is None:
            raise NotFoundError()
        keys = [f"{old.hash}{old.ext or ''}"]
        keys += [
            f"{rendition['hash']}{rendition['ext']}" for rendition in (old.formats or {}).values()
        ]
        row = await self._store(incoming, [], _Replaced(old.hash, old.ext or "", keys))
        values = {
            column: row[column]
            for column in ("name", "width", "height", "mime", "size", "url", "provider")
        }
        values["formats"] = row["formats"] or {}
        for column in ("alternative_text", "caption"):  # kept where ``fileInfo`` is silent
            if row[column] is not None:
                values[column] = row[column]
        async with self.database.write() as conn:
            locked = select(self.files.c.id).where(self.files.c.id == file_id).with_for_update()
            if (await conn.execute(locked)).first() is None:
                raise NotFoundError()
            await conn.execute(
                self.files.update()
                .where(self.files.c.id == file_id)
                .values(**values, updated_at=row["updated_at"])
            )
            file = await self.entries.reads.read_back_existing(conn, self._file_type, file_id, None)
            await self.entries.events.entry(conn, "entry.update", self._file_type, file)
            await self.entries.events.media(conn, "media.update", self._file_type, file)
        return file

    async def find_one(self, file_id: int, query: ReadQuery | None = None) -> dict | None:
        return await self.entries.find_one(FILE_UID, file_id, query or ReadQuery())

    async def delete(self, file_id: int) -> dict[str, Any]:
        """Delete a file: its row, its attachments everywhere, and its stored bytes."""
        found = await self.find_one(file_id)
        if found is None:
            raise NotFoundError()
        async with self.database.write() as conn:
            row = (
                await conn.execute(
                    select(self.files.c.hash, self.files.c.ext, self.files.c.formats).where(
                        self.files.c.id == file_id
                    )
                )
            ).first()
            if row is None:
                raise NotFoundError()
            await conn.execute(self.morphs.delete().where(self.morphs.c.file_id == file_id))
            await conn.execute(self.files.delete().where(self.files.c.id == file_id))
            await self.entries.events.media(conn, "media.delete", self._file_type, found)
            # The bytes go before the commit (as Strapi removes them before the row): a storage
            # that fails here rolls the row back (503), so no row is left without its bytes.
            keys = [f"{row.hash}{row.ext or ''}"]
            for rendition in (row.formats or {}).values():
                keys.append(f"{rendition['hash']}{rendition['ext']}")
            for key in keys:
                try:
                    await self.storage.delete(key)
                except ValueError:
                    continue  # a row that never pointed at a key of ours
        return found
