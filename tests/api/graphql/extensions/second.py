"""A second test extension: merges with ``library`` (one more query, one more middleware on
a field ``library`` configures) and switches Shadow CRUD parts off."""

from __future__ import annotations

from typing import Any

from contentapi.extensions import App


async def bracket(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    return f"[{await next(parent, args, context, info)}]"


def register(app: App) -> None:
    app.graphql.shadow_crud("api::profile.profile").disable_mutations()
    app.graphql.extension_service.use(
        {
            "typeDefs": "extend type Query { second: String }",
            "resolvers": {"Query": {"second": lambda parent, info: "second"}},
            "resolversConfig": {
                "Query.second": {"auth": False},
                "Query.echo": {"middlewares": [bracket]},
            },
        }
    )
