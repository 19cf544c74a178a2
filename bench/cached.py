"""``python -m bench.cached``: cached reads beside Strapi's uncached ones (issue 30).

A content API answers the same pages again and again; the response cache
(``CONTENTAPI_RESPONSE_CACHE=memory``, docs/response-cache.md) answers a repeated read from
the worker's memory once the change listener has caught up, and ``If-None-Match`` answers 304
without a body (docs/caching.md). This module measures both on the benchmark's data:

1. starts Strapi (installed and seeded afresh, ~2 min) and two contentapi servers — the cache
   off (as ``bench.run`` measures it) and the cache on — on the database ``python -m bench.run``
   seeded (``contentapi_bench``; seeded first when it does not hold the data set);
2. for the list, the list with three relations populated and the GraphQL list (as a ``GET``:
   the cache keeps GraphQL ``GET`` queries; Strapi answers the same document as a ``POST``),
   verifies the answers, then times Strapi, contentapi uncached, contentapi cached, and the 304
   path (``If-None-Match`` with the answer's own ``ETag``), the servers alternating, ``--rounds``
   rounds each (the best round counts: the cache's figure is not what a round's noise makes it);
3. reads the cached server's hit ratio from ``GET /_cache`` (per worker, summed);
4. writes ``bench/results/cached.json`` and prints the table.

    python -m bench.cached                  # ~7 min (Strapi seeded each time)
    python -m bench.cached --rounds 3 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.dataset import Dataset, build_dataset
from bench.directus import _holds, _time
from bench.load import ensure_wrk
from bench.scenarios import GRAPHQL_QUERY, Scenario, scenarios
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import ContentapiServer, StrapiServer, analyze_database

RESULTS = Path(__file__).resolve().parent / "results"
KEYS = ("list", "populate3", "graphql")


def _get_form(scenario: Scenario) -> Scenario:
    """The scenario as contentapi's cache keeps it: GraphQL as a ``GET`` query."""
    if not scenario.graphql:
        return scenario
    return Scenario(
        scenario.key,
        scenario.title,
        "GET",
        f"/graphql?query={quote(GRAPHQL_QUERY)}",
        expected_total=scenario.expected_total,
        graphql=True,
    )


def _revalidating(scenario: Scenario, etag: str) -> Scenario:
    """The scenario sent with ``If-None-Match``: every answer a 304."""
    header = f"wrk.headers['If-None-Match'] = [[{etag}]]\n"
    return Scenario(scenario.key, scenario.title, "GET", scenario.path, lua_request=header)


async def _answer(server: Any, scenario: Scenario) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
        return await client.request(
            scenario.method,
            scenario.path,
            content=scenario.body,
            headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
        )


async def _verified(server: Any, scenario: Scenario) -> httpx.Response:
    response = await _answer(server, scenario)
    problem = scenario.verify(response.status_code, response.json())
    if problem is not None:
        raise RuntimeError(f"{server.name}, {scenario.key}: {problem}")
    return response


async def _counters(server: ContentapiServer, asks: int = 40) -> dict[str, int]:
    """``GET /_cache`` of every worker (each answers for itself), summed."""
    by_worker: dict[Any, dict[str, Any]] = {}
    for _ in range(asks):  # a connection each: the kernel hands new ones to any worker
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
            response = await client.get(
                "/_cache", headers={"Authorization": f"Bearer {server.token}"}
            )
        response.raise_for_status()
        body = response.json()
        by_worker[body["worker"]] = body
    totals: dict[str, int] = {}
    for body in by_worker.values():
        for name in ("hits", "misses", "stores", "evictions", "bypasses"):
            totals[name] = totals.get(name, 0) + int(body.get(name, 0))
    totals["workers_seen"] = len(by_worker)
    return totals


async def _prepare(servers: list[Any], data: Dataset) -> None:
    for server in servers:
        if await _holds(server.database, data):
            await server.start(fresh=False)
            continue
        print(f"{server.name}: seeding {server.database}", flush=True)
        await server.start()
        await seed(server.base_url, server.token, data, server.name)
        await analyze_database(server.database)


