"""A second test extension: merges with ``library`` (one more query, one more middleware on
a field ``library`` configures) and switches Shadow CRUD parts off."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, ValidationRule

from contentapi.errors import ForbiddenError
from contentapi.extensions import App
from contentapi.graphql.extension import Plugin


class NoForbiddenField(ValidationRule):
    """An extra validation rule: the field ``forbiddenByPlugin`` may never be selected."""

    def enter_field(self, node: Any, *_args: Any) -> None:
        if node.name.value == "forbiddenByPlugin":
            self.report_error(GraphQLError("forbiddenByPlugin is refused by a plugin", node))


def refuse_when_asked(context: Any, document: Any, operation_name: str | None) -> None:
    if context.request.headers.get("x-refuse"):
        raise ForbiddenError("Refused by a plugin")


async def mark(context: Any, body: dict[str, Any]) -> None:
    if context.request.headers.get("x-mark"):
        body["extensions"] = {"marked": True}


async def bracket(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    return f"[{await next(parent, args, context, info)}]"


def register(app: App) -> None:
    app.graphql.shadow_crud("api::profile.profile").disable_mutations()
    app.graphql.extension_service.use(
        {
            "typeDefs": "extend type Query { second: String forbiddenByPlugin: String }",
            "plugins": [
                Plugin(validation_rules=[NoForbiddenField], on_execute=refuse_when_asked),
                {"on_result": mark},
            ],
            "resolvers": {"Query": {"second": lambda parent, info: "second"}},
            "resolversConfig": {
                "Query.second": {"auth": False},
                "Query.echo": {"middlewares": [bracket]},
            },
        }
    )
