"""``python -m bench.directus``: contentapi beside Directus 12 on the same data (issue 28).

Strapi is the API contentapi copies, but Directus is what users most often pick instead of either;
issue 28 asks for the related-attribute family (a filter on an attribute of a to-one relation and
on one of a to-many relation) to be served at least twice as fast as Directus 12 serves it. This
module answers that on the benchmark's own data:

1. installs (``bench/reference-directus/setup.sh``, a no-op when done) and starts Directus on a
   fresh ``directus_bench`` database; creates the benchmark's model through Directus's REST API
   (``/collections``, ``/fields``, ``/relations``) and seeds ``bench.dataset.build_dataset()``
   with the same ids; starts and seeds contentapi exactly as ``bench/run.py`` does; ``ANALYZE``
   on both databases. A database that already holds the data set (a previous run's) is used as
   it is, its server started on it (``--fresh``: seed both anew);
2. for each scenario it can express in both query languages (the related filter first), verifies
   that both servers answer the expected total, then times them with wrk, the servers
   alternating, ``--rounds`` rounds each;
3. captures the SQL Directus runs for the related filter (``log_min_duration_statement = 0`` on
   its database only, for one request) and prints its ``EXPLAIN (ANALYZE, BUFFERS)``, beside
   contentapi's own statements;
4. writes ``bench/results/directus.json``.

    python -m bench.directus       # ~5 min on seeded databases (+2-6 to seed, +5 for npm once)
    python -m bench.directus --scenarios related_filter --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx
import psutil

from bench.dataset import Dataset, build_dataset
from bench.floor import capture_statements
from bench.load import ensure_wrk, run_wrk
from bench.scenarios import (
    RELATED_AUTHOR_PREFIX,
    RELATED_TAGS,
    SEEDED_LUA,
    Scenario,
    scenarios,
)
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import (
    MODELS,
    PG_ADMIN,
    ROOT,
    ContentapiServer,
    Sampler,
    _wait,
    analyze_database,
    recreate_database,
)

__all__ = ["DirectusServer", "create_model", "directus_scenarios", "seed_directus"]

SCRIPTS = ROOT / "bench" / "reference-directus"
RESULTS = ROOT / "bench" / "results"
DIRECTUS_DIR = Path(os.environ.get("DIRECTUS_DIR", Path.home() / ".cache/directus-reference"))
POSTGRES_LOG = Path(os.environ.get("POSTGRES_LOG", "/var/log/postgresql/postgresql-15-main.log"))

#: what a Directus book answers with: its own columns, as contentapi answers a book unpopulated
#: (contentapi adds createdAt/updatedAt/publishedAt, which this Directus model does not have)
BOOK_FIELDS = "id,title,pages,price,rating,publishedOn,summary"
#: the three relations, each related entry whole (contentapi's ``populate[x]=true``)
RELATION_FIELDS = "author.*,publisher.*,tags.tags_id.*"


# ----------------------------------------------------------------------------- the server


def _setting(name: str, default: str) -> str:
    """A setting of Directus's ``.env`` (written by ``setup.sh``)."""
    env = DIRECTUS_DIR / ".env"
    lines = env.read_text().splitlines() if env.exists() else []
    found = [line.split("=", 1)[1] for line in lines if line.startswith(f"{name}=")]
    return found[-1] if found else default


def _script(name: str) -> None:
    """Runs one of ``bench/reference-directus``'s scripts; its output when it fails."""
    env = {**os.environ, "DIRECTUS_DIR": str(DIRECTUS_DIR)}
    done = subprocess.run(["bash", str(SCRIPTS / name)], env=env, capture_output=True, text=True)
    if done.returncode != 0 and name != "stop.sh":
        raise RuntimeError(f"{name} failed ({done.returncode}): {done.stdout}{done.stderr}")


@dataclass
class DirectusServer:
    """Directus as ``bench/reference-directus`` installs and runs it (one Node process)."""

    name: str = "directus"
    token: str = ""
    pid: int | None = None
    database: str = "directus_bench"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{_setting('PORT', '1345')}"

    @property
    def process(self) -> psutil.Process | None:
        return psutil.Process(self.pid) if self.pid else None

    async def install(self, fresh: bool = True) -> None:
        """Installs Directus when needed; with ``fresh``, on an emptied database."""
        self.stop()
        _script("setup.sh")
        if fresh:
            await recreate_database(self.database)

    async def start(self) -> None:
        _script("start.sh")
        self.token = (DIRECTUS_DIR / "TOKEN").read_text().strip()
        self.pid = int((DIRECTUS_DIR / "directus.pid").read_text().strip())
        await _wait(f"{self.base_url}/server/ping", None)

    def stop(self) -> None:
        _script("stop.sh")
        self.pid = None


