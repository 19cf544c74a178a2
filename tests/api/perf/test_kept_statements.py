"""Kept read statements run through asyncpg directly on PostgreSQL (db/driver.py): the answers
are exactly those of the ordinary SQLAlchemy path, for every attribute type, relations,
components, dynamic zones and media, and no statement falls back."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import event

from contentapi.db.counter import StatementCounter

ARTICLE = {
    "title": "Every type",
    "slug": "every-type",
    "summary": "A summary",
    "body": "# Rich",
    "kind": "news",
    "readingTime": 7,
    "views": 9007199254740993,
    "rating": 4.25,
    "price": 12.5,
    "featured": True,
    "eventDate": "2026-11-24",
    "eventTime": "09:30:15.250",
    "scheduledAt": "2026-11-24T09:30:15.250Z",
    "reviewedAt": "2026-11-23T01:02:03.004Z",
    "metadata": {"nested": [1, 2.5, "x", None, {"deep": True}]},
    "contactEmail": "someone@example.com",
    "seo": {"metaTitle": "Meta", "metaDescription": "Description", "keywords": []},
    "links": [
        {"label": "one", "url": "https://one.example", "newTab": True},
        {"label": "two", "url": "https://two.example", "newTab": False},
    ],
    "blocks": [
        {"__component": "blocks.quote", "title": "Q", "body": "Said", "author": 1},
        {"__component": "blocks.rich-text", "body": "Text"},
    ],
}

#: values written into the statement (LIKE patterns, range operands) run on the driver too
WRITTEN_IN = (
    "/api/articles?filters[readingTime][$between][0]=1&filters[readingTime][$between][1]=9"
    "&filters[title][$startsWith]=Ev&filters[rating][$gte]=4&sort=title"
)

QUERIES = [
    "/api/articles?populate=*",
    "/api/articles/1?populate=*",
    "/api/articles?populate[author][populate]=*&populate[seo][populate]=*"
    "&populate[blocks][populate]=*&populate[cover]=true&populate[links]=true",
    "/api/articles?fields[0]=price&fields[1]=views&fields[2]=metadata&sort=price:desc",
    "/api/authors?populate[articles][populate][categories]=true&populate[avatar]=true",
    "/api/articles?filters[price][$lt]=100&filters[title][$containsi]=type&populate[links]=true",
    WRITTEN_IN,
    # an expanding IN is spread into a parameter per value, once (strings, decimals, integers)
    "/api/articles?filters[kind][$in][0]=news&filters[kind][$in][1]=blog"
    "&filters[price][$in][0]=12.5&filters[price][$in][1]=3&filters[readingTime][$notIn][0]=2",
    "/api/articles?filters[author][name][$in][0]=Ann&filters[author][name][$in][1]=Bo",
]


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (10, 20, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


async def _answers(client: Any, admin: dict[str, str]) -> list[tuple[int, Any]]:
    answers = []
    for query in QUERIES:
        for _ in range(2):  # the second request runs the kept statements
            response = await client.get(query, headers=admin)
        answers.append((response.status_code, response.json()))
    return answers


async def test_kept_statements_answer_as_sqlalchemy_does(app, client, admin, backend, monkeypatch):
    if backend != "postgres":
        pytest.skip("kept statements run through asyncpg on PostgreSQL only")
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "ann@example.com"})
    uploaded = await client.post(
        "/api/upload", files=[("files", ("cover.png", _png(), "image/png"))], headers=admin
    )
    assert uploaded.status_code == 200, uploaded.text
    file_id = uploaded.json()[0]["id"]
    await entries.create("api::article.article", {**ARTICLE, "author": 1, "cover": file_id})
    await entries.create("api::article.article", {"title": "Second", "price": 0.1})
    kept = app.runtime.database.kept

    assert kept.enabled
    direct = await _answers(client, admin)
    assert kept.driver_runs > 0
    assert kept.fallbacks == 0
    for status, body in direct[-3:]:  # the written-in and spread ones find the first article
        assert status == 200 and [entry["id"] for entry in body["data"]] == [1], body
    before = kept.driver_runs
    async with StatementCounter.recording_with_parameters() as recorded:
        await client.get(WRITTEN_IN, headers=admin)
    page = next(sql for sql, _ in recorded if "LIKE 'Ev%'" in sql)
    # sorted on a title no index serves: the conditions are on the ids-first sub-query's alias
    assert ".reading_time >= 1" in page and ".rating >= 4" in page, page
    assert kept.driver_runs > before, (recorded, kept.fallbacks)

    monkeypatch.setattr(kept, "enabled", False)
    before = kept.driver_runs
    through_sqlalchemy = await _answers(client, admin)
    assert kept.driver_runs == before
    assert direct == through_sqlalchemy
    body = direct[1][1]["data"]["attributes"]
    assert body["price"] == 12.5 and body["views"] == "9007199254740993"
    assert body["cover"]["data"]["id"] == file_id
    assert [block["__component"] for block in body["blocks"]] == [
        "blocks.quote",
        "blocks.rich-text",
    ]


async def test_a_statement_failing_on_the_driver_runs_again_through_sqlalchemy(
    app, client, admin, backend, monkeypatch
):
    """Any failure on the direct path runs the statement again on the ordinary path, which
    answers, or raises and invalidates the pool, exactly as it always did."""
    if backend != "postgres":
        pytest.skip("kept statements run through asyncpg on PostgreSQL only")
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "ann@example.com"})
    expected = await client.get("/api/authors/1", headers=admin)
    assert expected.status_code == 200
    kept = app.runtime.database.kept
    fallbacks = kept.fallbacks

    async def broken(*args: Any) -> None:
        raise ConnectionError("the driver failed")

    monkeypatch.setattr(kept, "_run", broken)
    again = await client.get("/api/authors/1", headers=admin)
    assert again.status_code == 200
    assert again.json() == expected.json()
    assert kept.fallbacks == fallbacks + 1


@pytest.mark.parametrize(
    "query",
    [
        "/api/articles/1?populate=*",
        # the related-attribute family: a LIKE written in, an IN spread into parameters
        "/api/articles?filters[author][name][$startsWith]=A"
        "&filters[kind][$in][0]=news&filters[kind][$in][1]=blog&populate=author",
    ],
)
async def test_a_read_runs_every_statement_on_the_driver(app, client, admin, backend, query):
    """Relations, media, components and dynamic zones of one entry, and a list filtered with
    ``$in`` through a relation: after the first request (which compiles them) not one
    statement goes through SQLAlchemy's execution."""
    if backend != "postgres":
        pytest.skip("kept statements run through asyncpg on PostgreSQL only")
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "ann@example.com"})
    await entries.create("api::article.article", {**ARTICLE, "author": 1})
    through_sqlalchemy: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        through_sqlalchemy.append(statement)

    engine = app.runtime.database.engine.sync_engine
    first = await client.get(query, headers=admin)
    assert first.status_code == 200 and first.json()["data"], first.text
    event.listen(engine, "before_cursor_execute", record)
    try:
        again = await client.get(query, headers=admin)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert again.json() == first.json()
    assert through_sqlalchemy == []


