"""A typical GraphQL extension for the benchmark's models, to measure what loading one costs.

Run ``CONTENTAPI_EXTENSIONS=bench.extension make bench BENCH_ARGS="--only contentapi
--scenarios graphql"`` and compare with the same run without it: the scenario's query touches
none of the fields configured here, so it keeps the compiled path (docs/graphql.md).
"""

from __future__ import annotations

from typing import Any

from contentapi.extensions import App

TYPE_DEFS = """
extend type Query { bookCount: Int! }
extend type Publisher { label: String }
"""


def is_identified(context: Any, app: App) -> bool:
    return context.state.kind != "public"


async def timing(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    return await next(parent, args, context, info)


async def book_count(parent: Any, info: Any) -> int:
    runtime = info.context.runtime
    query = runtime.query_parser.read_query(runtime.registry.content_types["api::book.book"], {})
    return await runtime.entries.count("api::book.book", query)


def register(app: App) -> None:
    app.graphql.shadow_crud("api::tag.tag").disable_action("delete")
    app.graphql.shadow_crud("api::book.book").field("summary").disable_output()
    app.policies.register("is-identified", is_identified)
    app.graphql.extension_service.use(
        {
            "type_defs": TYPE_DEFS,
            "resolvers": {
                "Query": {"bookCount": book_count},
                "Publisher": {
                    "label": lambda parent, info: f"{parent['name']} ({parent['country']})"
                },
            },
            "resolvers_config": {
                "Query.bookCount": {"policies": ["is-identified"], "middlewares": [timing]},
                "Query.authors": {"middlewares": [timing]},
                "Author.bio": {"middlewares": [timing]},
            },
        }
    )