def _client(server: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=server.base_url,
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=120,
    )


async def _call(client: httpx.AsyncClient, method: str, path: str, body: Any = None) -> Any:
    response = await client.request(method, path, json=body)
    if response.status_code >= 300:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:500]}")
    return response.json() if response.content else None


# ----------------------------------------------------------------------------- the model


def _id() -> dict[str, Any]:
    return {
        "field": "id",
        "type": "integer",
        "schema": {"is_primary_key": True, "has_auto_increment": True},
        "meta": {"hidden": True, "readonly": True, "interface": "input"},
    }


def _field(name: str, kind: str, **schema: Any) -> dict[str, Any]:
    return {"field": name, "type": kind, "schema": schema, "meta": {}}


def _many_to_one(name: str) -> dict[str, Any]:
    return {
        "field": name,
        "type": "integer",
        "schema": {},
        "meta": {"special": ["m2o"], "interface": "select-dropdown-m2o"},
    }


#: the collections, each with its fields; seo, chapters and blocks (a component, a repeatable
#: component and a dynamic zone in contentapi) are JSON fields: none of them holds a relation
#: and no measured scenario filters on them
COLLECTIONS: dict[str, list[dict[str, Any]]] = {
    "authors": [_id(), _field("name", "string"), _field("bio", "text")],
    "tags": [_id(), _field("name", "string")],
    "publishers": [_id(), _field("name", "string"), _field("country", "string")],
    "books": [
        _id(),
        _field("title", "string", is_nullable=False),
        _field("pages", "integer"),
        _field("price", "decimal", numeric_precision=10, numeric_scale=2),
        _field("rating", "float"),
        _field("publishedOn", "date"),
        _field("summary", "text"),
        _many_to_one("author"),
        _many_to_one("publisher"),
        _field("seo", "json"),
        _field("chapters", "json"),
        _field("blocks", "json"),
    ],
    "books_tags": [
        _id(),
        {"field": "books_id", "type": "integer", "schema": {}, "meta": {"hidden": True}},
        {"field": "tags_id", "type": "integer", "schema": {}, "meta": {"hidden": True}},
    ],
}

#: many-to-one: books.author, books.publisher; many-to-many: books.tags through books_tags
RELATIONS: list[dict[str, Any]] = [
    {
        "collection": "books",
        "field": "author",
        "related_collection": "authors",
        "schema": {"on_delete": "SET NULL"},
    },
    {
        "collection": "books",
        "field": "publisher",
        "related_collection": "publishers",
        "schema": {"on_delete": "SET NULL"},
    },
    {
        "collection": "books_tags",
        "field": "books_id",
        "related_collection": "books",
        "meta": {"one_field": "tags", "junction_field": "tags_id"},
        "schema": {"on_delete": "CASCADE"},
    },
    {
        "collection": "books_tags",
        "field": "tags_id",
        "related_collection": "tags",
        "meta": {"one_field": None, "junction_field": "books_id"},
        "schema": {"on_delete": "CASCADE"},
    },
]

#: the indexes contentapi's bench model has (``pluginOptions.contentapi.index`` on pages, price
#: and rating; every foreign key of its relation tables), on Directus's matching columns. Directus
#: does not index foreign keys itself; a user tuning it would.
INDEXES = (
    ("books", "pages"),
    ("books", "price"),
    ("books", "rating"),
    ("books", "author"),
    ("books", "publisher"),
    ("books_tags", "books_id"),
    ("books_tags", "tags_id"),
)


async def create_model(server: DirectusServer) -> None:
    """The benchmark's four content types and the books/tags junction, through the REST API."""
    async with _client(server) as client:
        for name, fields in COLLECTIONS.items():
            meta = {"hidden": name == "books_tags", "icon": "box"}
            body = {"collection": name, "schema": {}, "meta": meta, "fields": fields}
            await _call(client, "POST", "/collections", body)
        alias = {"special": ["m2m"], "interface": "list-m2m"}
        body = {"field": "tags", "type": "alias", "meta": alias}
        await _call(client, "POST", "/fields/books", body)
        for relation in RELATIONS:
            await _call(client, "POST", "/relations", relation)
    conn = await asyncpg.connect(_database_url(server.database))
    try:
        for table, column in INDEXES:
            await conn.execute(f'CREATE INDEX "{table}_{column}_index" ON "{table}" ("{column}")')
    finally:
        await conn.close()


