"""The ``aws-s3`` upload provider against a local S3 (moto's server, ``tests/support``): files
and their formats stored as objects, absolute URLs as Strapi's S3 provider makes them, read
back through those URLs, attached, deleted with every object, and all-or-nothing when the
storage fails in the middle of an upload or a delete."""

from __future__ import annotations

import io
import zipfile

import httpx
import pytest

from contentapi.config import Settings
from contentapi.upload.s3 import S3Storage
from tests.api.upload.test_upload import png, upload
from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "a")
    return buffer.getvalue()


async def _files(client: httpx.AsyncClient) -> list[dict]:
    response = await client.get("/api/upload/files", headers=ADMIN)
    assert response.status_code == 200, response.text
    return response.json()


async def test_upload_attach_read_back_and_delete(start_app, s3_emulator, s3_bucket):
    handle = await start_app(**s3_bucket)
    client, bucket = handle.client, s3_bucket["s3_bucket"]
    article = (
        await client.post("/api/articles", json={"data": {"title": "On S3"}}, headers=ADMIN)
    ).json()["data"]["id"]
    picture = png(1200, 800)
    response = await upload(
        client,
        ADMIN,
        ("photo.png", picture, "image/png"),
        data={"ref": "api::article.article", "refId": str(article), "field": "cover"},
    )
    assert response.status_code == 200, response.text
    (photo,) = response.json()
    base = f"{s3_emulator.endpoint}/{bucket}"
    assert photo["provider"] == "aws-s3"
    assert photo["url"] == f"{base}/{photo['hash']}.png"
    assert set(photo["formats"]) == {"thumbnail", "large", "medium", "small"}
    for name, rendition in photo["formats"].items():
        assert rendition["url"] == f"{base}/{name}_{photo['hash']}.png"
    keys = {f"{photo['hash']}.png"} | {f"{n}_{photo['hash']}.png" for n in photo["formats"]}
    assert s3_emulator.keys(bucket) == keys
    assert not handle.runtime.settings.uploads_dir.exists() or not any(
        handle.runtime.settings.uploads_dir.iterdir()
    )  # nothing on the local disk

    cover = (await client.get(f"/api/articles/{article}?populate=cover", headers=ADMIN)).json()
    attached = cover["data"]["attributes"]["cover"]["data"]
    assert attached["id"] == photo["id"] and attached["attributes"]["url"] == photo["url"]

    async with httpx.AsyncClient() as web:  # what a browser does with the URL
        original = await web.get(photo["url"])
        thumbnail = await web.get(photo["formats"]["thumbnail"]["url"])
    assert original.status_code == 200 and original.content == picture
    assert original.headers["content-type"] == "image/png"
    assert thumbnail.status_code == 200
    assert thumbnail.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(thumbnail.content) == photo["formats"]["thumbnail"]["sizeInBytes"]

    deleted = await client.delete(f"/api/upload/files/{photo['id']}", headers=ADMIN)
    assert deleted.status_code == 200, deleted.text
    assert s3_emulator.keys(bucket) == set()
    assert await _files(client) == []
    async with httpx.AsyncClient() as web:
        assert (await web.get(photo["url"])).status_code == 404


async def test_a_failed_format_put_leaves_no_row_and_no_object(start_app, s3_emulator, s3_bucket):
    handle = await start_app(**s3_bucket)
    bucket = s3_bucket["s3_bucket"]
    s3_emulator.fail("PUT", r"/medium_")  # the original and two formats are stored first
    response = await upload(
        handle.client,
        ADMIN,
        ("notes.txt", b"stored first\n", "text/plain"),
        ("photo.png", png(1200, 800), "image/png"),
    )
    assert response.status_code == 503, response.text
    assert response.json()["error"]["name"] == "ServiceUnavailableError"
    assert response.headers["retry-after"]
    assert s3_emulator.refused, "the emulator refused nothing: the failure was not exercised"
    assert s3_emulator.keys(bucket) == set()  # the text file and the photo's objects removed
    assert await _files(handle.client) == []
    s3_emulator.heal()
    retried = await upload(handle.client, ADMIN, ("photo.png", png(1200, 800), "image/png"))
    assert retried.status_code == 200, retried.text
    assert len(s3_emulator.keys(bucket)) == 5


