"""A read-only data set, seeded once per backend, for the query-language tests.

It mirrors the data set the reference Strapi 4.25 answered on (see each test's expectations):

| id | title | readingTime | rating | views | eventDate | featured | author | categories |
|---|---|---|---|---|---|---|---|---|
| 1 | Hello World | 5 | 4.5 | 100 | 2024-01-10 | yes | Alice | Tech, Science |
| 2 | hello again | 10 | 3 | 9007199254740993 | 2024-02-15 | no | Bob | Tech, Life |
| 3 | 100% Pure | 3 | 2.5 | 50 | 2024-03-01 | yes | Alice | Life, Science, Tech |
| 4 | snake_case Tips | 7 | - | 0 | - | no | - | Science, Tech |
| 5 | Draft Article (draft) | 5 | 1 | 5 | - | no | Bob | Tech, Life |
| 6 | ZEBRA notes | - | 5 | 7 | 2024-12-31 | no | Alice | - |
| 7 | Another Draft (draft) | 20 | - | 1 | - | no | - | - |

Live (published) articles are 1, 2, 3, 4, 6. Authors' ``socials`` (repeatable ``shared.link``):
Alice Mastodon (/m, new tab), Blog (/b), GitHub (/g, new tab); Bob Web (/w), Blog (/bob).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contentapi.app import create_app
from tests.conftest import AppHandle, Databases, make_settings

ARTICLES = [
    dict(
        title="Hello World",
        readingTime=5,
        rating=4.5,
        views="100",
        eventDate="2024-01-10",
        featured=True,
        author=1,
        categories=[1, 2],
        summary="first",
    ),
    dict(
        title="hello again",
        readingTime=10,
        rating=3,
        views="9007199254740993",
        eventDate="2024-02-15",
        featured=False,
        author=2,
        categories=[1, 3],
        summary="second",
    ),
    dict(
        title="100% Pure",
        readingTime=3,
        rating=2.5,
        views="50",
        eventDate="2024-03-01",
        featured=True,
        author=1,
        categories=[3, 2, 1],
        summary="third",
    ),
    dict(
        title="snake_case Tips",
        readingTime=7,
        rating=None,
        views="0",
        featured=False,
        categories=[2, 1],
        summary=None,
    ),
    dict(
        title="Draft Article",
        readingTime=5,
        rating=1,
        views="5",
        featured=False,
        author=2,
        categories=[1, 3],
        publishedAt=None,
    ),
    dict(
        title="ZEBRA notes",
        rating=5,
        views="7",
        eventDate="2024-12-31",
        featured=False,
        author=1,
        summary="sixth",
    ),
    dict(title="Another Draft", readingTime=20, views="1", featured=False, publishedAt=None),
]
LIVE = [1, 2, 3, 4, 6]


@pytest.fixture(scope="session")
async def seeded(databases: Databases, test_models) -> AsyncIterator[AppHandle]:
    handle = AppHandle(create_app(make_settings(await databases.new_url(), test_models)))
    await handle.__aenter__()
    entries = handle.runtime.entries
    await entries.create("api::profile.profile", {"headline": "Writer"})
    await entries.create(
        "api::author.author",
        {"name": "Alice Martin", "email": "a@x.io", "handle": "alice", "profile": 1},
    )
    await entries.create("api::author.author", {"name": "Bob", "email": "b@x.io"})
    await entries.create("api::author.author", {"name": "carol diaz", "email": "c@x.io"})
    await entries.create("api::category.category", {"name": "Tech", "slug": "tech"})
    await entries.create(
        "api::category.category", {"name": "Science", "slug": "science", "parent": 1}
    )
    await entries.create("api::category.category", {"name": "Life", "slug": "life"})
    await entries.create("api::category.category", {"name": "Empty", "slug": "empty"})
    files = handle.runtime.tables.files
    async with handle.runtime.database.write() as conn:
        await conn.execute(
            files.insert().values(
                name="pic.png",
                alternative_text=None,
                caption=None,
                width=400,
                height=300,
                formats={"thumbnail": {"ext": ".png", "url": "/uploads/thumbnail_pic.png"}},
                hash="pic_1",
                ext=".png",
                mime="image/png",
                size=32.6,
                url="/uploads/pic_1.png",
                provider="local",
            )
        )
    for index, article in enumerate(ARTICLES, start=1):
        extra = {}
        if index == 1:
            extra = {
                "cover": 1,
                "gallery": [1],
                "seo": {
                    "metaTitle": "Hello SEO",
                    "metaDescription": "desc",
                    "shareImage": 1,
                    "keywords": [{"label": "k1", "url": "/k1"}],
                },
                "links": [{"label": "Home", "url": "/"}, {"label": "Docs", "url": "/docs"}],
                "blocks": [
                    {"__component": "blocks.quote", "title": "Q1", "body": "To be", "author": 2},
                    {"__component": "blocks.rich-text", "body": "**rich**"},
                    {"__component": "blocks.media", "file": 1},
                ],
            }
        await entries.create("api::article.article", {**article, **extra})
    # After the articles, so that their links and keywords keep the ids the tests expect.
    socials = {
        1: [
            {"label": "Mastodon", "url": "/m", "newTab": True},
            {"label": "Blog", "url": "/b"},
            {"label": "GitHub", "url": "/g", "newTab": True},
        ],
        2: [{"label": "Web", "url": "/w"}, {"label": "Blog", "url": "/bob"}],
    }
    for author_id, links in socials.items():
        await entries.update("api::author.author", author_id, {"socials": links})
    yield handle
    await handle.__aexit__()


@pytest.fixture
def api(seeded: AppHandle):
    """GET a path with the admin token; returns (status, body)."""

    async def get(path: str) -> tuple[int, dict]:
        response = await seeded.client.get(
            path, headers={"Authorization": "Bearer test-admin-token"}
        )
        return response.status_code, response.json()

    return get


@pytest.fixture
def ids(api):
    """The ids a list query returns (asserting a 200)."""

    async def fetch(query: str, plural: str = "articles") -> list[int]:
        status, body = await api(f"/api/{plural}?{query}")
        assert status == 200, body
        return [entry["id"] for entry in body["data"]]

    return fetch
