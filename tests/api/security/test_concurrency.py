"""Concurrent writes, on SQLite and PostgreSQL: nothing lost, one winner where one is allowed,
the losers a 400 in the contract's shape, and never a 5xx (SQLite's "database is locked"
included: writers wait for the lock, up to ``CONTENTAPI_SQLITE_BUSY_TIMEOUT``)."""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.api.rest.helpers import create, create_many, nested

N = 20


def _statuses(responses) -> Counter[int]:
    for response in responses:
        assert response.status_code < 500, response.text
    return Counter(response.status_code for response in responses)


async def _article_orders(app, link_table: str, target_column: str, target: int) -> list[float]:
    """The inverse orders of one target's articles (its own list), sorted."""
    table = app.runtime.tables.links[link_table]
    async with app.runtime.database.read() as conn:
        rows = await conn.execute(table.select().where(table.c[target_column] == target))
        return sorted(row.article_order for row in rows)


def _one_winner(responses, later, created: int = 200) -> None:
    """One 200; every other answer exactly what the same request answers after the race
    (``later``): a 400 in the contract's shape, never a sign of the race."""
    assert _statuses(responses) == {created: 1, 400: N - 1}, [r.text for r in responses]
    assert later.status_code == 400, later.text
    assert later.json()["data"] is None
    for response in responses:
        if response.status_code == 400:
            assert response.json() == later.json()


async def test_concurrent_positioned_connects_to_one_entry_lose_nothing(app, client, admin):
    """Twenty writers connect one category each to one article, half at the start and half at
    the end: all twenty are linked, each once, and the order column is 1..20."""
    categories = await create_many(client, admin, "categories", N)
    article = await create(client, admin, "articles")

    def connect(index: int, category: int) -> dict:
        item = {"id": category, "position": {"start": True} if index % 2 else {"end": True}}
        return {"data": {"categories": {"connect": [item]}}}

    responses = await asyncio.gather(
        *(
            client.put(f"/api/articles/{article}", json=connect(i, c), headers=admin)
            for i, c in enumerate(categories)
        )
    )
    assert _statuses(responses) == {200: N}
    related = (await nested(app, "articles", article))["categories"]
    assert sorted(related) == categories
    ends = [c for i, c in enumerate(categories) if i % 2 == 0]
    starts = [c for i, c in enumerate(categories) if i % 2]
    # Whatever order the writers ran in, the "end" ones keep their relative order after the
    # "start" ones, and the "start" ones are reversed among themselves.
    assert set(related[: len(starts)]) == set(starts)
    assert [c for c in related if c in ends] == sorted(ends, key=related.index)
    table = app.runtime.tables.links["articles_categories_links"]
    async with app.runtime.database.read() as conn:
        rows = await conn.execute(
            table.select().where(table.c.article_id == article).order_by(table.c.category_order)
        )
        orders = [row.category_order for row in rows]
    assert orders == [float(i) for i in range(1, N + 1)]


async def test_concurrent_to_one_writes_from_many_entries_keep_the_inverse_list(app, client, admin):
    """Twenty articles set one author at once: the author's list has each article once, in a
    consistent order (1..20 on the inverse order column)."""
    author = await create(client, admin, "authors")
    articles = await create_many(client, admin, "articles", N)
    responses = await asyncio.gather(
        *(
            client.put(f"/api/articles/{a}", json={"data": {"author": author}}, headers=admin)
            for a in articles
        )
    )
    assert _statuses(responses) == {200: N}
    assert sorted((await nested(app, "authors", author))["articles"]) == articles
    assert await _article_orders(app, "articles_author_links", "author_id", author) == [
        float(i) for i in range(1, N + 1)
    ]


async def test_concurrent_connects_from_many_entries_number_the_target_list_once_each(
    app, client, admin
):
    """Twenty articles, half of them with a category already, connect one more category at
    once (on PostgreSQL its list is locked by the statement that reads each article's link
    rows, rows or none): its list numbers them 1..20 on the inverse order column."""
    kept = await create(client, admin, "categories")
    category = await create(client, admin, "categories")
    articles = [
        await create(client, admin, "articles", categories=[kept] if n % 2 else [])
        for n in range(N)
    ]
    body = {"data": {"categories": {"connect": [category]}}}
    responses = await asyncio.gather(
        *(client.put(f"/api/articles/{a}", json=body, headers=admin) for a in articles)
    )
    assert _statuses(responses) == {200: N}
    assert sorted((await nested(app, "categories", category))["articles"]) == articles
    assert await _article_orders(app, "articles_categories_links", "category_id", category) == [
        float(i) for i in range(1, N + 1)
    ]


