"""What loading a GraphQL extension costs the benchmark's GraphQL query (in-process, interleaved).

Two apps on the same seeded PostgreSQL database — one plain, one with ``bench.extension``
loaded — answer the benchmark's nested books query one request at a time through ASGI (no
network, no concurrency), alternating, so that drift on a shared machine hits both. Prints the
median and mean time per request of each. Run by hand after ``make bench`` has seeded
``contentapi_bench`` (it leaves the database in place):

    .venv/bin/python -m bench.graphql_extension_cost [--requests 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.scenarios import GRAPHQL_QUERY
from contentapi.app import create_app
from contentapi.config import Settings

MODELS = Path(__file__).parent / "models"
DATABASE = "postgresql+asyncpg://postgres@127.0.0.1:5432/contentapi_bench"
TOKEN = "bench-token"


def _app(extensions: str | None) -> tuple[httpx.AsyncClient, Any]:
    settings = Settings(
        database_url=DATABASE,
        content_types_dir=MODELS,
        admin_token=TOKEN,
        uploads_dir=Path(tempfile.mkdtemp(prefix="bench-uploads-")),
        extensions=extensions,
    )
    app = create_app(settings)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench")
    return client, app.router.lifespan_context(app)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument(
        "--custom",
        action="store_true",
        help="the extension app's query also selects Publisher.label (a custom field per row)",
    )
    args = parser.parse_args()
    apps = {"plain": _app(None), "extension": _app("bench.extension")}
    clients = {name: client for name, (client, _) in apps.items()}
    for _, lifespan in apps.values():
        await lifespan.__aenter__()
    bodies = {"plain": {"query": GRAPHQL_QUERY}, "extension": {"query": GRAPHQL_QUERY}}
    if args.custom:
        custom = GRAPHQL_QUERY.replace(
            "attributes { name } } } seo", "attributes { name label } } } seo"
        )
        assert custom != GRAPHQL_QUERY
        bodies["extension"] = {"query": custom}
    headers = {"Authorization": f"Bearer {TOKEN}"}
    samples: dict[str, list[float]] = {name: [] for name in clients}
    for round_ in range(args.requests + 20):
        for name, client in clients.items():
            started = time.perf_counter()
            response = await client.post("/graphql", json=bodies[name], headers=headers)
            elapsed = time.perf_counter() - started
            assert response.status_code == 200 and "errors" not in response.json(), response.text
            if round_ >= 20:  # warm-up: plan caches, connection pools
                samples[name].append(elapsed * 1000)
    for name, values in samples.items():
        print(
            f"{name:10} median {statistics.median(values):6.2f} ms   "
            f"mean {statistics.fmean(values):6.2f} ms   ({len(values)} requests)"
        )
    plain, extension = (statistics.median(samples[n]) for n in ("plain", "extension"))
    print(f"extension / plain (median): {extension / plain:.3f}")
    for _, lifespan in apps.values():
        await lifespan.__aexit__(None, None, None)


if __name__ == "__main__":
    asyncio.run(main())
