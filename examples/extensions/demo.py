"""A working GraphQL extension for the example blog.

Load it with ``CONTENTAPI_EXTENSIONS=examples.extensions.demo make serve`` (from the project
folder). It shows each kind of customization once:

- Shadow CRUD switches: no ``deleteArticle`` mutation; ``contactEmail`` hidden from the
  ``Article`` output type (it can still be written and filtered on);
- ``type_defs`` + ``resolvers``: a custom query ``articleCount(search: String): Int!`` and a
  field added to a generated type, ``Article.wordCount``;
- ``resolvers_config``: ``articleCount`` is guarded by a named policy (callers must be signed
  in or use an API token) and a middleware that cleans its ``search`` argument; it needs no
  particular permission (``auth: False`` — the policy decides).
"""

from __future__ import annotations

from typing import Any

from contentapi.extensions import App
from contentapi.graphql.wrap import PolicyContext

ARTICLE = "api::article.article"

TYPE_DEFS = """
extend type Query {
  "How many published articles have a title containing `search` (any case)."
  articleCount(search: String): Int!
}

extend type Article {
  "Words in the body."
  wordCount: Int
}
"""


def is_identified(context: PolicyContext, app: App) -> bool:
    """Anyone but the public role: a signed-in user or an API token."""
    return context.state.kind != "public"


async def clean_search(
    next: Any, parent: Any, args: dict[str, Any], context: Any, info: Any
) -> Any:
    """Trim ``search`` and treat an empty one as no search at all."""
    search = (args.get("search") or "").strip()
    return await next(parent, {**args, "search": search or None}, context, info)


async def article_count(parent: Any, info: Any, search: str | None = None) -> int:
    services = info.context.services
    content_type = services.registry.content_types[ARTICLE]
    params: dict[str, Any] = {"filters": {"title": {"$containsi": search}}} if search else {}
    query = services.query_parser.read_query(content_type, params)
    return await services.entries.count(ARTICLE, query)


def word_count(parent: dict[str, Any], info: Any) -> int | None:
    """``parent`` is the article as read (every readable attribute)."""
    body = parent.get("body")
    return None if body is None else len(body.split())


def register(app: App) -> None:
    articles = app.graphql.shadow_crud(ARTICLE)
    articles.disable_action("delete")
    articles.field("contactEmail").disable_output()
    app.policies.register("is-identified", is_identified)
    app.graphql.extension_service.use(
        {
            "type_defs": TYPE_DEFS,
            "resolvers": {
                "Query": {"articleCount": article_count},
                "Article": {"wordCount": word_count},
            },
            "resolvers_config": {
                "Query.articleCount": {
                    "auth": False,
                    "policies": ["is-identified"],
                    "middlewares": [clean_search],
                }
            },
        }
    )
