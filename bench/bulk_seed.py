"""Seeding the benchmark's books with PostgreSQL ``COPY`` instead of the REST API.

Why: the API seeds about 140 books a second on contentapi and 60 on Strapi, so the issue's
500,000 books would take hours; ``COPY`` writes them in minutes. Both servers keep Strapi v4's
layout, so one set of rows serves both:

- each server makes its own tables (started once on an empty database) and gets authors, tags
  and publishers through its API as ``bench/seed.py`` gives them (ids 1..n);
- then every book is written as one API ``POST`` of it leaves it (read off both servers'
  databases after API seeding, one book at a time): its ``books`` row, one row in
  ``books_author_links`` and ``books_publisher_links`` and three in ``books_tags_links``
  (``tag_order`` 1..3 in the request's order; ``book_order``, the place in the target's own
  list, 1..n in book order), its SEO, two chapters, a quote and a rich block in their component
  tables, attached by five ``books_components`` rows (seo with no order, chapters 1 and 2,
  blocks 1 and 2) — and, on contentapi, its ``entry.create`` event in the change feed
  (``contentapi_events``, dispatched), as the write records it;
- book ``n`` of the data set gets id ``n`` (the API, 16 at a time, numbers them in arrival
  order), every id sequence is moved past the rows, the database is ``ANALYZE``d, and the
  server is started again so nothing it kept (list totals, plans) predates the rows.

``python -m bench.bulk_seed --check [--books 2000]`` proves it: each server is seeded once
through its API (one book at a time, so ids follow the data set) and once in bulk, on databases
of its own, and the rows of every book table (on contentapi its change feed too), the next id
of each of their sequences and the answers of every read scenario (``bench/scenarios.py``),
of a few entries and of each list sorted by id must be the same, timestamps aside — on Strapi
also the ids of components, which its API numbers in whatever order its parallel inserts
finish, and the order of lists without a sort, which is whatever its plan reads.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import asyncpg
import httpx
import orjson

from bench.dataset import Dataset, build_dataset
from bench.scenarios import scenarios
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import PG_ADMIN, ContentapiServer, StrapiServer, analyze_database

__all__ = ["bulk_seed", "copy_books"]

#: the tables a book's rows go to (the check compares the next id of each)
BOOK_TABLES = (
    "books",
    "books_author_links",
    "books_publisher_links",
    "books_tags_links",
    "components_bench_seos",
    "components_bench_chapters",
    "components_bench_quotes",
    "components_bench_riches",
    "books_components",
)


def _dsn(database: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + f"/{database}"


def _stamps(count: int) -> list[datetime]:
    """One creation time per book, a millisecond apart (Strapi keeps milliseconds)."""
    start = datetime.now(UTC).replace(tzinfo=None, microsecond=0) - timedelta(milliseconds=count)
    return [start + timedelta(milliseconds=n) for n in range(count)]


def _book_rows(books: list[dict[str, Any]], stamps: list[datetime]) -> Iterator[tuple]:
    for number, (book, stamp) in enumerate(zip(books, stamps, strict=True), 1):
        yield (
            number,
            book["title"],
            book["pages"],
            Decimal(str(book["price"])),
            book["rating"],
            date.fromisoformat(book["publishedOn"]),
            book["summary"],
            stamp,
            stamp,
        )


def _to_one_links(books: list[dict[str, Any]], key: str) -> Iterator[tuple]:
    """``(id, book_id, target_id, book_order)``: the book's place in its target's list."""
    seen: Counter[int] = Counter()
    for number, book in enumerate(books, 1):
        seen[book[key]] += 1
        yield number, number, book[key], float(seen[book[key]])


def _tag_links(books: list[dict[str, Any]]) -> Iterator[tuple]:
    """``(id, book_id, tag_id, tag_order, book_order)``, the tags in the request's order."""
    seen: Counter[int] = Counter()
    link = 0
    for number, book in enumerate(books, 1):
        for place, tag in enumerate(book["tags"], 1):
            seen[tag] += 1
            link += 1
            yield link, number, tag, float(place), float(seen[tag])


