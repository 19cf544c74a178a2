"""Built populate statements are cached per relation, node and publication state
(query/populate/): the same request shape with other values must still read other rows."""

from __future__ import annotations

from typing import Any


async def _names(client: Any, admin: dict[str, str], query: str) -> list[list[str]]:
    response = await client.get(f"/api/authors?sort=id&{query}", headers=admin)
    assert response.status_code == 200, response.text
    return [
        sorted(a["attributes"]["title"] for a in entry["attributes"]["articles"]["data"])
        for entry in response.json()["data"]
    ]


async def test_cached_populate_statements_take_each_requests_values(app, client, admin):
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "a@x.io"})
    await entries.create("api::author.author", {"name": "Bob", "email": "b@x.io"})
    for title, author in (("Alpha one", 1), ("Beta two", 1), ("Gamma three", 2)):
        await entries.create("api::article.article", {"title": title, "author": author})
    by_title = "populate[articles][filters][title][$startsWith]={}"
    assert await _names(client, admin, by_title.format("Al")) == [["Alpha one"], []]
    assert await _names(client, admin, by_title.format("Ga")) == [[], ["Gamma three"]]
    assert await _names(client, admin, by_title.format("Al")) == [["Alpha one"], []]
    listed = (
        "populate[articles][filters][title][$in][0]={}&populate[articles][filters][title][$in][1]=x"
    )
    assert await _names(client, admin, listed.format("Beta two")) == [["Beta two"], []]
    assert await _names(client, admin, listed.format("Gamma three")) == [[], ["Gamma three"]]
    both = "populate[articles][sort]=title:desc"
    assert await _names(client, admin, both) == [["Alpha one", "Beta two"], ["Gamma three"]]
    # drafts: the publication state is part of the key
    await entries.update("api::article.article", 2, {"publishedAt": None})
    live = await _names(client, admin, "populate[articles]=true")
    preview = await _names(client, admin, "populate[articles]=true&publicationState=preview")
    assert live == [["Alpha one"], ["Gamma three"]]
    assert preview == [["Alpha one", "Beta two"], ["Gamma three"]]


async def _titles(client: Any, admin: dict[str, str], query: str) -> tuple[list[str], int]:
    response = await client.get(f"/api/articles?sort=id&{query}", headers=admin)
    assert response.status_code == 200, response.text
    body = response.json()
    titles = [a["attributes"]["title"] for a in body["data"]]
    return titles, body["meta"]["pagination"]["total"]


async def test_cached_page_statements_take_each_requests_values(app, client, admin):
    entries = app.runtime.entries
    for title in ("Alpha one", "Beta two", "Gamma three", "Alpha four"):
        await entries.create("api::article.article", {"title": title})
    await entries.update("api::article.article", 4, {"publishedAt": None})
    starts = "filters[title][$startsWith]={}"
    assert await _titles(client, admin, starts.format("Al")) == (["Alpha one"], 1)
    assert await _titles(client, admin, starts.format("Be")) == (["Beta two"], 1)
    preview = starts.format("Al") + "&publicationState=preview"
    assert await _titles(client, admin, preview) == (["Alpha one", "Alpha four"], 2)
    assert await _titles(client, admin, "pagination[pageSize]=1&pagination[page]=2") == (
        ["Beta two"],
        3,
    )
    assert await _titles(client, admin, "pagination[pageSize]=1&pagination[page]=3") == (
        ["Gamma three"],
        3,
    )
    assert await _titles(client, admin, "locale=fr") == ([], 0)
    listed = "filters[title][$in][0]={}&filters[title][$in][1]=x"
    assert await _titles(client, admin, listed.format("Beta two")) == (["Beta two"], 1)
    assert await _titles(client, admin, listed.format("Gamma three")) == (["Gamma three"], 1)
