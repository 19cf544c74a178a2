"""The GraphiQL page works offline: it and every file it names come from this server, its
policy names no other origin, and its files follow the page's switch (off in production unless
``graphql_playground_always``). Checked without a browser: the page's HTML is parsed."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

from contentapi.graphql.playground import PLAYGROUND_ASSETS
from contentapi.http.security_headers import PLAYGROUND_CSP

ROOT = Path(__file__).resolve().parents[3]
ASSETS = ROOT / "src" / "contentapi" / "graphql" / "assets"
HTML = {"accept": "text/html"}
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}
#: Every source a directive may list when it names no other origin.
LOCAL_SOURCES = {"'self'", "'none'", "'unsafe-inline'", "data:", "blob:"}


class _Page(HTMLParser):
    """The page's elements: every attribute that names a URL, and each script's body."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts: list[tuple[str | None, str]] = []
        self.endpoint: str | None = None
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.urls += [value for name, value in attrs if name in {"src", "href"} and value]
        if tag == "script":
            self.scripts.append((values.get("src"), ""))
            self._in_script = True
        if values.get("id") == "graphiql":
            self.endpoint = values.get("data-endpoint")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        if self._in_script:
            src, body = self.scripts[-1]
            self.scripts[-1] = (src, body + data)


def _path_of(url: str) -> str:
    return url.split("?", 1)[0]


async def test_the_page_and_every_file_it_names_are_served_locally(client):
    page = await client.get("/graphql", headers=HTML)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    parsed = _Page(page.text)
    names = [_path_of(url).rsplit("/", 1)[1] for url in parsed.urls]
    assert sorted(names) == sorted(PLAYGROUND_ASSETS)  # the bundles, the styles, the init
    for url in parsed.urls:
        assert _path_of(url).startswith("/graphql/assets/"), url
        response = await client.get(url)
        assert response.status_code == 200, url
        suffix = Path(_path_of(url)).suffix
        assert response.headers["content-type"].startswith(MEDIA_TYPES[suffix]), url
        assert "max-age=31536000" in response.headers["cache-control"], url
        assert response.content == (ASSETS / Path(_path_of(url)).name).read_bytes(), url


async def test_the_page_names_no_external_url(client):
    page = await client.get("/graphql", headers=HTML)
    parsed = _Page(page.text)
    assert parsed.urls
    for url in parsed.urls:
        assert url.startswith("/") and not url.startswith("//"), url
    assert not re.search(r"[a-z]+://|//[a-z0-9.-]+\.[a-z]", page.text, re.I)


async def test_the_page_has_no_inline_script(client):
    page = await client.get("/graphql", headers=HTML)
    scripts = _Page(page.text).scripts
    assert scripts and all(src and not body.strip() for src, body in scripts)
    assert "style=" not in page.text  # the page's own styles are a file too


async def test_the_page_policy_names_no_external_origin(client):
    page = await client.get("/graphql", headers=HTML)
    assert page.headers.get_list("content-security-policy") == [PLAYGROUND_CSP]
    directives = {}
    for part in PLAYGROUND_CSP.split(";"):
        name, _, sources = part.strip().partition(" ")
        directives[name] = sources.split()
    for name, sources in directives.items():
        assert set(sources) <= LOCAL_SOURCES, (name, sources)
    assert directives["script-src"] == ["'self'"]  # no inline script, no eval
    assert directives["connect-src"] == ["'self'"]  # the queries go to this server only


async def test_the_bundles_are_the_real_ones(client):
    page = await client.get("/graphql", headers=HTML)
    bodies = {}
    for url in _Page(page.text).urls:
        bodies[_path_of(url).rsplit("/", 1)[1]] = (await client.get(url)).content
    graphiql = bodies["graphiql.min.js"]
    assert len(graphiql) > 500_000 and b"createFetcher" in graphiql  # not a stub
    assert b'version="18.' in bodies["react.production.min.js"]
    assert b"createRoot" in bodies["react-dom.production.min.js"]
    assert b".graphiql-container" in bodies["graphiql.min.css"]
    assert b"dataset.endpoint" in bodies["graphiql-init.js"]


async def test_an_unknown_file_is_a_404(client):
    response = await client.get("/graphql/assets/graphiql.min.js.map")
    assert response.status_code == 404
    assert response.json()["error"]["name"] == "NotFoundError"


async def test_the_files_follow_the_page_switch(start_app):
    production = await start_app(env="production")
    response = await production.client.get("/graphql/assets/graphiql.min.js")
    assert response.status_code == 404
    assert response.json()["error"]["status"] == 404
    always = await start_app(env="production", graphql_playground_always=True)
    page = await always.client.get("/graphql", headers=HTML)
    assert page.status_code == 200
    for url in _Page(page.text).urls:
        assert (await always.client.get(url)).status_code == 200, url


async def test_a_moved_endpoint_takes_its_page_files_along(start_app):
    moved = await start_app(graphql_endpoint="/api/graphql")
    page = await moved.client.get("/api/graphql", headers=HTML)
    parsed = _Page(page.text)
    assert parsed.endpoint == "/api/graphql"  # what graphiql-init.js sends the queries to
    for url in parsed.urls:
        assert url.startswith("/api/graphql/assets/"), url
        assert (await moved.client.get(url)).status_code == 200, url
    assert (await moved.client.get("/graphql/assets/graphiql.min.js")).status_code == 404


def test_every_file_of_the_page_is_package_data():
    """An installed wheel has the files only if ``pyproject.toml`` names them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["contentapi"]
    package = ASSETS.parents[1]
    for path in ASSETS.iterdir():
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative
    assert set(PLAYGROUND_ASSETS) <= {path.name for path in ASSETS.iterdir()}