def _seos(books: list[dict[str, Any]]) -> Iterator[tuple]:
    for number, book in enumerate(books, 1):
        yield number, book["seo"]["metaTitle"], book["seo"]["metaDescription"]


def _chapters(books: list[dict[str, Any]]) -> Iterator[tuple]:
    component = 0
    for book in books:
        for chapter in book["chapters"]:
            component += 1
            yield component, chapter["title"], chapter["pages"]


def _blocks(books: list[dict[str, Any]], kind: str, fields: tuple[str, ...]) -> Iterator[tuple]:
    for number, book in enumerate(books, 1):
        block = next(b for b in book["blocks"] if b["__component"] == kind)
        yield number, *(block[name] for name in fields)


def _component_joins(books: list[dict[str, Any]]) -> Iterator[tuple]:
    """``(id, entity_id, component_id, component_type, field, order)`` as a POST attaches
    them: the SEO (no order), the chapters (numbered as ``_chapters`` numbers them), then the
    dynamic zone's blocks."""
    join = chapter = 0
    for number, book in enumerate(books, 1):
        rows: list[tuple[int, str, str, float | None]] = [(number, "bench.seo", "seo", None)]
        for place in range(1, len(book["chapters"]) + 1):
            chapter += 1
            rows.append((chapter, "bench.chapter", "chapters", float(place)))
        rows += [
            (number, block["__component"], "blocks", float(place))
            for place, block in enumerate(book["blocks"], 1)
        ]
        for row in rows:
            join += 1
            yield join, number, *row


def _iso(stamp: datetime) -> str:
    return stamp.isoformat(timespec="milliseconds") + "Z"


def _number(value: float) -> float | int:
    """A number as the entry's JSON has it (JavaScript's: ``5.0`` is ``5``)."""
    return int(value) if float(value).is_integer() else value


def _events(books: list[dict[str, Any]], stamps: list[datetime], first_id: int) -> Iterator[tuple]:
    """contentapi's change feed: one dispatched ``entry.create`` per book, its payload the
    plain entry the write read back (``entries/events.py``)."""
    for number, (book, stamp) in enumerate(zip(books, stamps, strict=True), 1):
        entry = {
            "id": number,
            "title": book["title"],
            "pages": book["pages"],
            "price": _number(book["price"]),
            "rating": _number(book["rating"]),
            "publishedOn": book["publishedOn"],
            "summary": book["summary"],
            "createdAt": _iso(stamp),
            "updatedAt": _iso(stamp),
        }
        payload = {"model": "book", "uid": "api::book.book", "entry": entry}
        yield (
            first_id + number - 1,
            "entry.create",
            "api::book.book",
            number,
            None,
            orjson.dumps(payload).decode(),
            stamp,
            True,
        )


def _copies(
    books: list[dict[str, Any]], stamps: list[datetime]
) -> list[tuple[str, tuple[str, ...], Iterable[tuple]]]:
    """Every ``COPY`` of the books' rows: table, columns, rows (books first: the others refer
    to them)."""
    return [
        (
            "books",
            (
                "id",
                "title",
                "pages",
                "price",
                "rating",
                "published_on",
                "summary",
                "created_at",
                "updated_at",
            ),
            _book_rows(books, stamps),
        ),
        (
            "books_author_links",
            ("id", "book_id", "author_id", "book_order"),
            _to_one_links(books, "author"),
        ),
        (
            "books_publisher_links",
            ("id", "book_id", "publisher_id", "book_order"),
            _to_one_links(books, "publisher"),
        ),
        (
            "books_tags_links",
            ("id", "book_id", "tag_id", "tag_order", "book_order"),
            _tag_links(books),
        ),
        ("components_bench_seos", ("id", "meta_title", "meta_description"), _seos(books)),
        ("components_bench_chapters", ("id", "title", "pages"), _chapters(books)),
        (
            "components_bench_quotes",
            ("id", "text", "by"),
            _blocks(books, "bench.quote", ("text", "by")),
        ),
        ("components_bench_riches", ("id", "body"), _blocks(books, "bench.rich", ("body",))),
        (
            "books_components",
            ("id", "entity_id", "component_id", "component_type", "field", "order"),
            _component_joins(books),
        ),
    ]


