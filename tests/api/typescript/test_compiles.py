"""Real answers of every content type, written as JSON literals typed with the generated
declarations, compile under ``tsc --strict``: the declarations describe what the server
answers, not only what the OpenAPI document says."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from contentapi.models import load_models
from contentapi.schema.type_names import type_name
from contentapi.typescript import typescript_declarations
from tests.conftest import MODELS, make_settings

NPX = shutil.which("npx")
pytestmark = pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed")


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (30, 20), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def _tsc(folder: Path) -> subprocess.CompletedProcess[str]:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "npm"
    return subprocess.run(
        [
            NPX or "npx",
            "--yes",
            "-p",
            "typescript@5",
            "tsc",
            "--noEmit",
            "--strict",
            "--target",
            "es2020",
            "contentapi.d.ts",
            "client.ts",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NPM_CONFIG_CACHE": str(cache), "NPM_CONFIG_UPDATE_NOTIFIER": "false"},
    )


async def _seed(client, admin) -> None:
    async def post(url: str, body: dict[str, Any]) -> int:
        response = await client.post(url, json=body, headers=admin)
        assert response.status_code == 200, response.text
        return response.json()["data"]["id"]

    uploaded = await client.post(
        "/api/upload", files=[("files", ("red.png", _png(), "image/png"))], headers=admin
    )
    assert uploaded.status_code == 200, uploaded.text
    file_id = uploaded.json()[0]["id"]
    author = await post("/api/authors", {"data": {"name": "Ann", "email": "ann@example.com"}})
    category = await post("/api/categories", {"data": {"name": "News", "slug": "news"}})
    article = await post(
        "/api/articles",
        {
            "data": {
                "title": "Hello world",
                "kind": "news",
                "views": "9007199254740993",
                "rating": 4.5,
                "metadata": {"a": [1, None]},
                "author": author,
                "categories": {"connect": [category]},
                "cover": file_id,
                "gallery": [file_id],
                "seo": {"metaTitle": "Hi", "keywords": [{"label": "a", "url": "/a"}]},
                "blocks": [
                    {"__component": "blocks.quote", "body": "Quoted", "author": author},
                    {"__component": "blocks.media", "file": file_id},
                ],
            }
        },
    )
    response = await client.post(
        f"/api/articles/{article}/localizations",
        json={"locale": "fr", "title": "Bonjour"},
        headers=admin,
    )
    assert response.status_code == 200, response.text
    response = await client.put(
        "/api/global",
        json={"data": {"siteName": "Blog", "favicon": file_id, "defaultSeo": {"metaTitle": "B"}}},
        headers=admin,
    )
    assert response.status_code == 200, response.text


async def test_real_answers_compile_against_the_declarations(app, client, admin, tmp_path):
    await _seed(client, admin)
    registry = app.runtime.registry
    lines = ['import type * as T from "./contentapi";', ""]
    for uid in sorted(registry.content_types):
        content_type = registry.content_types[uid]
        if content_type.is_builtin:
            continue
        name = type_name(content_type)
        if content_type.is_single:
            url, shape = f"/api/{content_type.singular_name}?populate=*", "Response"
        else:
            url, shape = f"/api/{content_type.plural_name}?populate=*", "ListResponse"
        response = await client.get(url, headers=admin)
        assert response.status_code == 200, f"{url}: {response.text}"
        answer = json.dumps(response.json(), indent=2)
        lines.append(f"export const {name[0].lower()}{name[1:]}: T.{name}{shape} = {answer};")
    # one deep read: to-many count, nested populate, localizations
    article = (await client.get("/api/articles?locale=en", headers=admin)).json()["data"][0]["id"]
    deep = await client.get(
        f"/api/articles/{article}?populate[author][populate]=*&populate[categories][count]=true"
        "&populate[blocks][populate]=*&populate[seo][populate]=*&populate[localizations]=true",
        headers=admin,
    )
    assert deep.status_code == 200, deep.text
    lines.append(f"export const deep: T.ArticleResponse = {json.dumps(deep.json(), indent=2)};")
    lines.append(
        "export const query: { filters: T.ArticleFilters; populate: T.ArticlePopulate } = "
        '{ filters: { title: { $containsi: "hello" }, views: { $between: ["1", "9"] }, '
        '$or: [{ rating: { $gt: 3 } }, { author: { name: { $eq: "Ann" } } }] }, '
        'populate: ["author", "blocks"] };'
    )
    lines.append(
        'export const body: T.ArticleCreateRequest = { data: { title: "t", author: 1, '
        "categories: { connect: [{ id: 2, position: { before: 1 } }] }, "
        'blocks: [{ __component: "blocks.quote", body: "q" }] } };'
    )
    (tmp_path / "contentapi.d.ts").write_text(
        typescript_declarations(registry, app.runtime.settings.locale_codes)
    )
    (tmp_path / "client.ts").write_text("\n".join(lines) + "\n")
    result = _tsc(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tsc_rejects_an_answer_the_declarations_do_not_allow(tmp_path):
    """The check can fail: a wrong enumeration value and a string id are errors (the
    declarations come from the models alone: no database, so it runs once)."""
    settings = make_settings("sqlite+aiosqlite://", MODELS)
    (tmp_path / "contentapi.d.ts").write_text(
        typescript_declarations(load_models(settings), settings.locale_codes)
    )
    (tmp_path / "client.ts").write_text(
        'import type * as T from "./contentapi";\n'
        'export const a: T.ArticleResponse = { data: { id: "1", attributes: { kind: "x" } }, '
        "meta: {} };\n"
    )
    result = _tsc(tmp_path)
    assert result.returncode != 0
    assert "client.ts" in result.stdout
