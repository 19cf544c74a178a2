"""No N+1: a populated list runs the same number of SQL statements for 5 rows or 100."""

from __future__ import annotations

from tests.support.reset import heard_everything

POPULATE = (
    "populate[author]=true&populate[categories]=true&populate[related]=true"
    "&populate[seo]=true&populate[blocks][populate]=*"
)


async def _seed(app, count: int) -> None:
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "A", "email": "a@x.io"})
    await entries.create("api::author.author", {"name": "B", "email": "b@x.io"})
    for number in range(1, 4):
        await entries.create("api::category.category", {"name": f"c{number}", "slug": f"c{number}"})
    for number in range(1, count + 1):
        await entries.create(
            "api::article.article",
            {
                "title": f"Article {number}",
                "author": 1 + number % 2,
                "categories": [1 + number % 3, 1 + (number + 1) % 3],
                "related": [1] if number > 1 else [],
                "seo": {"metaTitle": f"m{number}"},
                "blocks": [
                    {"__component": "blocks.quote", "body": "q", "author": 1},
                    {"__component": "blocks.rich-text", "body": "r"},
                ],
            },
        )


async def _content_statements(app, statements, query: str) -> list[str]:
    app.runtime.entries.totals.clear()  # count every time here (totals: a test of their own)
    async with statements.recording() as recorded:
        response = await app.client.get(
            f"/api/articles?{query}", headers={"Authorization": "Bearer test-admin-token"}
        )
    assert response.status_code == 200, response.text
    return [s for s in recorded if not s.startswith("BEGIN") and "strapi_api_tokens" not in s]


async def test_statement_count_does_not_grow_with_rows(app, statements, backend):
    await _seed(app, 100)
    small = await _content_statements(app, statements, f"{POPULATE}&pagination[pageSize]=5")
    large = await _content_statements(app, statements, f"{POPULATE}&pagination[pageSize]=100")
    default = await _content_statements(app, statements, POPULATE)
    assert len(small) == len(large) == len(default)
    # 1 page + 1 count + the relations (author, categories, related) + the components level +
    # the quote's author. On PostgreSQL the relations of a level are one statement, and so are
    # its components (join rows with each component's row); on SQLite one statement per
    # relation, then the join rows and one per component type (seo, quote, rich-text). SQLite
    # also reads the locales (articles are localized: the default locale may have changed, and
    # nothing tells a SQLite worker; PostgreSQL keeps them while its change listener hears).
    assert len(small) == (5 if backend == "postgres" else 11), small
    body = (
        await app.client.get(
            f"/api/articles?{POPULATE}&pagination[pageSize]=100",
            headers={"Authorization": "Bearer test-admin-token"},
        )
    ).json()
    assert len(body["data"]) == 100
    assert body["data"][99]["attributes"]["blocks"][0]["author"]["data"]["id"] == 1


async def test_a_repeated_list_reuses_its_total_until_a_write(app, statements, backend):
    """PostgreSQL keeps list totals per worker (entries/totals.py); SQLite counts every time."""
    await _seed(app, 3)
    await heard_everything(app.runtime)  # the seed's notifications would empty the totals
    app.runtime.entries.totals.clear()
    first = await _content_statements_kept(app, statements, "pagination[pageSize]=2")
    again = await _content_statements_kept(
        app, statements, "pagination[pageSize]=2&pagination[page]=2"
    )
    counted = [s for s in again if "count(" in s.lower()]
    assert any("count(" in s.lower() for s in first)
    if backend == "postgres":
        assert not counted  # the total of the first page's query is reused
    else:
        assert counted
    await app.runtime.entries.create("api::article.article", {"title": "One more"})
    response = await app.client.get(
        "/api/articles?pagination[pageSize]=2", headers={"Authorization": "Bearer test-admin-token"}
    )
    assert response.json()["meta"]["pagination"]["total"] == 4


async def _content_statements_kept(app, statements, query: str) -> list[str]:
    async with statements.recording() as recorded:
        response = await app.client.get(
            f"/api/articles?{query}", headers={"Authorization": "Bearer test-admin-token"}
        )
    assert response.status_code == 200, response.text
    assert response.json()["meta"]["pagination"]["total"] == 3
    return list(recorded)


async def test_a_sort_through_to_one_relations_joins_them(app, statements, backend):
    """``sort=author.name``: the page joins the author (one row per article, no sub-query per
    article); through a to-many relation the correlated MIN/MAX stays (query/compile.py)."""
    await _seed(app, 6)
    joined = await _content_statements(app, statements, "sort=author.name:desc&sort=title")
    page = next(s for s in joined if "LIMIT" in s)
    assert "LEFT OUTER JOIN articles_author_links" in page, page
    assert "max(" not in page.lower(), page
    many = await _content_statements(app, statements, "sort=categories.name:asc")
    page = next(s for s in many if "LIMIT" in s)
    assert "JOIN" not in page.split("ORDER BY")[0].split("WHERE")[0], page
    assert "min(" in page.lower(), page


async def test_a_page_past_the_total_is_not_read(app, statements, backend):
    """The total is known first (kept, or counted before the page): a page that starts past
    it — a filter through relations that matches nothing, a page beyond the last — answers
    empty without its page statement, with the same meta as a read page would have."""
    await _seed(app, 3)
    await heard_everything(app.runtime)
    nothing = "filters[categories][articles][title][$notContainsi]=article"
    queries = {
        nothing: {"page": 1, "pageSize": 25, "pageCount": 0, "total": 0},
        "pagination[pageSize]=2&pagination[page]=3": {
            "page": 3,
            "pageSize": 2,
            "pageCount": 2,
            "total": 3,
        },
        "pagination[start]=3&pagination[limit]=1": {"start": 3, "limit": 1, "total": 3},
    }
    for query, meta in queries.items():
        app.runtime.entries.totals.clear()
        for _ in range(2):  # counted, then (PostgreSQL) the kept total
            async with statements.recording() as recorded:
                response = await app.client.get(
                    f"/api/articles?{query}",
                    headers={"Authorization": "Bearer test-admin-token"},
                )
            assert response.status_code == 200, response.text
            assert response.json() == {"data": [], "meta": {"pagination": meta}}
            pages = [s for s in recorded if "FROM articles" in s and "count(" not in s.lower()]
            assert pages == [], pages
    # a page that starts before the total is read as always
    response = await app.client.get(
        "/api/articles?pagination[start]=2&pagination[limit]=1",
        headers={"Authorization": "Bearer test-admin-token"},
    )
    assert [entry["id"] for entry in response.json()["data"]] == [3]
