"""EXPLAIN (ANALYZE, BUFFERS) of every statement of every benchmark scenario.

Run by hand after ``make bench`` (which leaves the seeded ``contentapi_bench`` database):

    .venv/bin/python -m bench.explain [--scenarios filter_sort,deep_filter]

Writes ``bench/results/explain.txt``: per scenario, each statement as contentapi sends it, its
execution time and its plan. The findings are summarized in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from pathlib import Path

import asyncpg

from bench.dataset import build_dataset
from bench.floor import capture_statements
from bench.scenarios import scenarios

MODELS = Path(__file__).parent / "models"
URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/contentapi_bench"
OUT = Path(__file__).parent / "results" / "explain.txt"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenarios", help="comma-separated scenario keys (default: all)")
    parser.add_argument("--books", type=int, default=5000)
    args = parser.parse_args()
    wanted = {k.strip() for k in (args.scenarios or "").split(",") if k.strip()}
    chosen = [s for s in scenarios(build_dataset(args.books)) if not wanted or s.key in wanted]
    conn = await asyncpg.connect(URL.replace("postgresql+asyncpg://", "postgresql://"))
    lines: list[str] = []
    try:
        for scenario in chosen:
            if scenario.method != "GET" and not scenario.graphql:
                continue  # a write would change the data
            statements = await capture_statements(URL, MODELS, "bench-token", scenario)
            lines += [f"=== {scenario.key}: {scenario.method} {scenario.path}", ""]
            for sql, params in statements:
                plan = await conn.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", *params)
                text = [row[0] for row in plan]
                timing = next((t for t in text if t.startswith("Execution Time")), "")
                lines += [re.sub(r"\s+", " ", sql), f"  params {params}", f"  {timing}"]
                lines += [f"    {t}" for t in text]
                lines.append("")
    finally:
        await conn.close()
    OUT.write_text("\n".join(lines) + "\n")
    print(f"written: {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
