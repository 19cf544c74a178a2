"""The media library folder Strapi files Content API uploads in ("API Uploads").

Strapi 4.25 puts every file uploaded through ``POST /api/upload`` in one folder of its admin
panel's media library: the folder whose id ``strapi_core_store_settings`` keeps under
``plugin_upload_api-folder`` (``{"id": …}``), created at the first upload as ``API Uploads``
(``API Uploads (1)`` … when the name is taken at the root) with the next ``pathId`` and the path
``/<pathId>``. The file row gets that path as ``folder_path`` and a ``files_folder_links`` row.
Doing the same keeps files uploaded here where Strapi's media library shows them after the
way back; the Content API answers do not show folders either way.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import dialect_of
from contentapi.db.system import core_store
from contentapi.db.tables import ContentTables
from contentapi.schema.builtin import FOLDER_UID

__all__ = ["API_FOLDER_KEY", "UploadFolder", "api_upload_folder", "file_in_folder"]

API_FOLDER_KEY = "plugin_upload_api-folder"
_BASE_NAME = "API Uploads"
_LOCK_KEY = 0x636F6E66  # one advisory lock id for creating the folder on PostgreSQL


async def _stored_folder_id(conn: AsyncConnection) -> tuple[bool, int | None]:
    value = (
        await conn.execute(select(core_store.c.value).where(core_store.c.key == API_FOLDER_KEY))
    ).first()
    if value is None:
        return False, None
    try:
        folder_id = json.loads(value[0] or "null")
    except ValueError:
        return True, None
    found = folder_id.get("id") if isinstance(folder_id, dict) else None
    return True, found if isinstance(found, int) else None


class UploadFolder(NamedTuple):
    id: int
    path: str
    #: made by this call (Strapi's first API upload sends its ``entry.create``)
    created: bool


async def api_upload_folder(conn: AsyncConnection, tables: ContentTables) -> UploadFolder:
    """The API uploads folder's id and path, created (and remembered) as Strapi does."""
    folders = tables.entity(FOLDER_UID)
    await dialect_of(conn).lock(conn, _LOCK_KEY)
    stored, folder_id = await _stored_folder_id(conn)
    if folder_id is not None:
        row = (
            await conn.execute(
                select(folders.c.id, folders.c.path).where(folders.c.id == folder_id)
            )
        ).first()
        if row is not None:
            return UploadFolder(int(row.id), str(row.path), created=False)
    root_names = set(
        (
            await conn.execute(
                select(folders.c.name).where(
                    ~folders.c.id.in_(
                        select(tables.links["upload_folders_parent_links"].c.folder_id)
                    )
                )
            )
        ).scalars()
    )
    name, index = _BASE_NAME, 1
    while name in root_names:
        name, index = f"{_BASE_NAME} ({index})", index + 1
    path_id = int((await conn.execute(select(func.max(folders.c.path_id)))).scalar() or 0) + 1
    now = datetime.now(UTC).replace(tzinfo=None)
    created = await conn.execute(
        folders.insert()
        .values(name=name, path_id=path_id, path=f"/{path_id}", created_at=now, updated_at=now)
        .returning(folders.c.id)
    )
    folder_id = int(created.scalar_one())
    value = json.dumps({"id": folder_id}, separators=(",", ":"))
    if stored:
        await conn.execute(
            core_store.update().where(core_store.c.key == API_FOLDER_KEY).values(value=value)
        )
    else:
        await conn.execute(
            core_store.insert().values(key=API_FOLDER_KEY, value=value, type="object")
        )
    return UploadFolder(folder_id, f"/{path_id}", created=True)


async def file_in_folder(
    conn: AsyncConnection, tables: ContentTables, file_ids: list[int], folder_id: int
) -> None:
    """Link new files to the folder, after the files it already holds."""
    links = tables.links["files_folder_links"]
    last = (
        await conn.execute(
            select(func.max(links.c.file_order)).where(links.c.folder_id == folder_id)
        )
    ).scalar()
    rows: list[dict[str, Any]] = [
        {"file_id": file_id, "folder_id": folder_id, "file_order": float(last or 0) + index}
        for index, file_id in enumerate(file_ids, start=1)
    ]
    await conn.execute(links.insert(), rows)
