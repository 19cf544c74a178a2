"""Micro-benchmark: shaping the benchmark's nested books query (25 books, relations, a component
and a dynamic zone) with the compiled shaper vs graphql-core completing the same tree.

Both start from the rows the entry service returns (no database involved): the shaper writes the
response in one pass; graphql-core's executor walks the already-built tree field by field with
its default resolvers (the cheapest graphql-core execution can be). Run by hand:

    .venv/bin/python -m bench.graphql_micro
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from graphql import ExecutionContext, execute, parse

from bench.scenarios import GRAPHQL_QUERY
from contentapi.config import Settings
from contentapi.graphql import graphql_schema
from contentapi.graphql.context import Precompleted
from contentapi.graphql.execute import ShapedExecutionContext
from contentapi.graphql.plan import Page, PlanContext, Planner, window
from contentapi.runtime import Runtime

MODELS = Path(__file__).parent / "models"


def rows() -> list[dict[str, Any]]:
    """25 books as the entry service hands them over (populated dicts)."""
    return [
        {
            "id": n,
            "title": f"Book {n}",
            "pages": 100 + n,
            "price": 9.5,
            "rating": 4.0,
            "author": {"id": n % 7 + 1, "name": f"Author {n % 7}"},
            "tags": [{"id": t, "name": f"tag{t}"} for t in (1, 2, 3)],
            "publisher": {"id": 1, "name": "Pub"},
            "seo": {"id": n, "metaTitle": f"m{n}", "metaDescription": "d"},
            "blocks": [
                {"id": 1, "__component": "bench.quote", "text": "t", "by": "b"},
                {"id": 2, "__component": "bench.rich", "body": "x"},
            ],
        }
        for n in range(1, 26)
    ]


def timed(label: str, run: Any, repeat: int = 400) -> float:
    for _ in range(50):
        run()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    median = statistics.median(samples) * 1000
    print(f"{label:58s} {median:7.3f} ms per response")
    return median


def main() -> None:
    database = Path(tempfile.mkdtemp()) / "micro.db"
    settings = Settings(content_types_dir=MODELS, database_url=f"sqlite+aiosqlite:///{database}")
    runtime = Runtime.build(settings)
    schema = graphql_schema(runtime)
    document = parse(GRAPHQL_QUERY)
    planner = Planner(runtime.registry, 100)
    books = runtime.registry.content_types["api::book.book"]
    captured: dict[str, Any] = {}

    def capture(_parent: Any, info: Any, **_args: Any) -> Any:
        context = PlanContext(info.schema, info.fragments, info.variable_values, None, bool)  # type: ignore[arg-type]
        captured["selection"] = planner.collection(
            context, books, info.return_type, list(info.field_nodes)
        )
        return None

    schema.query_type.fields["books"].resolve = capture
    execute(schema, document)
    selection = captured["selection"]
    page = Page(rows(), 5000, window({"pageSize": 25}, 100))
    shaped = selection.shaper(page, [])

    def shape_only() -> None:
        selection.shaper(Page(rows(), 5000, page.window), [])

    def plain_graphql_core() -> None:
        schema.query_type.fields["books"].resolve = lambda *_a, **_k: shaped
        result = execute(schema, document, execution_context_class=ExecutionContext)
        assert not result.errors, result.errors

    def precompleted() -> None:
        schema.query_type.fields["books"].resolve = lambda *_a, **_k: Precompleted(
            selection.shaper(Page(rows(), 5000, page.window), [])
        )
        execute(schema, document, execution_context_class=ShapedExecutionContext)

    baseline = timed("rows() alone (subtracted below)", rows)
    ours = timed("compiled shaper", shape_only) - baseline
    whole = timed("graphql-core execute, root precompleted by the shaper", precompleted) - baseline
    theirs = timed("graphql-core execute, default resolvers over the tree", plain_graphql_core)
    print(
        f"shaper {ours:.3f} ms, our whole execution {whole:.3f} ms, graphql-core walk "
        f"{theirs:.3f} ms: {theirs / max(whole, 1e-6):.1f}x"
    )
    asyncio.run(runtime.stop())


if __name__ == "__main__":
    main()
