"""Media attributes: which files an entry (or component row) holds, in ``files_related_morphs``.

A morph row is ``(file_id, related_id, related_type, field, order)`` where ``related_type`` is the
uid of the entry's content type or of the component. Setting a media attribute replaces its rows;
every id must name an existing file. ``allowedTypes`` is not checked, as Strapi 4.25's server
does not check it (its admin's media picker does): a text file given to an images-only field
is stored (recorded: ``tests/fixtures/strapi_webhooks.json``, step 13b).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table, and_, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.entries.write_plan import MediaWrite, label
from contentapi.errors import FieldError, ValidationError

__all__ = ["delete_media_of", "store_media"]


async def store_media(
    conn: AsyncConnection,
    files: Table,
    morphs: Table,
    related_type: str,
    related_id: int,
    write: MediaWrite,
) -> None:
    if write.ids:
        found = await conn.execute(select(files.c.id).where(files.c.id.in_(write.ids)))
        existing = {int(row.id) for row in found}
        missing = [file_id for file_id in write.ids if file_id not in existing]
        if missing:
            raise ValidationError.from_errors(
                [FieldError(write.path, f"{label(write.path)}: file(s) {missing} do not exist")]
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