async def test_an_update_of_relations_runs_every_statement_on_the_driver(
    app, client, admin, backend
):
    """Updates that set columns (a JSON one to null), connect and disconnect, and take a
    one-owner target from another entry: after the first of each shape (which builds and
    compiles its statements) not one statement goes through SQLAlchemy's execution — the
    ``UPDATE … RETURNING``, the link rows' deletes, locks, reads and ``INSERT … unnest`` and
    the event all run on the driver, and their effects are those of the ordinary path."""
    if backend != "postgres":
        pytest.skip("kept statements run through asyncpg on PostgreSQL only")
    entries = app.runtime.entries
    for name in ("one", "two", "three", "four"):
        await entries.create("api::category.category", {"name": name, "slug": name})
    for name in ("Ann", "Bob"):
        await entries.create("api::author.author", {"name": name, "email": f"{name}@example.com"})
    for title, author in (("first", 1), ("second", 1), ("third", 2)):
        await entries.create(
            "api::article.article", {"title": title, "categories": [1, 2], "author": author}
        )
    kept = app.runtime.database.kept
    fallbacks = kept.fallbacks

    def article(connect: int, disconnect: int) -> dict[str, Any]:
        return {
            "data": {
                "title": f"now with {connect}",
                "metadata": None,
                "categories": {"connect": [connect], "disconnect": [disconnect]},
            }
        }

    def author(connect: int) -> dict[str, Any]:
        return {"data": {"articles": {"connect": [connect]}}}

    assert (await client.put("/api/articles/1", json=article(3, 1), headers=admin)).is_success
    assert (await client.put("/api/authors/1", json=author(2), headers=admin)).is_success
    through_sqlalchemy: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        through_sqlalchemy.append(statement)

    engine = app.runtime.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        again = await client.put("/api/articles/1", json=article(4, 2), headers=admin)
        # the third article is Bob's: connecting it to Ann takes it from him
        taken = await client.put("/api/authors/1", json=author(3), headers=admin)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert again.status_code == 200, again.text
    assert taken.status_code == 200, taken.text
    assert through_sqlalchemy == []
    assert kept.fallbacks == fallbacks
    assert again.json()["data"]["attributes"]["title"] == "now with 4"

    read = await client.get("/api/articles/1?populate[categories]=true", headers=admin)
    assert [c["id"] for c in read.json()["data"]["attributes"]["categories"]["data"]] == [3, 4]
    ann = await client.get("/api/authors/1?populate[articles]=true", headers=admin)
    assert [a["id"] for a in ann.json()["data"]["attributes"]["articles"]["data"]] == [1, 2, 3]
    bob = await client.get("/api/authors/2?populate[articles]=true", headers=admin)
    assert bob.json()["data"]["attributes"]["articles"]["data"] == []
    nulls = await client.get("/api/articles?filters[metadata][$null]=true", headers=admin)
    assert 1 in [entry["id"] for entry in nulls.json()["data"]]
    # the new links went to the end of each category's own list of articles
    category = await client.get("/api/categories/4?populate[articles]=true", headers=admin)
    assert [a["id"] for a in category.json()["data"]["attributes"]["articles"]["data"]] == [1]