async def cached_phase(
    data: Dataset,
    uncached: ContentapiServer,
    strapi: Any | None,
    *,
    seconds: int,
    connections: int,
    rounds: int,
) -> dict[str, Any]:
    """The cached scenarios on running servers: ``uncached`` (its database seeded) and Strapi
    (``None``: contentapi alone); a second contentapi with the cache on is started on
    ``uncached``'s database for the phase. ``bench.run`` calls it after its fixed scenarios."""
    chosen = [s for s in scenarios(data) if s.key in KEYS]
    cached = ContentapiServer(
        port=uncached.port + 4,
        workers=uncached.workers,
        bin_dir=uncached.bin_dir,
        database=uncached.database,
        name="cached",
        settings={"CONTENTAPI_RESPONSE_CACHE": "memory"},
    )
    await cached.start(fresh=False)
    phase: dict[str, Any] = {"rounds": rounds, "scenarios": {}}
    try:
        for scenario in chosen:
            ours = _get_form(scenario)
            if strapi is not None:
                await _verified(strapi, scenario)
            await _verified(uncached, ours)
            answer = await _verified(cached, ours)
            etag = answer.headers.get("etag")
            runs: dict[str, list[dict]] = {"strapi": [], "uncached": [], "cached": [], "304": []}
            for _ in range(rounds):
                if strapi is not None:
                    runs["strapi"].append(await _time(strapi, scenario, seconds, connections))
                runs["uncached"].append(await _time(uncached, ours, seconds, connections))
                runs["cached"].append(await _time(cached, ours, seconds, connections))
                if etag:
                    revalidating = _revalidating(ours, etag)
                    runs["304"].append(await _time(cached, revalidating, seconds, connections))
            best = {name: max(r, key=lambda run: run["rps"]) for name, r in runs.items() if r}
            strapi_rps = best["strapi"]["rps"] if "strapi" in best else None
            phase["scenarios"][scenario.key] = {
                "title": scenario.title,
                "best": best,
                "runs": runs,
                "x_strapi": {
                    name: round(run["rps"] / strapi_rps, 2) if strapi_rps else None
                    for name, run in best.items()
                },
            }
            print(scenario.key, json.dumps(phase["scenarios"][scenario.key]["x_strapi"]))
        counters = await _counters(cached)
    finally:
        cached.stop()
    looked = counters["hits"] + counters["misses"]
    phase["cache_counters"] = counters
    phase["hit_ratio"] = round(counters["hits"] / looked, 4) if looked else None
    return phase


def print_phase(phase: dict[str, Any]) -> None:
    print(f"\n{'cached':10s} {'strapi':>9s} {'uncached':>9s} {'cached':>9s} {'304':>9s}")
    for key, row in phase["scenarios"].items():
        cells = [
            f"{row['best'][name]['rps']:9.1f}" if name in row["best"] else f"{'-':>9s}"
            for name in ("strapi", "uncached", "cached", "304")
        ]
        print(f"{key:10s} " + " ".join(cells))
    print(f"hit ratio {phase['hit_ratio']} ({phase['cache_counters']})")


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--books", type=int, default=5000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    ensure_wrk()
    data = build_dataset(args.books)
    uncached = ContentapiServer(workers=args.workers, bin_dir=serve_env(), name="uncached")
    strapi = StrapiServer()
    await _prepare([uncached], data)
    # Strapi started again on a database it seeded answered 404 to /api/books (seen
    # 2026-11-27); installed and seeded afresh, as ``bench.run`` does, it answers
    await strapi.start()
    await seed(strapi.base_url, strapi.token, data, strapi.name)
    await analyze_database(strapi.database)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "books": args.books,
        "seconds": args.seconds,
        "connections": args.connections,
        "contentapi_workers": args.workers,
    }
    try:
        results.update(
            await cached_phase(
                data,
                uncached,
                strapi,
                seconds=args.seconds,
                connections=args.connections,
                rounds=args.rounds,
            )
        )
    finally:
        uncached.stop()
        strapi.stop()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cached.json").write_text(json.dumps(results, indent=2))
    print_phase(results)


if __name__ == "__main__":
    asyncio.run(main())
