"""The random-query benchmark: seeded list queries of every family, each against both servers.

A handful of fixed scenarios can be tuned to without meaning to; front ends send thousands of
different queries. This phase of ``make bench`` draws valid list queries over the benchmark's
models with the differential tester's generator (``diff/generate.py``: filters of every
operator, through relations and components, ``$or``/``$and``/``$not``, sorts on related
attributes, both paginations, ``fields``, populate in every form), keeps those both servers
answer with 200, and runs each against contentapi and Strapi in turn (which goes first
alternates), a fixed number of requests on a few kept-alive connections (fewer for a query
whose single answer takes long: ``_BUDGET``). The figure is the
distribution of the ratios of requests per second (worst, p10, median, geometric mean), and
the worst queries with the EXPLAIN of every statement contentapi sends for them.

One pass of a query is a fraction of a second, so its ratio is noisy, and the lowest of 500
noisy samples is the noisiest low sample rather than the slowest family: on 2026-11-28 a first
pass of 1.78x measured 4.85x, 4.44x and 4.51x in three passes right after. So the queries of
lowest ratio after the first pass are measured twice more (``recheck_lowest``), and each
one's figure is the median of its three passes; the first pass's summary is kept beside.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from diff.dataset import Dataset as ValuesDataset
from diff.generate import Generator, encode
from rich.progress import Progress

from bench.dataset import Dataset as BenchDataset
from bench.floor import capture_statements
from bench.scenarios import Scenario
from contentapi.schema import load_registry
from contentapi.schema.model import ContentType

__all__ = [
    "RandomQuery",
    "draw_queries",
    "lowest_rows",
    "measure_random",
    "recheck_lowest",
    "report_markdown",
]

MODELS = Path(__file__).parent / "models"
#: the benchmark's content types, uid → plural name; books are drawn three times as often
KINDS = {
    "api::book.book": "books",
    "api::author.author": "authors",
    "api::tag.tag": "tags",
    "api::publisher.publisher": "publishers",
}
_WEIGHTED = ["api::book.book"] * 3 + [uid for uid in KINDS if uid != "api::book.book"]


@dataclass
class RandomQuery:
    path: str  # with its query string, as qs encodes it
    tags: set[str] = field(default_factory=set)


def _values(data: BenchDataset) -> ValuesDataset:
    """The values the generator draws filter operands from: those of the seeded entries."""
    values: dict[tuple[str, str], list[Any]] = {}
    for kind, rows in (
        ("books", data.books),
        ("authors", data.authors),
        ("tags", data.tags),
        ("publishers", data.publishers),
    ):
        for row in rows:
            for name, value in row.items():
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    values.setdefault((kind, name), []).append(value)
    for book in data.books:
        for name, value in book["seo"].items():
            values.setdefault(("bench.seo", name), []).append(value)
        for chapter in book["chapters"]:
            for name, value in chapter.items():
                values.setdefault(("bench.chapter", name), []).append(value)
    for key, seen in values.items():  # a sample is enough, and keeps the draws quick
        values[key] = random.Random(7).sample(seen, min(len(seen), 200))
    return ValuesDataset(steps=[], files={}, values=values)


def draw_queries(data: BenchDataset, count: int, seed: int) -> list[RandomQuery]:
    """``count`` list queries (valid ones are kept later: a few draw a 400 from both)."""
    registry = load_registry(MODELS)
    generator = Generator(registry, _values(data), seed, kinds=KINDS)
    rng = generator.rng
    queries: list[RandomQuery] = []
    for _ in range(count):
        uid = rng.choice(_WEIGHTED)
        kind = KINDS[uid]
        model = registry.content_types[uid]
        assert isinstance(model, ContentType)
        tags: set[str] = {f"type:{kind}"}
        params: dict[str, Any] = {}
        if rng.random() < 0.7:
            params["filters"] = generator.filters(kind, model, tags)
        if rng.random() < 0.6:
            params["sort"] = generator.sort(model, tags)
        if rng.random() < 0.5:
            params["pagination"] = generator.pagination(tags)
        if rng.random() < 0.3:
            names = [a.name for a in generator._scalars(model)]
            params["fields"] = rng.sample(names, k=min(len(names), rng.randint(1, 3)))
            tags.add("fields")
        if rng.random() < 0.5:
            params["populate"] = generator.populate(model, tags)
        encoded = encode(params)
        queries.append(RandomQuery(f"/api/{kind}" + (f"?{encoded}" if encoded else ""), tags))
    return queries


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """One HTTP/1.1 response off a kept-alive connection; its status, and whether the server
    closes the connection after it (``Connection: close``: a worker over its share of the
    connections asks the client to reconnect, ``connection_shares.py``)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines[1:] if line)
    }
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    return status, headers.get("connection", "").lower() == "close"