async def test_concurrent_connects_and_disconnects_end_in_a_consistent_list(app, client, admin):
    """Ten writers connect new categories while ten disconnect the ten linked first."""
    first = await create_many(client, admin, "categories", N // 2)
    later = await create_many(client, admin, "categories", N // 2)
    article = await create(client, admin, "articles", categories=first)
    writes = [{"connect": [c]} for c in later] + [{"disconnect": [c]} for c in first]
    responses = await asyncio.gather(
        *(
            client.put(f"/api/articles/{article}", json={"data": {"categories": w}}, headers=admin)
            for w in writes
        )
    )
    assert _statuses(responses) == {200: N}
    assert sorted((await nested(app, "articles", article))["categories"]) == later
    for category in first:
        assert (await nested(app, "categories", category))["articles"] == []


async def test_concurrent_creates_of_one_unique_value_store_exactly_one(client, admin):
    def post(i: int):
        body = {"data": {"name": "Same", "slug": f"same-{i}"}}
        return client.post("/api/categories", json=body, headers=admin)

    responses = await asyncio.gather(*(post(i) for i in range(N)))
    _one_winner(responses, await post(N))
    listed = await client.get("/api/categories?filters[name][$eq]=Same", headers=admin)
    assert listed.json()["meta"]["pagination"]["total"] == 1


async def test_concurrent_creates_of_one_private_unique_value_store_exactly_one(client, admin):
    def post(i: int):
        body = {"data": {"name": f"Author {i}", "email": "same@example.com"}}
        return client.post("/api/authors", json=body, headers=admin)

    responses = await asyncio.gather(*(post(i) for i in range(N)))
    _one_winner(responses, await post(N))


async def test_concurrent_creates_of_one_uid_store_exactly_one(client, admin):
    def post(i: int):
        body = {"data": {"name": f"Name {i}", "slug": "one-slug"}}
        return client.post("/api/categories", json=body, headers=admin)

    responses = await asyncio.gather(*(post(i) for i in range(N)))
    _one_winner(responses, await post(N))


async def test_concurrent_registers_of_one_email_make_one_user(client, admin):
    def register(i: int):
        email = "Same@Example.com" if i % 2 else "same@example.com"
        body = {"username": f"user{i}", "email": email, "password": "Secret123"}
        return client.post("/api/auth/local/register", json=body)

    responses = await asyncio.gather(*(register(i) for i in range(N)))
    _one_winner(responses, await register(N))
    assert responses[0].json().get("error", {}).get("message") in (
        None,
        "Email or Username are already taken",
    )
    count = await client.get("/api/users/count", headers=admin)
    assert count.json() == 1


async def test_concurrent_registers_of_one_username_make_one_user(client, admin):
    def register(i: int):
        body = {"username": "same", "email": f"u{i}@example.com", "password": "Secret123"}
        return client.post("/api/auth/local/register", json=body)

    responses = await asyncio.gather(*(register(i) for i in range(N)))
    _one_winner(responses, await register(N))


async def test_concurrent_admin_creates_of_one_email_make_one_user(client, admin):
    def post(i: int):
        body = {"username": f"user{i}", "email": "same@example.com", "password": "Secret123"}
        return client.post("/api/users", json={**body, "role": 1}, headers=admin)

    responses = await asyncio.gather(*(post(i) for i in range(N)))
    _one_winner(responses, await post(N), created=201)


async def test_concurrent_localizations_of_one_locale_make_one(app, client, admin):
    article = await create(client, admin, "articles")

    def localize(i: int):
        body = {"locale": "fr", "title": f"Article fr {i}"}
        return client.post(f"/api/articles/{article}/localizations", json=body, headers=admin)

    responses = await asyncio.gather(*(localize(i) for i in range(N)))
    _one_winner(responses, await localize(N))
    french = await client.get("/api/articles?locale=fr&publicationState=preview", headers=admin)
    assert french.json()["meta"]["pagination"]["total"] == 1
    assert len((await nested(app, "articles", article)).get("localizations", [None])) == 1


async def test_a_burst_of_unrelated_writes_all_succeed(client, admin):
    """Forty creates, updates and deletes at once: every one waits for the write lock and
    succeeds (on SQLite, "database is locked" would have been a 503 or a 500)."""
    existing = await create_many(client, admin, "articles", 10)
    writes = (
        [
            client.post("/api/articles", json={"data": {"title": f"New {i}"}}, headers=admin)
            for i in range(20)
        ]
        + [
            client.put(f"/api/articles/{a}", json={"data": {"summary": "s"}}, headers=admin)
            for a in existing
        ]
        + [client.delete(f"/api/articles/{a}", headers=admin) for a in existing]
    )
    responses = await asyncio.gather(*writes)
    statuses = _statuses(responses)
    # An update racing its entry's delete may find it gone (404); nothing else may fail.
    assert set(statuses) <= {200, 404}, statuses
    assert statuses[200] >= 30, statuses
    listed = await client.get("/api/articles?pagination[pageSize]=100", headers=admin)
    assert listed.json()["meta"]["pagination"]["total"] == 20
