"""The GraphiQL page of the GraphQL endpoint and the files it loads, all served by us.

GraphiQL 3, React 18 and ReactDOM 18 are vendored in ``graphql/assets/`` (their README says
which versions and how to refresh them): the page works without network beyond this server,
as ``/documentation`` does (``openapi/routes.py``). Its start-up code is a file of ours, not an
inline script, so ``PLAYGROUND_CSP`` (``http/security_headers.py``) names no origin but ours.

Each URL the page names carries a digest of the file (``?v=…``), computed once at start-up, so
the files can be cached for a year and a refreshed file is still fetched anew.

    playground = build_playground("/graphql")
    router.include_router(playground.router)  # the files
    HTMLResponse(playground.page)  # the page, for a browser's GET of the endpoint
"""

from __future__ import annotations

import hashlib
import html
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, Response

from contentapi.errors import NotFoundError

__all__ = ["PLAYGROUND_ASSETS", "Playground", "assets_path", "build_playground"]

_JS = "text/javascript; charset=utf-8"
_CSS = "text/css; charset=utf-8"

#: The files the page loads, by name (served under ``<endpoint>/assets/<name>``), in the order
#: the page names them: GraphiQL's UMD bundle needs React and ReactDOM as globals before it.
PLAYGROUND_ASSETS: dict[str, str] = {
    "graphiql.min.css": _CSS,
    "graphiql-page.css": _CSS,
    "react.production.min.js": _JS,
    "react-dom.production.min.js": _JS,
    "graphiql.min.js": _JS,
    "graphiql-init.js": _JS,
}

#: The names carry no version, the URLs do (``?v=``): a year, and never revalidated.
_CACHE_CONTROL = "public, max-age=31536000, immutable"


@dataclass(frozen=True, slots=True)
class _Asset:
    path: Path
    media_type: str
    digest: str


def _assets_folder() -> Path:
    return Path(str(files("contentapi.graphql") / "assets"))


def _load_assets() -> dict[str, _Asset]:
    """Each asset with its digest; a missing file (a broken install) fails at start-up."""
    folder = _assets_folder()
    assets = {}
    for name, media_type in PLAYGROUND_ASSETS.items():
        path = folder / name
        if not path.is_file():
            raise RuntimeError(f"the GraphiQL page's {name} is missing from {folder}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        assets[name] = _Asset(path, media_type, digest)
    return assets


def assets_path(endpoint: str) -> str:
    """Where the page's files are served: beside the endpoint, so a moved endpoint
    (``CONTENTAPI_GRAPHQL_ENDPOINT``) takes them along."""
    return f"{endpoint.rstrip('/')}/assets"


def _page(endpoint: str, assets: dict[str, _Asset]) -> str:
    base = assets_path(endpoint)

    def url(name: str) -> str:
        return html.escape(f"{base}/{name}?v={assets[name].digest}")

    styles = "".join(
        f'<link rel="stylesheet" href="{url(name)}">\n'
        for name, media_type in PLAYGROUND_ASSETS.items()
        if media_type == _CSS
    )
    scripts = "".join(
        f'<script src="{url(name)}"></script>\n'
        for name, media_type in PLAYGROUND_ASSETS.items()
        if media_type == _JS
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>contentapi GraphQL</title>\n{styles}</head>\n<body>\n"
        f'<div id="graphiql" data-endpoint="{html.escape(endpoint)}"></div>\n'
        f"{scripts}</body>\n</html>\n"
    )


@dataclass(frozen=True, slots=True)
class Playground:
    """The page's HTML (for the endpoint it queries) and the routes of its files."""

    page: str
    router: APIRouter


def build_playground(endpoint: str) -> Playground:
    """Built once, and only where the page is served (outside production, or with
    ``CONTENTAPI_GRAPHQL_PLAYGROUND_ALWAYS``): elsewhere the files are not served either."""
    assets = _load_assets()
    router = APIRouter()

    @router.get(f"{assets_path(endpoint)}/{{name}}")
    async def playground_asset(name: str) -> Response:
        asset = assets.get(name)
        if asset is None:
            raise NotFoundError()
        return FileResponse(
            asset.path, media_type=asset.media_type, headers={"cache-control": _CACHE_CONTROL}
        )

    return Playground(_page(endpoint, assets), router)