def _database_url(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"


# ----------------------------------------------------------------------------- the data


def _book(number: int, book: dict[str, Any]) -> dict[str, Any]:
    own = {key: value for key, value in book.items() if key != "tags"}
    return {"id": number, **own, "tags": [{"tags_id": tag} for tag in book["tags"]]}


async def _post_batches(
    client: httpx.AsyncClient, collection: str, items: list[dict[str, Any]], size: int
) -> None:
    for start in range(0, len(items), size):
        batch = items[start : start + size]
        await _call(client, "POST", f"/items/{collection}?fields=id", batch)


async def seed_directus(server: DirectusServer, data: Dataset, batch: int = 250) -> float:
    """The data set with the ids 1..n it has on contentapi; the books created per second (one
    POST of ``batch`` books at a time, each with its tags)."""
    numbered = {
        "authors": data.authors,
        "tags": data.tags,
        "publishers": data.publishers,
    }
    async with _client(server) as client:
        for collection, items in numbered.items():
            rows = [{"id": number, **item} for number, item in enumerate(items, 1)]
            await _post_batches(client, collection, rows, 500)
        books = [_book(number, book) for number, book in enumerate(data.books, 1)]
        started = time.monotonic()
        await _post_batches(client, "books", books, batch)
        return len(books) / (time.monotonic() - started)


# ----------------------------------------------------------------------------- the scenarios


@dataclass(frozen=True)
class Pair:
    """One scenario as each server is asked it; ``expected_total`` is computed from the data."""

    key: str
    title: str
    contentapi: Scenario
    directus: Scenario
    expected_total: int | None
    #: the field of each book that must be non-empty in both answers (relations populated)
    populated: tuple[str, ...] = ()


_ONE_BOOK_LUA = (
    SEEDED_LUA
    + """
request = function()
  return wrk.format(nil, "/items/books/" .. math.random(1, {books}) .. "?fields={fields}")
end
"""
)


def directus_scenarios(data: Dataset) -> list[Pair]:
    """The scenarios of ``bench/scenarios.py`` that Directus can be asked equivalently."""
    ours = {scenario.key: scenario for scenario in scenarios(data)}
    page = f"limit=25&meta=filter_count&fields={BOOK_FIELDS}"
    related = (
        f"/items/books?filter[author][name][_starts_with]={quote(RELATED_AUTHOR_PREFIX)}"
        f"&filter[tags][tags_id][name][_in]={','.join(RELATED_TAGS)}&{page}"
    )
    filter_sort = (
        "/items/books?filter[pages][_gt]=100&filter[price][_lt]=50&filter[title][_icontains]=a"
        f"&sort=-rating,title&page=3&{page}"
    )
    populate = f"limit=25&meta=filter_count&fields={BOOK_FIELDS},{RELATION_FIELDS}"
    one_fields = f"*,{RELATION_FIELDS}"
    books = len(data.books)

    def pair(key: str, path: str, total: int | None, **extra: Any) -> Pair:
        scenario = ours[key]
        lua = extra.pop("lua", None)
        theirs = Scenario(key, scenario.title, "GET", path, lua_request=lua)
        return Pair(key, scenario.title, scenario, theirs, total, **extra)

    return [
        pair(
            "related_filter",
            related,
            data.expected_related(RELATED_AUTHOR_PREFIX, RELATED_TAGS),
        ),
        pair("list", f"/items/books?{page}", books),
        pair("filter_sort", filter_sort, data.expected_filtered()),
        pair(
            "populate3",
            f"/items/books?{populate}",
            books,
            populated=("author", "tags", "publisher"),
        ),
        pair(
            "one_entry",
            f"/items/books/17?fields={one_fields}",
            None,
            populated=("author", "tags", "publisher"),
            lua=_ONE_BOOK_LUA.replace("{books}", str(books)).replace("{fields}", one_fields),
        ),
    ]


async def _answer(server: Any, scenario: Scenario) -> tuple[int, Any, int]:
    """The status, the JSON and the size in bytes of the answer to ``scenario``."""
    async with _client(server) as client:
        response = await client.get(scenario.path)
    try:
        return response.status_code, response.json(), len(response.content)
    except ValueError:
        return response.status_code, {}, len(response.content)


def _total(name: str, payload: dict[str, Any]) -> int | None:
    meta = payload.get("meta") or {}
    if name == "directus":
        return meta.get("filter_count")
    return (meta.get("pagination") or {}).get("total")


def _check(name: str, pair: Pair, status: int, payload: Any) -> tuple[str | None, int | None]:
    """Why the answer is not what the scenario measures (or ``None``), and its total."""
    if not 200 <= status < 300:
        return f"status {status}: {str(payload)[:300]}", None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not data:
        return "empty data", None
    total = _total(name, payload)
    if pair.expected_total is not None and total != pair.expected_total:
        return f"total {total}, expected {pair.expected_total}", total
    first = data[0] if isinstance(data, list) else data
    if name == "contentapi" and "attributes" in first:
        first = first["attributes"]
    for relation in pair.populated:
        value = first.get(relation)
        if isinstance(value, dict) and "data" in value:
            value = value["data"]
        if not value:
            return f"{relation} not populated", total
    return None, total


async def verify(pair: Pair, servers: dict[str, Any]) -> dict[str, Any]:
    """Each server's total (and first ids) for the scenario; raises when one is wrong."""
    found: dict[str, Any] = {}
    for name, server in servers.items():
        scenario = pair.contentapi if name == "contentapi" else pair.directus
        status, payload, size = await _answer(server, scenario)
        problem, total = _check(name, pair, status, payload)
        if problem is not None:
            raise RuntimeError(f"{pair.key} on {name}: {problem}")
        data = payload["data"]
        rows = data if isinstance(data, list) else [data]
        ids = [row["id"] for row in rows[:5]]
        found[name] = {"total": total, "first_ids": ids, "bytes": size}
    return found


# ----------------------------------------------------------------------------- measuring


async def _time(server: Any, scenario: Scenario, seconds: int, connections: int) -> dict:
    base, token = server.base_url, server.token
    await asyncio.to_thread(run_wrk, base, token, scenario, 2, connections)  # warm-up
    pid = server.process.pid if server.process else 0
    with Sampler(pid) as sampler:
        result = await asyncio.to_thread(run_wrk, base, token, scenario, seconds, connections)
    return {
        # the machine's 1-minute load average after the run (this run's own load is ~3-4 on
        # 2 cores); much more means something else was running: the figures are noisy
        "load_1m": round(os.getloadavg()[0], 2),
        "rps": round(result.requests_per_second, 1),
        "p50_ms": round(result.p50_ms, 2),
        "p99_ms": round(result.p99_ms, 2),
        "errors": result.errors,
        "peak_rss_mb": round(sampler.peak_rss / 2**20, 1),
        "server_cpu_s": round(sampler.server_cpu, 2),
        "postgres_cpu_s": round(sampler.postgres_cpu, 2),
    }


def _summary(runs: list[dict]) -> dict[str, Any]:
    return {
        "rps": round(statistics.median(run["rps"] for run in runs), 1),
        "p99_ms": round(statistics.median(run["p99_ms"] for run in runs), 2),
        "errors": sum(run["errors"] for run in runs),
    }


async def measure(
    pair: Pair, servers: dict[str, Any], rounds: int, seconds: int, connections: int
) -> dict[str, Any]:
    """``rounds`` rounds, each server in turn (which goes first alternates); medians and ratio."""
    runs: dict[str, list[dict]] = {name: [] for name in servers}
    order = list(servers)
    for number in range(rounds):
        for name in order if number % 2 == 0 else order[::-1]:
            scenario = pair.contentapi if name == "contentapi" else pair.directus
            run = await _time(servers[name], scenario, seconds, connections)
            runs[name].append(run)
            print(f"  {pair.key:15s} round {number + 1} {name:10s} {run}", flush=True)
    summary = {name: _summary(found) for name, found in runs.items()}
    ours, theirs = summary["contentapi"], summary["directus"]
    return {
        **summary,
        "rps_ratio": round(ours["rps"] / theirs["rps"], 2) if theirs["rps"] else None,
        "p99_ratio": round(theirs["p99_ms"] / ours["p99_ms"], 2) if ours["p99_ms"] else None,
        "runs": runs,
    }


# ----------------------------------------------------------------------------- the plans

_LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] \S*@directus_bench (\w+):\s+(.*)$")
_EXECUTE = re.compile(r"duration: ([\d.]+) ms\s+(?:execute [^:]*|statement): (.*)$")
_PARAMETER = re.compile(r"\$(\d+) = ('(?:[^']|'')*'|NULL)")


