"""``POST /api/upload?id=N`` with one file replaces the file's bytes, as Strapi 4.25's
``replaceFile``: the same id, hash and extension (its URL stays), the new name, type, size,
dimensions and formats, the old formats the new file has not removed; the change feed gets
``entry.update`` (model ``file``) and ``media.update``."""

from __future__ import annotations

import json

from sqlalchemy import select

from contentapi.db.system import events
from tests.api.upload.test_upload import png, stored, upload


async def test_a_file_is_replaced_in_place(app, client, admin):
    uploaded = await upload(
        client,
        admin,
        ("photo.png", png(1200, 800), "image/png"),
        data={"fileInfo": json.dumps({"alternativeText": "A photo", "caption": "Kept"})},
    )
    photo = uploaded.json()[0]
    old_formats = {f"{f['hash']}{f['ext']}" for f in photo["formats"].values()}
    assert old_formats <= stored(app)
    replaced = await client.post(
        f"/api/upload?id={photo['id']}",
        files=[("files", ("words.txt", b"new words\n", "text/plain"))],
        data={"fileInfo": json.dumps({"alternativeText": "Words"})},
        headers=admin,
    )
    assert replaced.status_code == 200, replaced.text
    file = replaced.json()
    assert (file["id"], file["hash"], file["ext"], file["url"]) == (
        photo["id"],
        photo["hash"],
        ".png",  # kept, as Strapi keeps it: the URL does not change
        photo["url"],
    )
    assert (file["name"], file["mime"], file["width"], file["height"]) == (
        "words.txt",
        "text/plain",
        None,
        None,
    )
    assert file["formats"] == {} and file["size"] == 0.01
    assert (file["alternativeText"], file["caption"]) == ("Words", "Kept")
    served = await client.get(photo["url"])
    assert served.content == b"new words\n"
    assert not old_formats & stored(app), "the old formats are removed"
    listed = await client.get(f"/api/upload/files/{photo['id']}", headers=admin)
    assert listed.json()["name"] == "words.txt"
    async with app.runtime.database.read() as conn:
        recorded = (await conn.execute(select(events.c.event).order_by(events.c.id))).scalars()
        assert list(recorded)[-2:] == ["entry.update", "media.update"]


async def test_a_replace_with_two_files_or_of_no_file_is_refused(app, client, admin):
    uploaded = await upload(client, admin, ("a.txt", b"a", "text/plain"))
    file_id = uploaded.json()[0]["id"]
    two = await client.post(
        f"/api/upload?id={file_id}",
        files=[("files", ("b.txt", b"b", "text/plain")), ("files", ("c.txt", b"c", "text/plain"))],
        headers=admin,
    )
    assert two.status_code == 400
    assert two.json()["error"]["message"] == "Cannot replace a file with multiple ones"
    missing = await client.post(
        "/api/upload?id=999", files=[("files", ("b.txt", b"b", "text/plain"))], headers=admin
    )
    assert missing.status_code == 404
    kept = await client.get(f"/api/upload/files/{file_id}", headers=admin)
    assert kept.json()["name"] == "a.txt"