async def _fixed_count(
    base_url: str, token: str, path: str, requests: int, connections: int
) -> float:
    """Requests per second over ``requests`` GETs of ``path`` on ``connections`` kept-alive
    connections (wrk cannot stop after a count: a stopped thread still waits out ``-d``).
    The client is a few dozen µs of CPU per request, the same for both servers."""
    host, port = base_url.removeprefix("http://").split(":")
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        "Accept: application/json\r\n\r\n"
    ).encode()
    remaining = requests
    failures = 0

    async def connection() -> None:
        nonlocal remaining, failures
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while remaining > 0:
                remaining -= 1
                writer.write(request)
                status, closes = await _read_response(reader)
                if status != 200:
                    failures += 1
                if closes and remaining > 0:
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, int(port))
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(connections)))
    elapsed = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{failures} of {requests} answers were not 200: {path}")
    return round(requests / elapsed, 1)


async def _status(client: httpx.AsyncClient, path: str, token: str) -> tuple[int, float]:
    """The status of one GET of ``path``, and how long it took (seconds)."""
    started = time.perf_counter()
    response = await client.get(path, headers={"Authorization": f"Bearer {token}"})
    return response.status_code, time.perf_counter() - started


#: the time a query's measurement may take on the slower server, about (seconds): a query
#: whose answer is huge (`populate` three levels deep over every tag's 375 books) is measured
#: with fewer requests, never fewer than ``_FEWEST``
_BUDGET = 6.0
_FEWEST = 4
#: requests that warm a server for a query before it is measured, on as many connections as
#: the measurement. Two sequential requests (the first runs) left the query's statements to
#: be prepared during the measurement on most of contentapi's pooled connections (up to 20
#: per worker, taken in turn), a round trip each (about 0.45 ms), in a window of about 0.15 s
#: for the quickest queries
_WARM = 48


async def measure_random(
    servers: list[Any], queries: list[RandomQuery], requests: int, connections: int
) -> list[dict[str, Any]]:
    """Each query both servers answer with 200, measured on each in turn; the rows of the
    report (``rps`` per server name)."""
    rows: list[dict[str, Any]] = []
    async with httpx.AsyncClient(timeout=60) as client:
        with Progress() as progress:
            task = progress.add_task("random queries", total=len(queries))
            for number, query in enumerate(queries):
                progress.advance(task)
                first = {
                    server.name: await _status(
                        client, f"{server.base_url}{query.path}", server.token
                    )
                    for server in servers
                }
                row: dict[str, Any] = {"path": query.path, "tags": sorted(query.tags)}
                if any(status != 200 for status, _ in first.values()):
                    rows.append({**row, "skipped": {k: v[0] for k, v in first.items()}})
                    continue
                slowest = max(seconds for _, seconds in first.values())
                count = max(_FEWEST, min(requests, int(_BUDGET / slowest)))
                row["requests"] = count
                order = servers if number % 2 == 0 else list(reversed(servers))
                for server in order:
                    row[server.name] = await _pass(server, query.path, count, connections)
                rows.append(row)
    return rows


async def _pass(server: Any, path: str, count: int, connections: int) -> float:
    """One pass of ``path`` on ``server``: warmed at the measurement's concurrency (statements
    built and prepared on the pooled connections the measurement will use, plans and totals
    cached), then ``count`` requests; their requests per second."""
    await _fixed_count(server.base_url, server.token, path, min(count, _WARM), connections)
    return await _fixed_count(server.base_url, server.token, path, count, connections)


