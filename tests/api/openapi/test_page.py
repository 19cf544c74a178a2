"""``GET /documentation``: the Swagger UI page and every asset it loads come from this server
(no CDN, no network), and the page runs under the API's own script policy (no inline script)."""

from __future__ import annotations

import re


async def test_the_page_and_its_assets_are_served_offline(client):
    page = await client.get("/documentation")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert 'id="swagger-ui"' in html
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    references = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(references) == 4  # favicon, stylesheet, bundle, initializer
    bodies: dict[str, bytes] = {}
    for reference in references:
        assert reference.startswith("/documentation/assets/"), reference
        asset = await client.get(reference)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 0
        bodies[reference.rsplit("/", 1)[1]] = asset.content
    assert b"SwaggerUIBundle" in bodies["swagger-ui-bundle.js"]
    assert len(bodies["swagger-ui-bundle.js"]) > 500_000  # the real bundle, not a stub
    assert b".swagger-ui" in bodies["swagger-ui.css"]
    assert b"/documentation/openapi.json" in bodies["initializer.js"]
    assert bodies["favicon.png"].startswith(b"\x89PNG")


async def test_the_page_needs_no_inline_script(client):
    page = await client.get("/documentation")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all(
        'src="' in attributes and not body.strip() for attributes, body in scripts
    )
    assert "script-src 'self'" in page.headers["content-security-policy"]
    bundle = await client.get("/documentation/assets/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].startswith("text/javascript")


async def test_an_unknown_asset_is_a_404(client):
    response = await client.get("/documentation/assets/redoc.standalone.js")
    assert response.status_code == 404
    assert response.json()["error"]["name"] == "NotFoundError"
