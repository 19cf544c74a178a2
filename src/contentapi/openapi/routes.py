"""``/documentation``: the OpenAPI document and a Swagger UI page for it, served offline.

The page's assets (Swagger UI 5, which reads OpenAPI 3.1) come from the ``fastapi-offline``
package and are served by us, so the page needs no network beyond this server. The page has
no inline script — its start-up code is a file of ours — so it runs under the same
``script-src 'self'`` policy as every other answer (``http/security_headers.py``).

    app.include_router(build_documentation_router(runtime.registry, settings))
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, HTMLResponse, Response

from contentapi.config import Settings
from contentapi.errors import NotFoundError
from contentapi.openapi.document import openapi_bytes
from contentapi.rest.customize import RestCustomization
from contentapi.schema.registry import Registry

__all__ = ["DOCUMENT_PATH", "PAGE_PATH", "build_documentation_router"]

PAGE_PATH = "/documentation"
DOCUMENT_PATH = "/documentation/openapi.json"
_ASSETS_PATH = "/documentation/assets"

#: The files of the page, by the name they are served under.
_PACKAGE_ASSETS = {
    "swagger-ui-bundle.js": ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    "swagger-ui.css": ("swagger-ui.css", "text/css; charset=utf-8"),
    "favicon.png": ("favicon.png", "image/png"),
}

_INITIALIZER = f"""\
window.addEventListener("load", function () {{
  window.ui = SwaggerUIBundle({{
    url: "{DOCUMENT_PATH}",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  }});
}});
""".encode()

_PAGE = f"""\
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>contentapi — API documentation</title>
  <link rel="icon" type="image/png" href="{_ASSETS_PATH}/favicon.png">
  <link rel="stylesheet" href="{_ASSETS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{_ASSETS_PATH}/swagger-ui-bundle.js"></script>
  <script src="{_ASSETS_PATH}/initializer.js"></script>
</body>
</html>
"""


def _assets_folder() -> Path:
    return Path(str(files("fastapi_offline") / "static"))


def build_documentation_router(
    registry: Registry, settings: Settings, customization: RestCustomization | None = None
) -> APIRouter:
    """The routes, with the document serialized now (it is static per Registry)."""
    document = openapi_bytes(registry, settings, customization)
    folder = _assets_folder()
    missing = [name for name, _ in _PACKAGE_ASSETS.values() if not (folder / name).is_file()]
    if missing:  # a fastapi-offline release that moved its files: fail at start, not per page
        raise RuntimeError(f"fastapi-offline ships no {', '.join(missing)} in {folder}")
    router = APIRouter()

    @router.get(DOCUMENT_PATH)
    async def openapi_document() -> Response:
        return Response(document, media_type="application/json")

    @router.get(PAGE_PATH)
    async def page() -> Response:
        return HTMLResponse(_PAGE)

    @router.get(f"{_ASSETS_PATH}/initializer.js")
    async def initializer() -> Response:
        return Response(_INITIALIZER, media_type="text/javascript; charset=utf-8")

    @router.get(f"{_ASSETS_PATH}/{{name}}")
    async def asset(name: str) -> Response:
        found = _PACKAGE_ASSETS.get(name)
        if found is None:
            raise NotFoundError()
        filename, media_type = found
        return FileResponse(
            folder / filename,
            media_type=media_type,
            headers={"cache-control": "public, max-age=86400"},
        )

    return router
