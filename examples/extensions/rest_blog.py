"""A working REST customization of the example blog: what a Strapi v4 project's routers,
controllers, policies and middlewares do, written for contentapi (``docs/customization.md``).

Load it with ``CONTENTAPI_EXTENSIONS=examples.extensions.rest_blog make serve`` (from the
project folder). It shows each kind once:

- a core router configured (``createCoreRouter``): categories' ``find`` is public (no
  permission needed), their ``delete`` is not served at all, and creating one goes through a
  middleware that refuses any body but JSON (a middleware answering itself);
- an owner policy: an article may be updated only by the signed-in user whose e-mail is the
  article's ``contactEmail`` (``is-owner``, a named policy: ``updateArticle`` in GraphQL
  uses it too);
- a middleware adding a header to every article read by id;
- a wrapped controller: ``find`` of articles answers as the core one, plus each article's
  ``titleLength``;
- a custom route, ``GET /api/articles/:slug/related``, whose action
  ``api::article.article.related`` appears in the roles' permission tree: 403 until a role is
  given it;
- a global middleware timing every request (a ``Server-Timing`` header);
- an entry service override (``createCoreService``): a category created without a ``slug``
  gets one made from its name — through REST and GraphQL alike.
"""

from __future__ import annotations

import re
import time
from typing import Any

from starlette.responses import JSONResponse, Response

from contentapi.extensions import App
from contentapi.http.params import parse_entry_id
from contentapi.query.ast import ReadQuery
from contentapi.rest.customize import RestContext

ARTICLE = "api::article.article"
CATEGORY = "api::category.category"
USER = "plugin::users-permissions.user"


async def is_owner(context: Any, app: App) -> bool:
    """The caller is the user whose e-mail is the article's ``contactEmail``. One policy for
    both protocols: REST's and GraphQL's contexts both have ``state`` (the caller) and ``args``
    (``id``: the path's, the mutation's)."""
    if context.state.user_id is None:
        return False
    entries = app.runtime.entries
    # a bad id is the core's 404, as without the policy (never a 500)
    article = await entries.find_one(ARTICLE, parse_entry_id(str(context.args["id"])), ReadQuery())
    user = await entries.find_one(USER, context.state.user_id, ReadQuery())
    return bool(article and user and article.get("contactEmail") == user.get("email"))


async def json_only(context: RestContext, call_next: Any) -> Response:
    """Refuse a body that is not JSON before anything reads it."""
    kind = context.request.headers.get("content-type", "")
    if not kind.startswith("application/json"):
        return JSONResponse(
            {
                "data": None,
                "error": {
                    "status": 415,
                    "name": "UnsupportedMediaTypeError",
                    "message": "Send JSON",
                    "details": {},
                },
            },
            status_code=415,
        )
    return await call_next()


async def served_by(context: RestContext, call_next: Any) -> Response:
    response = await call_next()
    response.headers["X-Served-By"] = "rest_blog"
    return response


async def find_with_title_length(context: RestContext, default: Any) -> Any:
    """The core ``find``, then each article's title length (Strapi's ``super.find(ctx)``)."""
    body = await default()
    for article in body["data"]:
        title = article["attributes"].get("title")
        article["attributes"]["titleLength"] = len(title) if title is not None else None
    return body


async def related(context: RestContext) -> Any:
    """``GET /api/articles/:slug/related``: the related articles of the article with that
    slug, read with the core's rules for this caller (``fields``, ``populate`` of the query
    string apply to them)."""
    entries, serializer = context.services.entries, context.services.serializer
    by_slug = context.list_query(ARTICLE, {"filters": {"slug": {"$eq": context.args["slug"]}}})
    found = await entries.find_many(ARTICLE, by_slug)
    if not found.entries:
        return {"data": [], "meta": {}}
    source = await entries.find_one(
        ARTICLE, int(found.entries[0]["id"]), context.entry_query(ARTICLE, {"populate": "related"})
    )
    related = (source or {}).get("related") or []
    return {"data": serializer.entries(context.content_type(ARTICLE), related), "meta": {}}


#: the answer's schema, for the OpenAPI document (``/documentation``)
related.response_schema = {  # type: ignore[attr-defined]
    "type": "object",
    "properties": {
        "data": {"type": "array", "items": {"$ref": "#/components/schemas/ArticleEntry"}},
        "meta": {"type": "object"},
    },
}


async def server_timing(request: Any, call_next: Any) -> Response:
    started = time.perf_counter()
    response = await call_next(request)
    response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


async def create_with_slug(default: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
    """The core ``create``, a missing ``slug`` made from the ``name`` first."""
    if isinstance(data, dict) and not data.get("slug") and isinstance(data.get("name"), str):
        data = {**data, "slug": re.sub(r"[^a-z0-9]+", "-", data["name"].lower()).strip("-")}
    return await default(data, *args, **kwargs)


def register(app: App) -> None:
    app.policies.register("is-owner", is_owner)
    app.middlewares.register("json-only", json_only)
    app.rest.core_router(
        CATEGORY,
        exclude=["delete"],
        config={"find": {"auth": False}, "create": {"middlewares": ["json-only"]}},
    )
    app.rest.core_router(
        ARTICLE,
        config={"update": {"policies": ["is-owner"]}, "findOne": {"middlewares": [served_by]}},
    )
    app.rest.controller(ARTICLE, "find", find_with_title_length)
    app.rest.route("GET", "/articles/:slug/related", related, uid=ARTICLE, name="related")
    app.rest.use(server_timing)
    app.services.override(CATEGORY, "create", create_with_slug)
    # the same policy on GraphQL's mutation
    app.graphql.extension_service.use(
        {"resolvers_config": {"Mutation.updateArticle": {"policies": ["is-owner"]}}}
    )