def _statements(log: str) -> list[tuple[str, float]]:
    """The statements (parameters put in) and their durations, from PostgreSQL's log lines."""
    found: list[tuple[str, float]] = []
    pending: dict[str, int] = {}
    for line in log.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        pid, level, text = match.groups()
        execute = _EXECUTE.search(text) if level == "LOG" else None
        if execute:
            pending[pid] = len(found)
            found.append((execute.group(2), float(execute.group(1))))
        elif level == "DETAIL" and text.startswith("parameters:") and pid in pending:
            index = pending.pop(pid)
            sql, duration = found[index]
            values = dict(_PARAMETER.findall(text))
            for number in sorted(values, key=int, reverse=True):
                sql = sql.replace(f"${number}", values[number])
            found[index] = (sql, duration)
    return found


async def _explain(database_url: str, sql: str, *params: Any) -> list[str]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", *params)
    finally:
        await conn.close()
    return [row[0] for row in rows]


async def directus_plans(server: DirectusServer, scenario: Scenario) -> list[dict[str, Any]]:
    """Every statement Directus sends for one request of ``scenario`` and the plan of each that
    reads the benchmark's tables: ``log_min_duration_statement = 0`` on its database alone, for
    one request after a first one (Directus restarted, so that its pool's connections take the
    setting; its first request after a start also reads the schema into memory)."""
    admin = await asyncpg.connect(PG_ADMIN)
    url = _database_url(server.database)
    try:
        await admin.execute(
            f'ALTER DATABASE "{server.database}" SET log_min_duration_statement = 0'
        )
        server.stop()
        await server.start()
        await _answer(server, scenario)  # the first request after a start loads the schema
        await asyncio.sleep(0.5)
        offset = POSTGRES_LOG.stat().st_size
        await _answer(server, scenario)
        await asyncio.sleep(1)
        with POSTGRES_LOG.open() as log:
            log.seek(offset)
            statements = _statements(log.read())
    finally:
        await admin.execute(f'ALTER DATABASE "{server.database}" RESET log_min_duration_statement')
        await admin.close()
    found = []
    for sql, duration in statements:
        entry: dict[str, Any] = {"sql": sql, "logged_ms": duration}
        if re.search(r'"(books|authors|tags|books_tags)"', sql):
            entry["plan"] = await _explain(url, sql)
        found.append(entry)
    return found


