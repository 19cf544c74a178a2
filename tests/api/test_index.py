"""``GET /``: a small JSON index naming the API root, GraphQL, the documentation and the
version."""

from __future__ import annotations

from contentapi import __version__


async def test_index_names_where_things_are(client):
    response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "name": "contentapi",
        "version": __version__,
        "api": "/api",
        "graphql": "/graphql",
        "documentation": "/documentation",  # served outside production by default
        "uploads": "/uploads",
    }


async def test_index_follows_the_configuration(start_app):
    handle = await start_app(graphql_enabled=False, documentation=False)
    body = (await handle.client.get("/")).json()
    assert body["graphql"] is None
    assert body["documentation"] is None
    assert (await handle.client.get("/documentation")).status_code == 404
    served = await start_app(env="production", documentation=True)
    assert (await served.client.get("/")).json()["documentation"] == "/documentation"
    assert (await served.client.get("/documentation")).status_code == 200