async def test_a_refused_attachment_removes_the_stored_objects(start_app, s3_emulator, s3_bucket):
    handle = await start_app(**s3_bucket)
    response = await upload(
        handle.client,
        ADMIN,
        ("photo.png", png(400, 300), "image/png"),
        data={"ref": "api::article.article", "refId": "999", "field": "cover"},
    )
    assert response.status_code == 400, response.text
    assert s3_emulator.keys(s3_bucket["s3_bucket"]) == set()
    assert await _files(handle.client) == []


async def test_a_failed_object_delete_keeps_the_row(start_app, s3_emulator, s3_bucket):
    handle = await start_app(**s3_bucket)
    bucket = s3_bucket["s3_bucket"]
    (photo,) = (await upload(handle.client, ADMIN, ("p.png", png(300, 300), "image/png"))).json()
    s3_emulator.fail("DELETE", r"/")
    refused = await handle.client.delete(f"/api/upload/files/{photo['id']}", headers=ADMIN)
    assert refused.status_code == 503, refused.text
    assert [f["id"] for f in await _files(handle.client)] == [photo["id"]]
    s3_emulator.heal()
    deleted = await handle.client.delete(f"/api/upload/files/{photo['id']}", headers=ADMIN)
    assert deleted.status_code == 200
    assert s3_emulator.keys(bucket) == set() and await _files(handle.client) == []


async def test_base_url_root_path_and_stored_types(start_app, s3_emulator, s3_bucket):
    handle = await start_app(
        **s3_bucket, s3_base_url="https://cdn.example.com/", s3_root_path="/site/media/"
    )
    bucket = s3_bucket["s3_bucket"]
    made = await upload(
        handle.client,
        ADMIN,
        ("page.html", b"<p>hello</p>\n", "text/html"),
        ("bundle.zip", _zip(), "application/zip"),
    )
    assert made.status_code == 200, made.text
    page, bundle = made.json()
    assert page["url"] == f"https://cdn.example.com/site/media/{page['hash']}.html"
    assert s3_emulator.keys(bucket) == {
        f"site/media/{page['hash']}.html",
        f"site/media/{bundle['hash']}.zip",
    }
    objects = s3_emulator.client()
    html = objects.head_object(Bucket=bucket, Key=f"site/media/{page['hash']}.html")
    assert html["ContentType"] == "text/plain; charset=utf-8"  # served as text, never as HTML
    assert "ContentDisposition" not in html
    archive = objects.head_object(Bucket=bucket, Key=f"site/media/{bundle['hash']}.zip")
    assert archive["ContentType"] == "application/zip"
    assert archive["ContentDisposition"] == "attachment"  # not displayable: downloaded
    acl = objects.get_object_acl(Bucket=bucket, Key=f"site/media/{page['hash']}.html")
    assert any(
        grant["Grantee"].get("URI", "").endswith("/AllUsers") and grant["Permission"] == "READ"
        for grant in acl["Grants"]
    )  # public-read, Strapi's default ACL
    await handle.client.delete(f"/api/upload/files/{page['id']}", headers=ADMIN)
    assert s3_emulator.keys(bucket) == {f"site/media/{bundle['hash']}.zip"}


def _storage(**values: object) -> S3Storage:
    settings = Settings(upload_provider="aws-s3", s3_bucket="shop-media", **values)  # type: ignore[arg-type]
    return S3Storage(settings, client=object())


def test_urls_as_the_aws_sdk_locates_objects():
    assert _storage(s3_region="eu-west-1").url("a_1f.png") == (
        "https://shop-media.s3.eu-west-1.amazonaws.com/a_1f.png"
    )
    assert _storage(s3_endpoint="https://minio.example.com:9000/").url("a.png") == (
        "https://shop-media.minio.example.com:9000/a.png"
    )
    assert _storage(s3_endpoint="http://minio:9000", s3_force_path_style=True).url("a.png") == (
        "http://minio:9000/shop-media/a.png"
    )
    assert _storage(s3_base_url="https://cdn.example.com", s3_root_path="x").url("a.png") == (
        "https://cdn.example.com/x/a.png"
    )
    with pytest.raises(ValueError):
        _storage().url("../escape.png")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({}, "CONTENTAPI_S3_BUCKET is required"),
        ({"s3_bucket": "b", "s3_acl": "private"}, "does not sign media URLs"),
        ({"s3_bucket": "b", "s3_access_key_id": "AKIA"}, "or neither"),
    ],
)
def test_s3_settings_are_checked(values, message):
    with pytest.raises(ValueError, match=message):
        Settings(upload_provider="aws-s3", **values)