async def _move_sequences(conn: asyncpg.Connection, tables: Iterable[str]) -> None:
    """Each table's id sequence past its highest id, as inserts through the API leave it."""
    for table in tables:
        await conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f'(SELECT coalesce(max(id), 0) + 1 FROM "{table}"), false)'
        )


async def copy_books(database: str, data: Dataset, events: bool) -> int:
    """Write every book of ``data`` into ``database`` (authors, tags and publishers already
    there, no book yet); ``events``: contentapi's change-feed rows too. Returns the rows
    written."""
    conn = await asyncpg.connect(_dsn(database))
    written = 0
    try:
        if await conn.fetchval("SELECT count(*) FROM books"):
            raise RuntimeError(f"{database} already holds books: bulk seeding needs none")
        stamps = _stamps(len(data.books))
        copies = _copies(data.books, stamps)
        if events:
            first = await conn.fetchval("SELECT coalesce(max(id), 0) + 1 FROM contentapi_events")
            columns = (
                "id",
                "event",
                "uid",
                "entry_id",
                "locale",
                "payload",
                "created_at",
                "dispatched",
            )
            copies.append(("contentapi_events", columns, _events(data.books, stamps, first)))
        async with conn.transaction():
            for table, columns, rows in copies:
                result = await conn.copy_records_to_table(table, records=rows, columns=columns)
                written += int(result.split()[-1])
            await _move_sequences(conn, [table for table, _, _ in copies])
    finally:
        await conn.close()
    return written


async def bulk_seed(server: Any, data: Dataset) -> float:
    """Seed a started server: authors, tags and publishers through its API, then the books by
    ``COPY``; the database ``ANALYZE``d and the server started again on it. Returns books
    written per second (the ``COPY`` alone)."""
    small = Dataset(authors=data.authors, tags=data.tags, publishers=data.publishers)
    await seed(server.base_url, server.token, small, server.name)
    server.stop()
    started = time.monotonic()
    rows = await copy_books(server.database, data, events=isinstance(server, ContentapiServer))
    elapsed = time.monotonic() - started
    print(f"{server.name}: {rows} rows by COPY in {elapsed:.1f} s ({rows / elapsed:,.0f} rows/s)")
    await analyze_database(server.database)
    await server.start(fresh=False)
    return len(data.books) / elapsed


# ---------------------------------------------------------------- the check


#: rows of every book table, made comparable: timestamps left out, components by content
_TABLE_QUERIES = {
    "books": "SELECT id, title, pages, price, rating, published_on, summary, created_by_id, "
    "updated_by_id FROM books ORDER BY id",
    "books_author_links": "SELECT * FROM books_author_links ORDER BY id",
    "books_publisher_links": "SELECT * FROM books_publisher_links ORDER BY id",
    "books_tags_links": "SELECT * FROM books_tags_links ORDER BY id",
    "books_components": """
        SELECT j.id, j.entity_id, j.component_type, j.field, j."order",
               coalesce(to_jsonb(s) - 'id', to_jsonb(c) - 'id', to_jsonb(q) - 'id',
                        to_jsonb(r) - 'id') AS content
        FROM books_components j
        LEFT JOIN components_bench_seos s
               ON j.component_type = 'bench.seo' AND s.id = j.component_id
        LEFT JOIN components_bench_chapters c
               ON j.component_type = 'bench.chapter' AND c.id = j.component_id
        LEFT JOIN components_bench_quotes q
               ON j.component_type = 'bench.quote' AND q.id = j.component_id
        LEFT JOIN components_bench_riches r
               ON j.component_type = 'bench.rich' AND r.id = j.component_id
        ORDER BY j.id""",
    "component counts": "SELECT (SELECT count(*) FROM components_bench_seos), "
    "(SELECT count(*) FROM components_bench_chapters), "
    "(SELECT count(*) FROM components_bench_quotes), "
    "(SELECT count(*) FROM components_bench_riches)",
}
#: contentapi's alone: its change feed, and its component ids (Strapi's API numbers a book's
#: chapters in whichever order its parallel inserts finish)
_CONTENTAPI_QUERIES = {
    "contentapi_events": "SELECT id, event, uid, entry_id, locale, "
    "(payload::jsonb #- '{entry,createdAt}') #- '{entry,updatedAt}' AS payload, dispatched "
    "FROM contentapi_events ORDER BY id",
    "component ids": "SELECT id, component_id FROM books_components ORDER BY id",
}


