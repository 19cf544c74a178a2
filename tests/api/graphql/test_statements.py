"""No N+1 in GraphQL: a nested list costs the same statements for 5 rows or 100."""

from __future__ import annotations

import io

from PIL import Image

from tests.api.graphql.conftest import ADMIN
from tests.api.query.test_statements import _seed

NESTED = """
query Nested($size: Int) {
  articles(pagination: {pageSize: $size}) {
    data { id attributes {
      title
      author { data { id attributes { name } } }
      categories { data { id attributes { name } } }
      related { data { id } }
      seo { metaTitle }
      blocks {
        ... on ComponentBlocksQuote { body author { data { attributes { name } } } }
        ... on ComponentBlocksRichText { text: body }
      }
    } }
    meta { pagination { total } }
  }
}
"""


async def _statements(app, statements, size: int) -> tuple[list[str], dict]:
    app.runtime.entries.totals.clear()  # count every time here (totals are kept per worker)
    async with statements.recording() as recorded:
        response = await app.client.post(
            "/graphql", json={"query": NESTED, "variables": {"size": size}}, headers=ADMIN
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    content = [s for s in recorded if not s.startswith("BEGIN") and "strapi_api_tokens" not in s]
    return content, body


async def test_nested_list_statements_do_not_grow_with_rows(app, statements, backend):
    await _seed(app, 100)
    small, _ = await _statements(app, statements, 5)
    large, body = await _statements(app, statements, 100)
    assert len(small) == len(large)
    # page + count + the relations (author, categories, related) + the components level + the
    # quote's author (on PostgreSQL the relations are one statement and the components one;
    # on SQLite one per relation, the join rows, then seo, quote and rich-text, and the locales:
    # articles are localized and nothing tells a SQLite worker that the default locale changed)
    assert len(large) == (5 if backend == "postgres" else 11), large
    articles = body["data"]["articles"]["data"]
    assert len(articles) == 100
    assert articles[99]["attributes"]["blocks"][0]["author"]["data"]["attributes"]["name"] == "A"


async def test_count_only_when_pagination_is_selected(app, statements):
    await _seed(app, 3)
    query = "{ articles { data { id } } }"
    async with statements.recording() as recorded:
        response = await app.client.post("/graphql", json={"query": query}, headers=ADMIN)
    assert response.status_code == 200
    # the caller and (SQLite: on every read of a localized type) the locales aside
    content = [s for s in recorded if not s.startswith("BEGIN") and not _caller_or_locales(s)]
    assert len(content) == 1 and "count" not in content[0].lower()


def _caller_or_locales(statement: str) -> bool:
    return "strapi_api_tokens" in statement or "FROM i18n_locale" in statement


LIST_ARGUMENTS = """
query Lists($size: Int) {
  articles(pagination: {pageSize: $size}) {
    data { id attributes {
      links(sort: "label:desc", pagination: {limit: 2}) { label }
      tab: links(filters: {newTab: {eq: true}}) { url }
      seo { metaTitle }
      gallery(sort: "name:desc", filters: {width: {gt: 1}}, pagination: {limit: 1}) {
        data { id }
      }
      plain: gallery { data { attributes { name } } }
    } }
  }
}
"""


async def test_component_and_media_arguments_do_not_grow_with_rows(app, statements, client):
    """Filtered, sorted and paged repeatable components and media lists (two readings of each
    under aliases): one statement per reading per level, whatever the number of rows."""
    files = []
    for name in ("a.png", "b.png"):
        buffer = io.BytesIO()
        Image.new("RGB", (4, 4), (1, 2, 3)).save(buffer, format="PNG")
        response = await client.post(
            "/api/upload", files=[("files", (name, buffer.getvalue(), "image/png"))], headers=ADMIN
        )
        files.append(response.json()[0]["id"])
    for number in range(100):
        await app.runtime.entries.create(
            "api::article.article",
            {
                "title": f"Article {number}",
                "seo": {"metaTitle": "m"},
                "links": [
                    {"label": "x", "url": "/x", "newTab": True},
                    {"label": "y", "url": "/y"},
                    {"label": "z", "url": "/z", "newTab": True},
                ],
                "gallery": files,
            },
        )

    async def run(size: int) -> tuple[list[str], dict]:
        async with statements.recording() as recorded:
            response = await client.post(
                "/graphql",
                json={"query": LIST_ARGUMENTS, "variables": {"size": size}},
                headers=ADMIN,
            )
        body = response.json()
        assert "errors" not in body, body
        content = [s for s in recorded if not s.startswith("BEGIN") and not _caller_or_locales(s)]
        return content, body

    small, _ = await run(5)
    large, body = await run(100)
    assert len(small) == len(large)
    # the page, the component join rows, one statement per filtered or sorted links reading,
    # seo's, one for the filtered gallery and one for the plain media
    assert len(large) == 7, large
    articles = body["data"]["articles"]["data"]
    assert len(articles) == 100
    assert articles[99]["attributes"] == {
        "links": [{"label": "z"}, {"label": "y"}],
        "tab": [{"url": "/x"}, {"url": "/z"}],
        "seo": {"metaTitle": "m"},
        "gallery": {"data": [{"id": str(files[1])}]},
        "plain": {"data": [{"attributes": {"name": "a.png"}}, {"attributes": {"name": "b.png"}}]},
    }
