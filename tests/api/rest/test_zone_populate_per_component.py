"""A dynamic zone's one populate for all its components (``populate[zone][populate]=…`` and
dotted paths through the zone) is read against each component: a name two components use for
different things (a relation in one, a text in the other) populates where it is a relation and
leaves the other alone, as Strapi's per-type query does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contentapi.app import create_app
from tests.conftest import ADMIN_TOKEN, MODELS, AppHandle, make_settings

HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

#: a second zone component whose `author` is a text, beside the quote's relation `author`
BYLINE = {
    "collectionName": "components_blocks_bylines",
    "info": {"displayName": "Byline"},
    "attributes": {"author": {"type": "string"}, "file": {"type": "string"}},
}


@pytest.fixture
async def client(databases, tmp_path: Path):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    (models / "components" / "blocks" / "byline.json").write_text(json.dumps(BYLINE))
    article = json.loads((models / "article.json").read_text())
    article["attributes"]["blocks"]["components"].append("blocks.byline")
    (models / "article.json").write_text(json.dumps(article))
    async with AppHandle(create_app(make_settings(await databases.new_url(), models))) as handle:
        yield handle.client


async def test_one_zone_populate_reads_each_component_as_its_own(client):
    made = await client.post(
        "/api/authors", json={"data": {"name": "Ann", "email": "a@x.io"}}, headers=HEADERS
    )
    ann = made.json()["data"]["id"]
    blocks = [
        {"__component": "blocks.quote", "body": "q", "author": ann},
        {"__component": "blocks.byline", "author": "by Ann", "file": "notes.txt"},
    ]
    made = await client.post(
        "/api/articles", json={"data": {"title": "Zone", "blocks": blocks}}, headers=HEADERS
    )
    assert made.status_code == 200, made.text
    path = f"/api/articles/{made.json()['data']['id']}?fields[0]=title&"
    for query in (
        "populate[blocks][populate]=author,file",
        "populate[blocks][populate][author][fields][0]=name&populate[blocks][populate][file]=true",
        "populate=blocks.author,blocks.file",
        "populate=blocks.author.profile",
    ):
        response = await client.get(path + query, headers=HEADERS)
        assert response.status_code == 200, (query, response.text)
        quote, byline = response.json()["data"]["attributes"]["blocks"]
        assert quote["author"]["data"]["id"] == ann, query
        assert (byline["author"], byline["file"]) == ("by Ann", "notes.txt"), query