async def contentapi_plans(server: ContentapiServer, scenario: Scenario) -> list[dict[str, Any]]:
    """The statements contentapi sends for ``scenario`` (captured in-process) and their plans."""
    statements = await capture_statements(server.database_url, MODELS, server.token, scenario)
    url = server.database_url.replace("postgresql+asyncpg://", "postgresql://")
    return [
        {
            "sql": re.sub(r"\s+", " ", sql),
            "params": [str(p) for p in params],
            "plan": await _explain(url, sql, *params),
        }
        for sql, params in statements
    ]


# ----------------------------------------------------------------------------- the run


async def _directus_version(server: DirectusServer) -> str:
    async with _client(server) as client:
        info = await _call(client, "GET", "/server/info")
    return str((info.get("data") or {}).get("version", "?"))


async def _holds(database: str, data: Dataset) -> bool:
    """Whether ``database`` already holds the data set (as many rows in each table): a run
    then starts its server on it as it is; the totals are verified before timing anyway."""
    expected = {
        "authors": len(data.authors),
        "tags": len(data.tags),
        "publishers": len(data.publishers),
        "books": len(data.books),
    }
    try:
        conn = await asyncpg.connect(_database_url(database))
    except (asyncpg.InvalidCatalogNameError, OSError):
        return False
    try:
        for table, count in expected.items():
            if await conn.fetchval(f'SELECT count(*) FROM "{table}"') != count:
                return False
    except asyncpg.PostgresError:
        return False
    finally:
        await conn.close()
    return True


async def _prepare_directus(server: DirectusServer, data: Dataset, reuse: bool) -> float | None:
    """Directus started on the seeded ``directus_bench`` (``reuse``, when it holds the data set)
    or installed, started on a fresh one, given the model and seeded; the seeding rate."""
    if reuse and await _holds(server.database, data):
        print("directus: starting on its seeded database", flush=True)
        await server.install(fresh=False)
        await server.start()
        return None
    print("directus: installing (a no-op when done) and starting on a fresh database", flush=True)
    await server.install(fresh=True)
    await server.start()
    await create_model(server)
    rate = await seed_directus(server, data)
    print(f"directus: {rate:.1f} books created per second", flush=True)
    await analyze_database(server.database)
    return round(rate, 1)


