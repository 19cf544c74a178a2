"""Media attributes: which files an entry (or component row) holds, in ``files_related_morphs``.

A morph row is ``(file_id, related_id, related_type, field, order)`` where ``related_type`` is the
uid of the entry's content type or of the component. Setting a media attribute replaces its rows;
every id must name an existing file of an allowed type (``allowedTypes``: images, videos,
audios, files — the last meaning anything else).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table, and_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.entries.write_plan import MediaWrite, label
from contentapi.errors import FieldError, ValidationError

__all__ = ["allowed_file", "delete_media_of", "store_media"]

_MIME_GROUPS = {"images": "image/", "videos": "video/", "audios": "audio/"}


def allowed_file(mime: str | None, allowed_types: Sequence[str]) -> bool:
    """Whether a file of ``mime`` fits ``allowedTypes`` (images, videos, audios, files)."""
    if not allowed_types:
        return True
    mime = mime or ""
    group = next(
        (name for name, prefix in _MIME_GROUPS.items() if mime.startswith(prefix)), "files"
    )
    return group in allowed_types


async def store_media(
    conn: AsyncConnection,
    files: Table,
    morphs: Table,
    related_type: str,
    related_id: int,
    write: MediaWrite,
) -> None:
    if write.ids:
        found = await conn.execute(
            select(files.c.id, files.c.mime).where(files.c.id.in_(write.ids))
        )
        mimes = {int(row.id): row.mime for row in found}
        missing = [file_id for file_id in write.ids if file_id not in mimes]
        if missing:
            raise ValidationError.from_errors(
                [FieldError(write.path, f"{label(write.path)}: file(s) {missing} do not exist")]
            )
        refused = [
            i for i in write.ids if not allowed_file(mimes[i], write.attribute.allowed_types)
        ]
        if refused:
            allowed = ", ".join(write.attribute.allowed_types)
            raise ValidationError.from_errors(
                [
                    FieldError(
                        write.path,
                        f"{label(write.path)}: file(s) {refused} are not of an allowed type "
                        f"({allowed})",
                    )
                ]
            )
    await conn.execute(
        morphs.delete().where(
            and_(
                morphs.c.related_id == related_id,
                morphs.c.related_type == related_type,
                morphs.c.field == write.attribute.name,
            )
        )
    )
    if write.ids:
        await conn.execute(
            morphs.insert(),
            [
                {
                    "file_id": file_id,
                    "related_id": related_id,
                    "related_type": related_type,
                    "field": write.attribute.name,
                    "order": float(order),
                }
                for order, file_id in enumerate(write.ids, start=1)
            ],
        )


async def delete_media_of(
    conn: AsyncConnection, morphs: Table, related_type: str, related_ids: Sequence[int]
) -> None:
    """Detach every file from the given entries or component rows."""
    if related_ids:
        await conn.execute(
            morphs.delete().where(
                and_(morphs.c.related_type == related_type, morphs.c.related_id.in_(related_ids))
            )
        )
