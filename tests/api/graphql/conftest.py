"""Helpers for the GraphQL tests: one POST per operation, and a small seeded blog."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

ADMIN = {"Authorization": "Bearer test-admin-token"}


async def gql(
    client: httpx.AsyncClient,
    query: str,
    variables: dict[str, Any] | None = None,
    headers: dict[str, str] | None = ADMIN,
    status: int = 200,
) -> dict[str, Any]:
    """POST one operation; asserts the HTTP status and returns the JSON body."""
    payload: dict[str, Any] = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    response = await client.post("/graphql", json=payload, headers=headers or {})
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


async def seed_blog(app: Any) -> None:
    """Two authors, three categories, three articles (the third a draft) with components,
    a dynamic zone and relations."""
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Alice", "email": "a@x.io", "age": 30})
    await entries.create("api::author.author", {"name": "Bob", "email": "b@x.io", "age": 40})
    for name in ("Tech", "Life", "Science"):
        await entries.create("api::category.category", {"name": name, "slug": name.lower()})
    await entries.create(
        "api::article.article",
        {
            "title": "Hello World",
            "views": "9007199254740993",
            "rating": 4,
            "price": 8.25,
            "eventDate": "2024-01-10",
            "eventTime": "10:20:30",
            "scheduledAt": "2024-01-10T04:00:00Z",
            "metadata": {"a": [1, 2]},
            "editorNotes": "secret",
            "author": 1,
            "categories": [1, 2],
            "seo": {"metaTitle": "hello", "keywords": [{"label": "k", "url": "/k"}]},
            "links": [{"label": f"l{n}", "url": f"/{n}"} for n in range(1, 13)][:10],
            "blocks": [
                {"__component": "blocks.quote", "body": "q1", "author": 2},
                {"__component": "blocks.rich-text", "body": "rt"},
            ],
        },
    )
    await entries.create(
        "api::article.article",
        {"title": "Second post", "views": "5", "author": 2, "categories": [3], "related": [1]},
    )
    await entries.create(
        "api::article.article", {"title": "Draft post", "author": 1, "publishedAt": None}
    )


@pytest.fixture
async def blog(app: Any) -> Any:
    await seed_blog(app)
    return app
