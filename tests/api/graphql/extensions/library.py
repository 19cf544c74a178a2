"""A test extension using every key: Strawberry types, SDL, resolvers, resolvers_config.

``SEEN`` records what policies and middlewares received, for the tests to read.
"""

from __future__ import annotations

from typing import Any

import strawberry

from contentapi.errors import ValidationError
from contentapi.extensions import App
from contentapi.graphql.wrap import PolicyContext

SEEN: dict[str, Any] = {}


@strawberry.type
class Stats:
    """A Strawberry-typed payload."""

    articles: int
    label: str

    @strawberry.field
    def doubled(self) -> int:
        return self.articles * 2


TYPE_DEFS = """
type Shelf {
  name: String!
  size: Int
}

extend type Query {
  shelf(name: String!): Shelf
  stats: Stats
  open: String
  scoped: String
  guarded(allow: Boolean!): String
  inlineGuarded(allow: Boolean!): String
  echo(text: String!): String
  articlesTitled(title: String!): ArticleEntityResponseCollection
  firstArticle: ArticleEntityResponse
}

extend type Mutation {
  shout(text: String!): String
}

extend type Article {
  titleLength: Int
  shelf: Shelf
  boom: String
}

extend type ArticleEntity {
  permalink: String
}
"""


def shelf(parent: Any, info: Any, name: str) -> dict[str, Any]:
    return {"name": name, "size": len(name)}


async def stats(parent: Any, info: Any) -> Stats:
    services = info.context.services
    content_type = services.registry.content_types["api::article.article"]
    query = services.query_parser.read_query(content_type, {})
    return Stats(articles=await services.entries.count("api::article.article", query), label="s")


def boom(parent: Any, info: Any) -> str:
    if parent["title"].startswith("Second"):
        raise ValidationError("no boom for the second")
    return "boom"


def allow_if_asked(context: PolicyContext, app: App) -> bool:
    SEEN["policy"] = {
        "parent": context.parent,
        "args": context.args,
        "context": context.context,
        "info": context.info,
        "http": context.http,
        "state": context.state,
        "app": app,
    }
    return bool(context.args.get("allow"))


async def shout_args(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    """Rewrites an argument before the resolver sees it."""
    return await next(parent, {**args, "text": args["text"].upper()}, context, info)


async def exclaim(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    """Post-processes the resolver's result."""
    return f"{await next(parent, args, context, info)}!"


async def note_root_call(
    next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any
) -> Any:
    """On a generated root: sees its arguments and its (precompleted) answer."""
    result = await next(parent, args, context, info)
    SEEN["authors"] = {"args": args, "data": result.data}
    return result


def upper_title(next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any) -> Any:
    """A sync middleware on a generated nested field: the compiled value comes as
    ``Precompleted`` (its ``data`` is the value as it would be written)."""

    async def run() -> Any:
        result = await next(parent, args, context, info)
        return result.data.upper()

    return run()


def register(app: App) -> None:
    find_articles = app.graphql.find("api::article.article")
    find_article = app.graphql.find_one("api::article.article")

    async def articles_titled(parent: Any, info: Any, title: str) -> Any:
        return await find_articles(parent, info, filters={"title": {"eq": title}})

    app.policies.register("allow-if-asked", allow_if_asked)
    app.middlewares.register("exclaim", exclaim)
    app.graphql.extension_service.use(
        lambda helpers: {
            "types": [Stats],
            "type_defs": TYPE_DEFS,
            "resolvers": {
                "Query": {
                    "shelf": shelf,
                    "stats": stats,
                    "open": lambda parent, info: "open",
                    "scoped": lambda parent, info: "scoped",
                    "guarded": lambda parent, info, allow: "passed",
                    "inlineGuarded": lambda parent, info, allow: "passed",
                    "echo": lambda parent, info, text: text,
                    "articlesTitled": articles_titled,
                    "firstArticle": lambda parent, info: find_article(parent, info, id="1"),
                },
                "Mutation": {"shout": lambda parent, info, text: text},
                "Article": {
                    "titleLength": lambda parent, info: len(parent["title"]),
                    "boom": boom,
                    "shelf": lambda parent, info: {"name": parent["title"], "size": None},
                },
                "ArticleEntity": {
                    "permalink": lambda parent, info: (
                        f"/a/{parent['id']}/{parent['attributes']['slug']}"
                    )
                },
            },
            "resolvers_config": {
                "Query.open": {"auth": False},
                "Query.scoped": {"auth": {"scope": ["api::category.category.find"]}},
                "Query.guarded": {"auth": False, "policies": ["allow-if-asked"]},
                "Query.inlineGuarded": {
                    "auth": False,
                    "policies": [lambda context, app: context.args["allow"]],
                },
                "Query.echo": {"auth": False, "middlewares": ["exclaim"]},
                "Mutation.shout": {"middlewares": [shout_args, "exclaim"]},
                "Query.categories": {"auth": False},
                "Query.articlesTitled": {"auth": False},
                "Query.authors": {"middlewares": [note_root_call]},
                "Article.title": {"middlewares": [upper_title]},
            },
        }
    )
