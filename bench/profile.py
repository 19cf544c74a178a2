"""Where a request's CPU goes inside the app: the read scenarios profiled in-process.

Run by hand after ``make bench`` (which leaves the seeded ``contentapi_bench`` database):

    .venv/bin/python -m bench.profile [--scenarios list,populate3] [--requests 300]

Each scenario's request is sent straight to the ASGI app (no HTTP server, no client), first
timed (CPU per request, the process's own: PostgreSQL's work is not in it), then run again
under ``cProfile`` to split that time into the parts of a request: authorization, the database
driver (asyncpg and the rows' processing), the rest of finding the entries (statements built or
taken from the cache, populate's assembly), serializing, the JSON encoding, and what remains
outside our handler (routing, middleware, FastAPI's dependency solving). The shares come from
cProfile, which inflates many small Python calls more than C work, so they are proportions to
compare, not exact costs. The HTTP server (uvicorn) is not in these figures: in the benchmark a
worker spends roughly as much again per request on it.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.dataset import build_dataset
from bench.scenarios import Scenario, scenarios
from contentapi.app import create_app
from contentapi.config import Settings

MODELS = Path(__file__).parent / "models"
URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/contentapi_bench"
TOKEN = "bench-token"

#: (part, file suffix, function names): the largest cumulative time among the matches
PARTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("authorization", "auth/deps.py", ("require",)),
    ("query string", "rest/handlers.py", ("_list_query", "_entry_query")),
    ("database driver", "db/driver.py", ("rows", "mappings")),
    ("finding entries (driver included)", "entries/reads.py", ("find_many", "find_one")),
    ("serializing", "entries/serialize.py", ("entries", "entry")),
    ("JSON encoding", "http/responses.py", ("render",)),
)


async def _call(app: Any, scenario: Scenario) -> int:
    """One request through the ASGI app; its status."""
    url = urlsplit(scenario.path)
    body = (scenario.body or "").encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": scenario.method,
        "scheme": "http",
        "path": url.path,
        "raw_path": url.path.encode(),
        "root_path": "",
        "query_string": url.query.encode(),
        "headers": [
            (b"host", b"bench"),
            (b"authorization", f"Bearer {TOKEN}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    delivered = False
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    return status[0]


def _cumulative(stats: pstats.Stats, suffix: str, names: tuple[str, ...]) -> float:
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    found = [
        cumulative
        for (file, _, name), (_, _, _, cumulative, _) in table.items()
        if file.endswith(suffix) and name in names
    ]
    return max(found, default=0.0)


async def _profile(app: Any, scenario: Scenario, requests: int) -> str:
    for _ in range(50):  # warm: statements prepared, caller and totals cached
        status = await _call(app, scenario)
        assert status == 200, f"{scenario.key}: status {status}"
    started = time.process_time()
    for _ in range(requests):
        await _call(app, scenario)
    cpu = (time.process_time() - started) / requests * 1e6
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        await _call(app, scenario)
    profiler.disable()
    stats = pstats.Stats(profiler)
    whole = _cumulative(stats, "fastapi/applications.py", ("__call__",))
    handler = _cumulative(stats, "rest/handlers.py", ("collection", "item"))
    shares = {part: _cumulative(stats, suffix, names) for part, suffix, names in PARTS}
    shares["outside the handler (routing, middleware, dependencies)"] = whole - handler
    split = ", ".join(f"{part} {100 * value / whole:.0f}%" for part, value in shares.items())
    return f"| {scenario.title} | {cpu:.0f} | {split} |"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenarios", help="comma-separated REST read scenarios (default: all)")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--books", type=int, default=5000)
    parser.add_argument("--database-url", default=URL)
    args = parser.parse_args()
    wanted = {k.strip() for k in (args.scenarios or "").split(",") if k.strip()}
    reads = [s for s in scenarios(build_dataset(args.books)) if s.method == "GET"]
    chosen = [s for s in reads if not wanted or s.key in wanted]
    settings = Settings(database_url=args.database_url, content_types_dir=MODELS, admin_token=TOKEN)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        print("| scenario | CPU µs per request (in-process) | shares of the profiled time |")
        print("|---|---|---|")
        for scenario in chosen:
            print(await _profile(app, scenario, args.requests))


if __name__ == "__main__":
    asyncio.run(main())