async def _prepare_contentapi(server: ContentapiServer, data: Dataset, reuse: bool) -> float | None:
    """contentapi started on the seeded ``contentapi_bench`` (``reuse``, when it holds the data
    set), or on a fresh one seeded as ``bench/run.py`` does; the seeding rate."""
    if reuse and await _holds(server.database, data):
        print("contentapi: starting on its seeded database", flush=True)
        await server.start(fresh=False)
        return None
    print("contentapi: starting on a fresh database, seeded as bench/run.py does", flush=True)
    await server.start()
    rate = await seed(server.base_url, server.token, data, server.name)
    print(f"contentapi: {rate:.1f} books created per second", flush=True)
    await analyze_database(server.database)
    return round(rate, 1)


def _commit() -> str:
    """The commit measured, and whether ``src/`` had changes not committed yet."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip()

    dirty = git("status", "--short", "src")
    return git("log", "-1", "--format=%h") + (" + uncommitted src/ changes" if dirty else "")


def _print_plans(title: str, statements: list[dict[str, Any]]) -> None:
    print(f"\n=== {title}")
    for entry in statements:
        print(f"\n{entry['sql']}")
        for line in entry.get("plan", []):
            print(f"    {line}")


def _print_table(results: dict[str, Any]) -> None:
    print(
        f"\n{'scenario':16s} {'contentapi':>12s} {'directus':>10s} {'ratio':>7s} "
        f"{'p99 ours':>9s} {'p99 theirs':>11s}  totals"
    )
    for key, row in results["scenarios"].items():
        if "contentapi" not in row:
            continue
        ours, theirs = row["contentapi"], row["directus"]
        totals = (
            f"{row['verified']['contentapi']['total']} / {row['verified']['directus']['total']}"
        )
        print(
            f"{key:16s} {ours['rps']:12.1f} {theirs['rps']:10.1f} {row['rps_ratio']:6.2f}x "
            f"{ours['p99_ms']:9.2f} {theirs['p99_ms']:11.2f}  {totals}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--books", type=int, default=5000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scenarios", help="comma-separated keys (default: all five)")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="seed both anew even when their databases hold the data set already",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "directus.json")
    parser.add_argument("--no-plans", action="store_true", help="skip the EXPLAIN capture")
    args = parser.parse_args()
    ensure_wrk()
    data = build_dataset(args.books)
    wanted = {key.strip() for key in (args.scenarios or "").split(",") if key.strip()}
    pairs = [pair for pair in directus_scenarios(data) if not wanted or pair.key in wanted]
    contentapi = ContentapiServer(workers=args.workers, bin_dir=serve_env())
    directus = DirectusServer()
    servers: dict[str, Any] = {"contentapi": contentapi, "directus": directus}
    started = time.monotonic()
    try:
        seeding = {
            "directus": await _prepare_directus(directus, data, not args.fresh),
            "contentapi": await _prepare_contentapi(contentapi, data, not args.fresh),
        }
        results: dict[str, Any] = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": _commit(),
            "machine": f"{platform.node()} {psutil.cpu_count()} cores, "
            f"{round(psutil.virtual_memory().total / 2**30)} GiB",
            "directus_version": await _directus_version(directus),
            "books": args.books,
            "seconds": args.seconds,
            "connections": args.connections,
            "rounds": args.rounds,
            "contentapi_workers": args.workers,
            "directus_fields": {"page": BOOK_FIELDS, "relations": RELATION_FIELDS},
            "seeding_books_per_second": seeding,
            "scenarios": {},
        }
        for pair in pairs:
            row: dict[str, Any] = {
                "title": pair.title,
                "contentapi_path": pair.contentapi.path,
                "directus_path": pair.directus.path,
                "expected_total": pair.expected_total,
                "verified": await verify(pair, servers),
            }
            print(f"{pair.key}: verified {row['verified']}", flush=True)
            row.update(await measure(pair, servers, args.rounds, args.seconds, args.connections))
            results["scenarios"][pair.key] = row
        related = next((pair for pair in pairs if pair.key == "related_filter"), None)
        if related is not None and not args.no_plans:
            results["plans"] = {
                "contentapi": await contentapi_plans(contentapi, related.contentapi),
                "directus": await directus_plans(directus, related.directus),
            }
        results["wall_seconds"] = round(time.monotonic() - started)
    finally:
        directus.stop()
        contentapi.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    for name, statements in results.get("plans", {}).items():
        _print_plans(f"{name}: the related filter", statements)
    _print_table(results)
    print(f"results: {args.out} ({results['wall_seconds']} s)")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