async def _tables(database: str, contentapi: bool) -> dict[str, list[tuple]]:
    conn = await asyncpg.connect(_dsn(database))
    try:
        queries = {**_TABLE_QUERIES, **(_CONTENTAPI_QUERIES if contentapi else {})}
        found = {
            name: [tuple(row) for row in await conn.fetch(sql)] for name, sql in queries.items()
        }
        found["next ids"] = await _next_ids(conn)
        return found
    finally:
        await conn.close()


async def _next_ids(conn: asyncpg.Connection) -> list[tuple]:
    """The id each book table's sequence hands out next (the API's last insert leaves a
    sequence called at the highest id, ``setval(…, false)`` uncalled one past it)."""
    tables = [*BOOK_TABLES, "contentapi_events"]
    rows = []
    for table in tables:
        if await conn.fetchval("SELECT to_regclass($1)", table) is None:
            continue  # contentapi's change feed, on Strapi
        sequence = await conn.fetchval(f"SELECT pg_get_serial_sequence('{table}', 'id')")
        state = await conn.fetchrow(f"SELECT last_value, is_called FROM {sequence}")
        rows.append((table, state["last_value"] + (1 if state["is_called"] else 0)))
    return rows


async def _dispatched(database: str, seconds: float = 15) -> None:
    """Wait until contentapi's dispatcher has marked every event of the API's writes
    dispatched (it does at its next poll, a second at most), as the bulk rows are."""
    conn = await asyncpg.connect(_dsn(database))
    try:
        if await conn.fetchval("SELECT to_regclass('contentapi_events')") is None:
            return
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not await conn.fetchval(
                "SELECT count(*) FROM contentapi_events WHERE NOT dispatched"
            ):
                return
            await asyncio.sleep(0.2)
    finally:
        await conn.close()


def _strip(value: Any, component_ids: bool) -> Any:
    """An answer without its timestamps (and, when ``component_ids``, without the ids of
    components and dynamic-zone blocks)."""
    if isinstance(value, list | tuple):
        return [_strip(item, component_ids) for item in value]
    if not isinstance(value, dict):
        return value
    kept = {}
    for key, item in value.items():
        if key in ("createdAt", "updatedAt"):
            continue
        if component_ids and key in ("seo", "chapters", "blocks"):
            item = _drop_ids(item)
        kept[key] = _strip(item, component_ids)
    return kept


def _drop_ids(value: Any) -> Any:
    if isinstance(value, list):
        return [_drop_ids(item) for item in value]
    if isinstance(value, dict):
        return {key: item for key, item in value.items() if key != "id"}
    return value


def _requests(data: Dataset) -> list[tuple[str, str, str, str | None]]:
    """Every read scenario, each list again sorted by id, and a few entries with
    ``populate=*``: ``(key, method, path, body)``."""
    chosen = [s for s in scenarios(data) if s.method == "GET" or s.graphql]
    last = len(data.books)
    requests = [(s.key, s.method, s.path, s.body) for s in chosen]
    requests += [(f"entry {n}", "GET", f"/api/books/{n}?populate=*", None) for n in (1, last)]
    requests.append(
        ("last page", "GET", f"/api/books?populate=*&pagination[page]={last // 25}", None)
    )
    requests += [
        (f"{key}, sorted by id", method, f"{path}{'&' if '?' in path else '?'}sort[0]=id:asc", body)
        for key, method, path, body in requests
        if _unordered(path)
    ]
    return requests


def _unordered(path: str) -> bool:
    """A list without a sort: Strapi answers it in whatever order its plan reads the rows
    (contentapi in id order), so on Strapi only its ``meta`` is compared."""
    return (
        path.startswith("/api/books") and not path.startswith("/api/books/") and "sort" not in path
    )


