"""Uploads cannot run script in the API's origin (stored XSS).

A file is served as the type stored in its row (chosen from its bytes, never re-guessed from
its name), with ``nosniff``; anything a browser could execute (SVG, HTML-like text, XML, other
documents) carries ``Content-Security-Policy: default-src 'none'; sandbox`` — and, except SVG,
which must keep working in ``<img>``, ``Content-Disposition: attachment``.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

SANDBOX = "default-src 'none'; sandbox"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'
HTML = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>"


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


async def _upload(client, headers, name: str, content: bytes, client_type: str) -> dict:
    response = await client.post(
        "/api/upload", files=[("files", (name, content, client_type))], headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()[0]


def _policies(response) -> list[str]:
    return response.headers.get_list("content-security-policy")


async def test_svg_with_script_is_served_as_svg_in_a_sandbox(client, admin):
    stored = await _upload(client, admin, "logo.svg", SVG, "image/svg+xml")
    served = await client.get(stored["url"])
    assert served.status_code == 200 and served.content == SVG
    assert served.headers["content-type"] == stored["mime"] == "image/svg+xml"
    assert SANDBOX in _policies(served)
    assert served.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("name", ["page.html", "page.htm", "feed.xml"])
async def test_markup_text_is_served_as_the_stored_text_plain(client, admin, name):
    stored = await _upload(client, admin, name, HTML, "text/html")
    assert stored["mime"] == "text/plain"
    served = await client.get(stored["url"])
    assert served.status_code == 200 and served.content == HTML
    assert served.headers["content-type"] == "text/plain; charset=utf-8"
    assert served.headers["x-content-type-options"] == "nosniff"


async def test_binary_named_html_is_stored_and_served_as_bytes_to_download(client, admin):
    content = b"\xff\xfe\x80" + HTML  # not UTF-8: no text type
    stored = await _upload(client, admin, "page.html", content, "text/html")
    assert (stored["mime"], stored["ext"]) == ("application/octet-stream", ".bin")
    served = await client.get(stored["url"])
    assert served.headers["content-type"] == "application/octet-stream"
    assert served.headers["content-disposition"] == "attachment"
    assert SANDBOX in _policies(served)


async def test_unrecognised_bytes_named_png_are_not_served_as_an_image(client, admin):
    stored = await _upload(client, admin, "photo.png", b"\x00\x01not a png", "image/png")
    assert (stored["mime"], stored["ext"]) == ("application/octet-stream", ".bin")
    served = await client.get(stored["url"])
    assert served.headers["content-type"] == "application/octet-stream"


async def test_a_raster_image_is_served_inline_without_a_sandbox(client, admin):
    stored = await _upload(client, admin, "dot.png", _png(), "image/png")
    served = await client.get(stored["url"])
    assert served.headers["content-type"] == "image/png"
    assert "content-disposition" not in served.headers
    assert SANDBOX not in _policies(served)
    assert served.headers["x-content-type-options"] == "nosniff"