def lowest_rows(rows: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The ``count`` rows both servers answered of lowest ratio, lowest first."""
    measured = [row for row in rows if row.get("contentapi") and row.get("strapi")]
    return sorted(measured, key=_ratio)[:count]


#: how many queries of lowest ratio after the first pass are measured again, and how many
#: passes more each gets
RECHECKED = 20
RECHECK_PASSES = 2


def _ratio(row: dict[str, Any], ours: str = "contentapi", theirs: str = "strapi") -> float:
    return float(row[ours]) / float(row[theirs])


async def recheck_lowest(
    servers: list[Any],
    rows: list[dict[str, Any]],
    connections: int,
    lowest: int = RECHECKED,
    passes: int = RECHECK_PASSES,
) -> None:
    """Measure the ``lowest`` measured rows by ratio ``passes`` more times each, as the first
    pass did (warmed, the same count of requests, the servers in turn, which goes first
    alternating); each one's figure per server becomes the median of its passes, all of which
    stay in the row (``passes``)."""
    names = [server.name for server in servers]
    for row in lowest_rows(rows, lowest):
        row["passes"] = {name: [row[name]] for name in names}
        for number in range(passes):
            order = servers if number % 2 else list(reversed(servers))
            for server in order:
                figure = await _pass(server, row["path"], row["requests"], connections)
                row["passes"][server.name].append(figure)
        for name in names:
            row[name] = statistics.median(row["passes"][name])


def summarize(rows: list[dict[str, Any]], ours: str = "contentapi", theirs: str = "strapi") -> dict:
    """The distribution of ``ours / theirs`` over the measured rows."""
    ratios = sorted(row[ours] / row[theirs] for row in rows if row.get(ours) and row.get(theirs))
    if not ratios:
        return {"measured": 0}

    def at(share: float) -> float:
        return round(ratios[min(len(ratios) - 1, int(share * len(ratios)))], 2)

    return {
        "measured": len(ratios),
        "skipped": sum(1 for row in rows if "skipped" in row),
        "worst": round(ratios[0], 2),
        "p10": at(0.10),
        "median": at(0.50),
        "geometric_mean": round(math.exp(sum(math.log(r) for r in ratios) / len(ratios)), 2),
        "below_2x": sum(1 for r in ratios if r < 2),
        "below_5x": sum(1 for r in ratios if r < 5),
    }


async def explain(database_url: str, token: str, path: str) -> list[str]:
    """Every statement contentapi sends for ``path``, with its EXPLAIN (ANALYZE, BUFFERS)."""
    scenario = Scenario("random", path, "GET", path)
    statements = await capture_statements(database_url, MODELS, token, scenario)
    dsn = database_url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    lines: list[str] = []
    try:
        for sql, params in statements:
            plan = [
                row[0] for row in await conn.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", *params)
            ]
            lines += [re.sub(r"\s+", " ", sql), f"  params {params}"]
            lines += [f"    {line}" for line in plan]
    finally:
        await conn.close()
    return lines


def report_markdown(
    summary: dict,
    rows: list[dict[str, Any]],
    plans: dict[str, list[str]],
    first_pass: dict | None = None,
) -> str:
    """The worst queries, their figures and plans (``bench/results/random-queries.md``)."""
    lines = ["# Random-query benchmark: the worst queries", "", f"Summary: `{summary}`", ""]
    if first_pass is not None:
        lines += [f"First pass alone (one pass a query): `{first_pass}`", ""]
    for row in lowest_rows(rows, 10):
        lines += [
            f"## {_ratio(row):.2f}x — contentapi {row['contentapi']} req/s, Strapi {row['strapi']}",
            "",
            f"`GET {row['path']}`",
            "",
        ]
        if "passes" in row:
            lines += [f"passes (req/s): {row['passes']}", ""]
        lines += [
            "```",
            *plans.get(row["path"], ["(no plan)"]),
            "```",
            "",
        ]
    return "\n".join(lines) + "\n"
