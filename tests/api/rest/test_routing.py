"""Finding a content type's core route by the path (``rest/router.py``'s ``ContentRoutes``):
each shape of path, the segments that are not entry ids, a trailing slash, and what is no
route at all."""

from __future__ import annotations

import pytest

from tests.api.rest.helpers import create
from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def test_a_list_and_an_entry_are_found(client):
    entry_id = await create(client, ADMIN, "authors")
    listed = await client.get("/api/authors", headers=ADMIN)
    assert [a["id"] for a in listed.json()["data"]] == [entry_id]
    one = await client.get(f"/api/authors/{entry_id}", headers=ADMIN)
    assert one.json()["data"]["id"] == entry_id


@pytest.mark.parametrize(
    "path",
    [
        "/api/authors/1/2",  # deeper than any core path
        "/api/authors/1/localizations/x",
        "/api/global/1",  # a single type has no entry ids
        "/api/authors//1",  # an empty segment
        "/apiauthors",
    ],
)
async def test_what_is_no_core_path_is_404(client, path):
    response = await client.get(path, headers=ADMIN)
    assert response.status_code == 404
    assert response.json()["error"]["name"] == "NotFoundError"


async def test_an_entry_id_that_looks_like_a_path_template_is_an_id(client):
    """``{entry_id}`` written literally is an id (no entry has it), not the template."""
    response = await client.get("/api/authors/{entry_id}", headers=ADMIN)
    assert response.status_code in (400, 404)
    assert response.json()["data"] is None


async def test_localizations_of_an_entry_take_only_post(client):
    response = await client.get("/api/articles/1/localizations", headers=ADMIN)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


async def test_localizations_is_an_entry_id_where_the_type_has_no_such_path(client):
    """``authors`` is not localized: ``/api/authors/localizations`` is the entry
    ``localizations`` (answered as a bad id), not a route of its own."""
    response = await client.post("/api/authors/localizations", json={}, headers=ADMIN)
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == {"GET", "PUT", "DELETE"}


async def test_events_is_the_event_stream_not_an_entry(client):
    response = await client.put("/api/authors/events", json={}, headers=ADMIN)
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"


async def test_a_trailing_slash_redirects_to_the_path_without_it(client):
    response = await client.get("/api/authors/", headers=ADMIN)
    assert response.status_code == 307
    assert response.headers["location"].endswith("/api/authors")
