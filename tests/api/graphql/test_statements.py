"""No N+1 in GraphQL: a nested list costs the same statements for 5 rows or 100."""

from __future__ import annotations

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
    # on SQLite one per relation, the join rows, then seo, quote and rich-text)
    assert len(large) == (5 if backend == "postgres" else 10), large
    articles = body["data"]["articles"]["data"]
    assert len(articles) == 100
    assert articles[99]["attributes"]["blocks"][0]["author"]["data"]["attributes"]["name"] == "A"


async def test_count_only_when_pagination_is_selected(app, statements):
    await _seed(app, 3)
    query = "{ articles { data { id } } }"
    async with statements.recording() as recorded:
        response = await app.client.post("/graphql", json={"query": query}, headers=ADMIN)
    assert response.status_code == 200
    content = [s for s in recorded if not s.startswith("BEGIN") and "strapi_api_tokens" not in s]
    assert len(content) == 1 and "count" not in content[0].lower()
