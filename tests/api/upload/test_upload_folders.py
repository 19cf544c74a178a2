"""Uploads go in Strapi's "API Uploads" media-library folder, as Strapi 4.25 files them.

What Strapi wrote for three uploads (the Strapi-database fixture): a folder ``API Uploads`` with
``path_id`` 1 and path ``/1``, remembered under ``plugin_upload_api-folder`` as ``{"id":1}``;
each file's ``folder_path`` is ``/1`` and ``files_folder_links`` holds it with ``file_order``
1, 2, 3. contentapi writes the same, so Strapi's media library shows these files after the way
back. (``tests/api/strapi_db`` checks an upload continues Strapi's own folder.)
"""

from __future__ import annotations

import json

from sqlalchemy import select

from contentapi.db.system import core_store
from contentapi.schema.builtin import FILE_UID, FOLDER_UID
from contentapi.upload.folders import API_FOLDER_KEY
from tests.api.upload.test_upload import png, upload


async def _state(runtime):
    files = runtime.tables.entity(FILE_UID)
    folders = runtime.tables.entity(FOLDER_UID)
    links = runtime.tables.links["files_folder_links"]
    async with runtime.database.read() as conn:
        return (
            [
                tuple(r)
                for r in await conn.execute(
                    select(files.c.id, files.c.folder_path).order_by(files.c.id)
                )
            ],
            [
                tuple(r)
                for r in await conn.execute(
                    select(
                        folders.c.id, folders.c.name, folders.c.path_id, folders.c.path
                    ).order_by(folders.c.id)
                )
            ],
            [
                tuple(r)
                for r in await conn.execute(
                    select(links.c.file_id, links.c.folder_id, links.c.file_order).order_by(
                        links.c.id
                    )
                )
            ],
            (
                await conn.execute(
                    select(core_store.c.value).where(core_store.c.key == API_FOLDER_KEY)
                )
            ).scalar(),
        )


async def test_uploads_are_filed_in_the_api_uploads_folder(app, client, admin):
    first = await upload(
        client, admin, ("a.png", png(8, 8), "image/png"), ("b.txt", b"b", "text/plain")
    )
    assert first.status_code == 200, first.text
    second = await upload(client, admin, ("c.png", png(8, 8), "image/png"))
    assert second.status_code == 200, second.text
    ids = [f["id"] for f in first.json()] + [f["id"] for f in second.json()]
    files, folders, links, stored = await _state(app.runtime)
    assert len(folders) == 1
    folder_id, name, path_id, path = folders[0]
    assert (name, path) == ("API Uploads", f"/{path_id}")
    assert files == [(file_id, path) for file_id in ids]
    assert links == [(file_id, folder_id, float(order)) for order, file_id in enumerate(ids, 1)]
    assert json.loads(stored) == {"id": folder_id}
    assert "folderPath" not in first.json()[0]  # private, as in Strapi


async def test_a_taken_name_at_the_root_gets_a_number(app, client, admin):
    folders = app.runtime.tables.entity(FOLDER_UID)
    async with app.runtime.database.write() as conn:
        await conn.execute(core_store.delete().where(core_store.c.key == API_FOLDER_KEY))
        await conn.execute(folders.insert().values(name="API Uploads", path_id=7, path="/7"))
    response = await upload(client, admin, ("a.png", png(8, 8), "image/png"))
    assert response.status_code == 200, response.text
    _, folders_now, _, stored = await _state(app.runtime)
    assert [(n, p) for _, n, _, p in folders_now] == [
        ("API Uploads", "/7"),
        ("API Uploads (1)", "/8"),
    ]
    assert json.loads(stored) == {"id": folders_now[1][0]}
