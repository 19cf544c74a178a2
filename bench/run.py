"""``make bench``: contentapi and the reference Strapi side by side, on the same data.

    python -m bench.run                       # both servers, alternating per scenario
    python -m bench.run --only contentapi --against bench/results/latest.json
    python -m bench.run --books 500 --seconds 5   # a quick smoke run
    python -m bench.run --scenarios random        # the random-query phase alone
    python -m bench.run --books 500000 --bulk --random-queries 0   # 100x the data, by COPY

Every scenario's response is verified (2xx, non-empty data, expected total) before it is
measured with wrk, once the machine is idle (``bench/load.py`` ``settle``); then the cached
phase (``bench/cached.py``: the response cache's hits and the 304 path beside contentapi
uncached and Strapi, for the list, the populated list and GraphQL) and the random-query phase
(``bench/random_queries.py``), which measures ``--random-queries`` drawn list queries on both
servers. Results go to ``bench/results/`` as JSON (the worst random queries with their plans to
``random-queries.md``) and a table of ratios is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

from bench.bulk_seed import bulk_seed
from bench.cached import cached_phase, print_phase
from bench.dataset import build_dataset
from bench.floor import capture_statements, replay
from bench.load import ensure_wrk, run_wrk, settle
from bench.random_queries import (
    RECHECKED,
    draw_queries,
    explain,
    lowest_rows,
    measure_random,
    recheck_lowest,
    report_markdown,
    summarize,
)
from bench.scenarios import Scenario, scenarios
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import (
    MODELS,
    ContentapiServer,
    Sampler,
    StrapiServer,
    analyze_database,
)

console = Console(width=170)
RESULTS = Path(__file__).resolve().parent / "results"


async def _verify(server: Any, scenario: Scenario) -> str | None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
        response = await client.request(
            scenario.method,
            scenario.path,
            content=scenario.body,
            headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
        )
    try:
        payload = response.json()
    except ValueError:
        payload = {}
    return scenario.verify(response.status_code, payload)


async def _measure(
    server: Any, pid: int, scenario: Scenario, seconds: int, connections: int
) -> dict:
    settled = await asyncio.to_thread(settle)  # the previous scenario's leftover work done
    problem = await _verify(server, scenario)
    if problem is not None:
        return {"available": False, "reason": problem}
    await asyncio.to_thread(
        run_wrk, server.base_url, server.token, scenario, 2, connections
    )  # warm-up
    with Sampler(pid) as sampler:
        result = await asyncio.to_thread(
            run_wrk, server.base_url, server.token, scenario, seconds, connections
        )
    return {
        "available": True,
        "rps": round(result.requests_per_second, 1),
        "p50_ms": round(result.p50_ms, 2),
        "p99_ms": round(result.p99_ms, 2),
        "errors": result.errors,
        "peak_rss_mb": round(sampler.peak_rss / 2**20, 1),
        "server_cpu_s": round(sampler.server_cpu, 2),
        "postgres_cpu_s": round(sampler.postgres_cpu, 2),
        "settled_s": settled,
    }


def _ratio(ours: dict | None, theirs: dict | None, key: str, invert: bool = False) -> str:
    if not ours or not theirs or not ours.get("available") or not theirs.get("available"):
        return "n/a"
    a, b = ours[key], theirs[key]
    if not a or not b:
        return "n/a"
    return f"{(b / a) if invert else (a / b):.2f}x"


def _print(results: dict, baseline: dict | None) -> None:
    table = Table(title=f"contentapi vs {'stored result' if baseline else 'Strapi'}")
    for column in (
        "scenario",
        "contentapi req/s",
        "other req/s",
        "req/s ratio",
        "p99 ms",
        "other p99",
        "p99 ratio",
        "raw SQL floor req/s",
    ):
        table.add_column(column)
    for key, row in results["scenarios"].items():
        ours = row.get("contentapi")
        theirs = (
            (baseline or {}).get("scenarios", {}).get(key, {}).get("contentapi")
            if baseline
            else row.get("strapi")
        )

        def cell(entry: dict | None, field: str) -> str:
            if not entry:
                return "-"
            return (
                str(entry[field])
                if entry.get("available")
                else f"not available ({entry['reason']})"
            )

        table.add_row(
            row["title"],
            cell(ours, "rps"),
            cell(theirs, "rps"),
            _ratio(ours, theirs, "rps"),
            cell(ours, "p99_ms"),
            cell(theirs, "p99_ms"),
            _ratio(ours, theirs, "p99_ms", invert=True),
            str(results.get("floor", {}).get(key, "-")),
        )
    console.print(table)
    for name, rate in results.get("seeding_books_per_second", {}).items():
        console.print(f"seeding {name}: {rate} books/s")
    for name in ("contentapi", "strapi"):
        peaks = [
            row[name]["peak_rss_mb"]
            for row in results["scenarios"].values()
            if row.get(name, {}).get("available")
        ]
        if peaks:
            console.print(f"peak RSS {name}: {max(peaks)} MB")


async def _random_phase(
    results: dict, servers: list[Any], contentapi: Any, data: Any, count: int, args: Any
) -> None:
    """The random-query phase (``bench/random_queries.py``): its summary into ``results``,
    the worst queries with their plans into ``bench/results/random-queries.md``."""
    queries = draw_queries(data, count, args.random_seed)
    rows = await measure_random(servers, queries, args.random_requests, args.connections)
    if len(servers) < 2:
        results["random"] = {
            "summary": {"measured": len(rows)},
            "rows": rows,
            "seed": args.random_seed,
        }
        return
    first_pass = summarize(rows)
    console.print(f"random queries, first pass: {first_pass}")
    await recheck_lowest(servers, rows, args.connections, args.random_recheck)
    summary = summarize(rows)
    results["random"] = {
        "summary": summary,
        "first_pass": first_pass,
        "rechecked": args.random_recheck,
        "rows": rows,
        "seed": args.random_seed,
    }
    console.print(f"random queries: {summary}")
    if contentapi is None:
        return
    plans = {
        row["path"]: await explain(contentapi.database_url, contentapi.token, row["path"])
        for row in lowest_rows(rows, 10)
    }
    (RESULTS / "random-queries.md").write_text(report_markdown(summary, rows, plans, first_pass))


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--books", type=int, default=5000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=("contentapi", "strapi", "both"), default="both")
    parser.add_argument("--against", type=Path, help="compare with a stored result (contentapi)")
    parser.add_argument("--no-floor", action="store_true")
    parser.add_argument(
        "--no-cached",
        action="store_true",
        help="skip the cached phase (the response cache and the 304 path: bench/cached.py)",
    )
    parser.add_argument(
        "--dev-env",
        action="store_true",
        help="run contentapi from this (development) environment, not bench/.venv-serve",
    )
    parser.add_argument(
        "--scenarios",
        help="comma-separated scenario keys to run (default: all), e.g. graphql; "
        "'random' for the random-query phase",
    )
    parser.add_argument("--random-queries", type=int, default=500, help="0: no random phase")
    parser.add_argument("--random-requests", type=int, default=160, help="per query and server")
    parser.add_argument("--random-seed", type=int, default=11)
    parser.add_argument(
        "--random-recheck",
        type=int,
        default=RECHECKED,
        help="queries of lowest ratio measured twice more, each one's figure the median of "
        "its three passes (0: one pass)",
    )
    parser.add_argument(
        "--bulk",
        action="store_true",
        help="seed the books with COPY (bench/bulk_seed.py), not the API: for large --books",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="CONTENTAPI_NAME=VALUE",
        help="a setting of contentapi's beside the benchmark's own (repeatable), e.g. "
        "CONTENTAPI_DATABASE_READ_CONCURRENCY=3",
    )
    parser.add_argument(
        "--tag",
        help="a run beside another: databases contentapi_bench_TAG and strapi_bench_TAG, "
        "contentapi on port 1342, results in bench/results/TAG.json (latest.json untouched)",
    )
    args = parser.parse_args()
    ensure_wrk()
    data = build_dataset(args.books)
    wanted = {key.strip() for key in (args.scenarios or "").split(",") if key.strip()}
    chosen = [s for s in scenarios(data) if not wanted or s.key in wanted]
    random_count = args.random_queries if not wanted or "random" in wanted else 0
    servers: list[Any] = []
    if args.only in ("contentapi", "both"):
        bin_dir = Path(sys.executable).parent if args.dev_env else serve_env()
        tagged = {"database": f"contentapi_bench_{args.tag}", "port": 1342} if args.tag else {}
        settings = dict(setting.split("=", 1) for setting in args.set)
        servers.append(
            ContentapiServer(workers=args.workers, bin_dir=bin_dir, settings=settings, **tagged)
        )
    if args.only in ("strapi", "both") and not args.against:
        if StrapiServer.available():
            servers.append(
                StrapiServer(**({"database": f"strapi_bench_{args.tag}"} if args.tag else {}))
            )
        else:
            console.print(
                "[yellow]Node.js, npm or the PostgreSQL client tools not found: measuring "
                "contentapi alone (bench/reference/README.md)[/yellow]"
            )
    started = time.monotonic()
    seeding: dict[str, float] = {}
    try:
        for server in servers:
            console.print(f"starting {server.name} …")
            await server.start()
            if args.bulk:
                rate = await bulk_seed(server, data)
            else:
                rate = await seed(server.base_url, server.token, data, server.name)
            seeding[server.name] = round(rate, 1)
            console.print(f"{server.name}: {rate:.1f} books created per second")
            await analyze_database(server.database)
        results: dict[str, Any] = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.node()} {psutil.cpu_count()} cores, "
            f"{round(psutil.virtual_memory().total / 2**30)} GiB",
            "books": args.books,
            "seconds": args.seconds,
            "connections": args.connections,
            "contentapi_workers": args.workers,
            "contentapi_settings": dict(setting.split("=", 1) for setting in args.set),
            "scenarios": {},
            "floor": {},
            # books created per second through POST /api/books (16 at once), or by COPY
            "seeding_books_per_second": seeding,
            "seeding": "COPY (bench/bulk_seed.py)" if args.bulk else "REST API",
        }
        for scenario in chosen:
            row: dict[str, Any] = {"title": scenario.title}
            for server in servers:  # alternating: each scenario on each server in turn
                pid = server.process.pid if server.process else 0
                row[server.name] = await _measure(
                    server, pid, scenario, args.seconds, args.connections
                )
                console.print(f"{scenario.key:14s} {server.name:10s} {row[server.name]}")
            results["scenarios"][scenario.key] = row
        contentapi = next((s for s in servers if s.name == "contentapi"), None)
        strapi = next((s for s in servers if s.name == "strapi"), None)
        if contentapi is not None and not args.no_cached and (not wanted or "cached" in wanted):
            results["cached"] = await cached_phase(
                data,
                contentapi,
                strapi,
                seconds=args.seconds,
                connections=args.connections,
                rounds=1,
            )
        if random_count:
            await _random_phase(results, servers, contentapi, data, random_count, args)
        if contentapi is not None and not args.no_floor:
            for scenario in chosen:
                statements = await capture_statements(
                    contentapi.database_url, MODELS, contentapi.token, scenario
                )
                dsn = contentapi.database_url.replace("postgresql+asyncpg://", "postgresql://")
                write = scenario.method != "GET" and not scenario.graphql
                rps = await replay(
                    dsn, statements, args.seconds, args.connections, transaction=write
                )
                results["floor"][scenario.key] = round(rps, 1)
        results["wall_seconds"] = round(time.monotonic() - started)
    finally:
        for server in servers:
            server.stop()
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for path in (RESULTS / f"{stamp}.json", RESULTS / f"{args.tag or 'latest'}.json"):
        path.write_text(json.dumps(results, indent=2))
    baseline = json.loads(args.against.read_text()) if args.against else None
    _print(results, baseline)
    if "cached" in results:
        print_phase(results["cached"])
    console.print(f"results: {path} ({results['wall_seconds']} s)")


if __name__ == "__main__":
    asyncio.run(main())
