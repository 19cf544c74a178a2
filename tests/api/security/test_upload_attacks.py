"""Hostile uploads: decompression bombs, polyglots, and path tricks in every name field.

- A bomb (a tiny file declaring more pixels than ``upload/images.py``'s ``MAX_PIXELS``, in any
  format Pillow reads) is 400 ``Image is too large`` before a pixel is decoded; nothing stored.
- A polyglot (bytes that are two things at once: an image with a script or an HTML page or a
  zip after it) is stored and served as what its bytes begin as — the sniffed type, never the
  client's name or ``Content-Type`` — with ``nosniff``, so no browser runs it as a script or a
  page.
- Names (the part's file name, ``fileInfo.name``, ``alternativeText``, ``caption``,
  ``folder``, extra form fields) are text in the row: the stored file's key is made by the
  server (``<slug>_<random>.<sniffed ext>``), directly in the uploads folder, whatever they say.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from contentapi.upload.images import MAX_PIXELS, ImageTooLargeError, inspect_image

#: Pillow warns when it opens a bomb of less than twice its cap (the server refuses it then).
pytestmark = pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")

SANDBOX = "default-src 'none'; sandbox"
KEY = re.compile(r"^[A-Za-z0-9_-]+\.[a-z0-9]{1,10}$")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(width: int, height: int, *, rows: int | None = None) -> bytes:
    """A 1-bit grey PNG declaring ``width x height``, its rows zeros (``rows`` of them: all by
    default, a real bomb — a few kB that decode to ``width * height`` pixels)."""
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    row = b"\x00" * (1 + (width + 7) // 8)
    count = height if rows is None else rows
    data = zlib.compress(row * count, 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )


def gif_bomb(width: int, height: int) -> bytes:
    screen = struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02\x02\x44\x01\x00"
    return b"GIF89a" + screen + frame + b"\x3b"


def bmp_bomb(width: int, height: int) -> bytes:
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + 16, 0, 0, 54) + info + b"\x00" * 16


def tiff_bomb(width: int, height: int) -> bytes:
    tags = [
        (256, 4, 1, width),  # ImageWidth
        (257, 4, 1, height),  # ImageLength
        (258, 3, 1, 8),  # BitsPerSample
        (259, 3, 1, 1),  # no compression
        (262, 3, 1, 1),  # black is zero
        (273, 4, 1, 8),  # StripOffsets
        (277, 3, 1, 1),  # SamplesPerPixel
        (278, 4, 1, height),  # RowsPerStrip
        (279, 4, 1, width * height % 2**32),  # StripByteCounts
    ]
    ifd = struct.pack("<H", len(tags))
    for tag, kind, count, value in tags:
        packed = struct.pack("<HI", value, 0)[:4] if kind == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, count) + packed
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00\x00\x00\x00"


def webp_bomb(width: int, height: int) -> bytes:
    vp8x = (
        b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    )
    body = b"WEBP" + b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x
    return b"RIFF" + struct.pack("<I", len(body)) + body


#: Just over the cap (1.28 times: in Pillow's warn-only zone, the one its own check lets
#: through) and far over it.
OVER = (8000, 8000)
assert MAX_PIXELS < OVER[0] * OVER[1] < 2 * MAX_PIXELS
HUGE = (65535, 65535)

BOMBS = {
    "png, real, over the cap": png_bomb(*OVER),
    "png, header, huge": png_bomb(100_000, 100_000, rows=1),
    "gif, over the cap": gif_bomb(*OVER),
    "gif, huge": gif_bomb(*HUGE),
    "bmp, over the cap": bmp_bomb(*OVER),
    "tiff, huge": tiff_bomb(100_000, 100_000),
    "tiff, over the cap": tiff_bomb(*OVER),
    "webp, huge": webp_bomb(16383, 16383),
}


@pytest.mark.parametrize("name", list(BOMBS))
def test_a_bomb_is_refused_before_decoding(name, monkeypatch):
    def never(self):
        raise AssertionError("decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", never)
    with pytest.raises(ImageTooLargeError):
        inspect_image(io.BytesIO(BOMBS[name]))


async def test_bombs_are_400_and_store_nothing(app, client, admin, unchanged):
    assert len(BOMBS["png, real, over the cap"]) < 20_000  # tiny, yet 64 million pixels
    async with unchanged(app):
        for name, content in BOMBS.items():
            response = await client.post(
                "/api/upload",
                files=[("files", (f"{name}.img", content, "image/png"))],
                headers=admin,
            )
            assert response.status_code == 400, (name, response.text)
            error = response.json()["error"]
            assert error["name"] == "ValidationError"
            assert error["message"].startswith("Image is too large: "), (name, error)
            assert "50,000,000 pixels" in error["message"]


def _image(kind: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), (9, 9, 9)).save(buffer, format=kind)
    return buffer.getvalue()


def _zip() -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.html", "<script>alert(1)</script>")
    return buffer.getvalue()


SCRIPT = b"<html><script>alert(document.domain)</script></html>"
POLYGLOTS = [
    # (name the client gives, its Content-Type, bytes, stored mime, stored ext)
    ("evil.js", "text/javascript", _image("GIF") + b"*/=alert(1);//", "image/gif", ".gif"),
    ("page.html", "text/html", _image("PNG") + SCRIPT, "image/png", ".png"),
    ("archive.zip", "application/zip", _image("JPEG") + _zip(), "image/jpeg", ".jpg"),
    ("page.html", "text/html", SCRIPT + _image("PNG"), "application/octet-stream", ".bin"),
]


@pytest.mark.parametrize("name, declared, content, mime, ext", POLYGLOTS)
async def test_a_polyglot_is_stored_and_served_as_its_sniffed_type(
    client, admin, name, declared, content, mime, ext
):
    response = await client.post(
        "/api/upload", files=[("files", (name, content, declared))], headers=admin
    )
    assert response.status_code == 200, response.text
    stored = response.json()[0]
    assert (stored["mime"], stored["ext"]) == (mime, ext)
    assert stored["url"].endswith(ext)
    served = await client.get(stored["url"])
    assert served.status_code == 200
    assert served.content == content
    assert served.headers["content-type"].split(";")[0] == mime
    assert served.headers["x-content-type-options"] == "nosniff"
    if not mime.startswith("image/"):  # bytes: a download, in a sandbox if opened
        assert served.headers["content-disposition"] == "attachment"
        assert SANDBOX in served.headers.get_list("content-security-policy")


async def test_a_script_behind_an_image_signature_is_refused(app, client, admin, unchanged):
    """``GIF89a`` and then JavaScript: no image at all, so not stored as one."""
    fake = b"GIF89a/*\x00\x00*/=1;alert(document.domain)//"
    async with unchanged(app):
        response = await client.post(
            "/api/upload", files=[("files", ("x.gif", fake, "image/gif"))], headers=admin
        )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "File is not a valid image"


HOSTILE_NAMES = [
    "../../../escape.txt",
    "..\\..\\escape.txt",
    "/etc/cron.d/escape",
    "C:\\Windows\\escape.txt",
    "a\x00b.txt",
    "\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fescape.txt",  # fullwidth ../../ (NFKC)
    "..\u2215..\u2215escape.txt",  # division slash
    "e\u0301scape\u202egnp.txt",  # combining accent, right-to-left override
    "x" * 10_000 + ".txt",
    "y" * 300 + ".txt",  # longer than the name column: cut to 200 characters
    "",
    ".",
    "..",
    ".htaccess",
    "CON",
    "%2e%2e%2fescape.txt",
]


def _refused_file_name(name: str) -> bool:
    """A 10 kB file name is over the multipart parser's header line limit (400 ``Invalid
    multipart body``); a part with an empty file name is no file (what a browser sends when
    none was chosen): 400 ``Files are empty``."""
    return len(name) > 1000 or not name


@pytest.fixture
async def nested(start_app, tmp_path):
    """An app whose uploads folder is deep inside ``tmp_path``, to see anything written
    beside it."""
    root = tmp_path / "a" / "b" / "uploads"
    return await start_app(uploads_dir=root)


def _files_under(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


async def test_no_name_field_decides_where_a_file_is_stored(nested, tmp_path):
    client, root = nested.client, nested.runtime.settings.uploads_dir
    admin = {"Authorization": "Bearer test-admin-token"}
    keys: set[str] = set()
    for hostile in HOSTILE_NAMES:
        info = {
            "name": hostile[:255],
            "alternativeText": hostile[:255],
            "caption": hostile[:255],
            "folder": hostile,
            "path": hostile,
        }
        response = await client.post(
            "/api/upload",
            files=[("files", (hostile, b"payload", "text/plain"))],
            data={"fileInfo": json.dumps(info), "path": hostile, "folder": hostile},
            headers=admin,
        )
        if "\x00" in hostile or _refused_file_name(hostile):  # a text column cannot hold NUL
            assert response.status_code == 400, (hostile, response.text)
            assert response.json()["error"]["name"] == "ValidationError"
        else:
            assert response.status_code == 200, (hostile, response.text)
            stored = response.json()[0]
            key = stored["url"].removeprefix("/uploads/")
            assert KEY.match(key), key
            keys.add(key)
            assert stored["name"] == hostile[:255]  # kept as text, used for nothing on disk
            assert (stored["alternativeText"], stored["caption"]) == (hostile[:255],) * 2
            assert (await client.get(stored["url"])).content == b"payload"
        # nothing anywhere under tmp_path but the keys, directly in the uploads folder
        assert {p.relative_to(root).as_posix() for p in _files_under(tmp_path)} == keys


async def test_the_parts_file_name_alone_never_decides_where_either(nested, tmp_path):
    client, root = nested.client, nested.runtime.settings.uploads_dir
    admin = {"Authorization": "Bearer test-admin-token"}
    keys: set[str] = set()
    for hostile in HOSTILE_NAMES:
        response = await client.post(
            "/api/upload",
            files=[("files", (hostile, _image("PNG"), "image/png"))],
            headers=admin,
        )
        if _refused_file_name(hostile):
            assert response.status_code == 400, (hostile, response.text)
        else:
            assert response.status_code == 200, (hostile, response.text)
            stored = response.json()[0]
            assert "/" not in stored["name"] and "\\" not in stored["name"]
            assert "\x00" not in stored["name"] and len(stored["name"]) <= 200
            key = stored["url"].removeprefix("/uploads/")
            assert KEY.match(key) and key.endswith(".png"), key
            keys.add(key)
        assert {p.relative_to(root).as_posix() for p in _files_under(tmp_path)} == keys


async def test_an_overlong_fileinfo_text_is_400(app, client, admin, unchanged):
    for key in ("name", "alternativeText", "caption"):
        async with unchanged(app):
            response = await client.post(
                "/api/upload",
                files=[("files", ("a.txt", b"payload", "text/plain"))],
                data={"fileInfo": json.dumps({key: "x" * 256})},
                headers=admin,
            )
        assert response.status_code == 400, response.text
        assert response.json()["error"]["name"] == "ValidationError"