async def _answers(server: Any, requests: list[tuple[str, str, str, str | None]]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    found: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=server.base_url, headers=headers, timeout=60) as client:
        for key, method, path, body in requests:
            found[key] = await _answer(client, method, path, body)
    return found


async def _answer(client: httpx.AsyncClient, method: str, path: str, body: str | None) -> Any:
    """Status and JSON body, or why there is none (a request answered by a stream that does
    not end is cut off after 20 s)."""
    try:
        response = await asyncio.wait_for(client.request(method, path, content=body), 20)
    except TimeoutError:
        return "no answer in 20 s"
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text[:200]


async def _seeded_both_ways(make: Any, name: str, data: Dataset) -> list[str]:
    """Seed ``make(database)`` through its API and in bulk; the differences found."""
    results = {}
    for way in ("api", "bulk"):
        server = make(f"{name}_check_{way}")
        await server.start()
        try:
            if way == "api":
                await seed(server.base_url, server.token, data, f"{name} {way}", concurrency=1)
                await analyze_database(server.database)
                await _dispatched(server.database)
            else:
                await bulk_seed(server, data)
            answers = await _answers(server, _requests(data))
        finally:
            server.stop()
        tables = await _tables(server.database, contentapi=name == "contentapi")
        results[way] = (tables, answers)
    (api_tables, api_answers), (bulk_tables, bulk_answers) = results["api"], results["bulk"]
    problems = _differences(name, api_tables, bulk_tables)
    unordered = {key for key, _, path, _ in _requests(data) if _unordered(path)}
    for key, answer in api_answers.items():
        ours, theirs = (_strip(a, name == "strapi") for a in (answer, bulk_answers[key]))
        if name == "strapi" and key in unordered:
            ours, theirs = (_meta(a) for a in (ours, theirs))
        if ours != theirs:
            problems.append(f"{name} answer {key}: {str(ours)[:300]} vs {str(theirs)[:300]}")
    compared = f"{len(api_tables)} tables, {len(api_answers)} answers compared"
    print(f"{name}: {compared}, {len(problems)} differences")
    return problems


def _meta(answer: Any) -> Any:
    """Status and ``meta`` of an answer (the answer itself when it is no JSON object)."""
    if isinstance(answer, list) and len(answer) == 2 and isinstance(answer[1], dict):
        return [answer[0], answer[1].get("meta")]
    return answer


def _differences(name: str, api: dict[str, list[tuple]], bulk: dict[str, list[tuple]]) -> list[str]:
    problems = []
    for table, rows in api.items():
        if rows == bulk[table]:
            continue
        first = next(
            (pair for pair in zip(rows, bulk[table], strict=False) if pair[0] != pair[1]), None
        )
        problems.append(
            f"{name} table {table}: {len(rows)} vs {len(bulk[table])} rows, first: {first}"
        )
    return problems


async def check(books: int, which: str) -> int:
    """API seeding against bulk seeding on ``books`` books: 0 when every row and answer agrees."""
    data = build_dataset(books)
    makers: list[tuple[str, Any]] = []
    if which in ("contentapi", "both"):
        bin_dir = serve_env()
        makers.append(
            ("contentapi", lambda db: ContentapiServer(database=db, port=1341, bin_dir=bin_dir))
        )
    if which in ("strapi", "both"):
        makers.append(("strapi", lambda db: StrapiServer(database=db)))
    problems = []
    for name, make in makers:
        problems += await _seeded_both_ways(make, name, data)
    for problem in problems:
        print(problem)
    print("bulk seeding: same rows and answers as the API" if not problems else "DIFFERENT")
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="API against bulk seeding")
    parser.add_argument("--books", type=int, default=2000)
    parser.add_argument("--only", choices=("contentapi", "strapi", "both"), default="both")
    args = parser.parse_args()
    if not args.check:
        parser.error("bulk seeding runs from bench.run --bulk; here only --check")
    sys.exit(asyncio.run(check(args.books, args.only)))


if __name__ == "__main__":
    main()
