"""REST customization from a Python extension (``app.rest``: ``rest/customize.py``), through
real HTTP, with the example project ``examples/extensions/rest_blog.py``: a public action, a
disabled one, an owner policy, middlewares adding a header and answering themselves, a wrapped
``find``, a custom route whose permission is in the roles' tree, a global middleware — and
customizations that cannot be applied failing start-up in one line."""

from __future__ import annotations

import asyncio
import sys
import types
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate
from typer.testing import CliRunner
from xxhash import xxh3_128_hexdigest

from contentapi.cli import app as cli
from contentapi.extensions import ExtensionError
from tests.conftest import ADMIN_TOKEN, MODELS
from tests.support.server import ServerProcess

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
EXAMPLE = "examples.extensions.rest_blog"


@pytest.fixture
async def blog(reused_app):
    return await reused_app(extensions=EXAMPLE)


async def _user(client, name: str) -> dict[str, str]:
    """A signed-in user of the authenticated role: its Authorization header."""
    registered = await client.post(
        "/api/auth/local/register",
        json={"username": name, "email": f"{name}@example.com", "password": "Passw0rd-1"},
    )
    assert registered.status_code == 200, registered.text
    return {"Authorization": f"Bearer {registered.json()['jwt']}"}


async def _role(client, role_type: str) -> dict[str, Any]:
    roles = (await client.get("/api/users-permissions/roles", headers=ADMIN)).json()["roles"]
    role_id = next(r["id"] for r in roles if r["type"] == role_type)
    answer = await client.get(f"/api/users-permissions/roles/{role_id}", headers=ADMIN)
    return answer.json()["role"]


async def _grant(client, role: dict[str, Any], controller: str, actions: list[str]) -> None:
    permissions = role["permissions"]
    for action in actions:
        permissions[f"api::{controller}"]["controllers"][controller][action]["enabled"] = True
    answer = await client.put(
        f"/api/users-permissions/roles/{role['id']}",
        json={"permissions": permissions},
        headers=ADMIN,
    )
    assert answer.json() == {"ok": True}, answer.text


async def test_a_public_action_and_a_disabled_one(blog):
    client = blog.client
    made = await client.post(
        "/api/categories", json={"data": {"name": "News", "slug": "news"}}, headers=ADMIN
    )
    assert made.status_code == 200, made.text
    # `find` is public: no credentials, no permission of the public role
    listed = await client.get("/api/categories")
    assert listed.status_code == 200 and listed.json()["meta"]["pagination"]["total"] == 1
    # a bad token on a public action is the public role, not a 401
    assert (
        await client.get("/api/categories", headers={"Authorization": "Bearer x"})
    ).status_code == 200
    # findOne keeps its permission
    assert (await client.get(f"/api/categories/{made.json()['data']['id']}")).status_code == 403
    # `delete` is not served: the path's other methods remain (405 lists them)
    removed = await client.delete(f"/api/categories/{made.json()['data']['id']}", headers=ADMIN)
    assert removed.status_code == 405
    assert set(removed.headers["allow"].replace(" ", "").split(",")) == {"GET", "PUT"}


async def test_a_middleware_answering_itself_and_one_adding_a_header(blog):
    client = blog.client
    refused = await client.post(
        "/api/categories",
        content=b"name=x",
        headers={**ADMIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 415 and refused.json()["error"]["message"] == "Send JSON"
    article = await client.post("/api/articles", json={"data": {"title": "Abc"}}, headers=ADMIN)
    assert article.status_code == 200, article.text
    read = await client.get(f"/api/articles/{article.json()['data']['id']}", headers=ADMIN)
    assert read.status_code == 200 and read.headers["x-served-by"] == "rest_blog"
    # the middleware is the action's: a list has no such header, every answer has the
    # global middleware's
    listed = await client.get("/api/articles", headers=ADMIN)
    assert "x-served-by" not in listed.headers
    assert listed.headers["server-timing"].startswith("app;dur=")
    assert (await client.get("/graphql?query={__typename}")).headers["server-timing"]


async def test_the_owner_policy_refuses_another_users_update(blog):
    client = blog.client
    owner, other = await _user(client, "owner"), await _user(client, "other")
    await _grant(client, await _role(client, "authenticated"), "article", ["update"])
    article = await client.post(
        "/api/articles",
        json={"data": {"title": "Mine", "contactEmail": "owner@example.com"}},
        headers=ADMIN,
    )
    path = f"/api/articles/{article.json()['data']['id']}"
    refused = await client.put(path, json={"data": {"title": "Theirs"}}, headers=other)
    assert refused.status_code == 403
    assert refused.json()["error"] == {
        "status": 403,
        "name": "PolicyError",
        "message": "Policy Failed",
        "details": {},
    }
    allowed = await client.put(path, json={"data": {"title": "Still mine"}}, headers=owner)
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["data"]["attributes"]["title"] == "Still mine"
    # the API token is no user: refused too
    assert (await client.put(path, json={"data": {}}, headers=ADMIN)).status_code == 403
    # a bad id is a 404 through the policy too, never a 500
    bad = await client.put("/api/articles/abc", json={"data": {}}, headers=owner)
    assert bad.status_code == 404
    # the same named policy on GraphQL's updateArticle
    mutation = (
        'mutation($id: ID!) { updateArticle(id: $id, data: {title: "Via GraphQL"}) '
        "{ data { attributes { title } } } }"
    )
    variables = {"id": str(article.json()["data"]["id"])}
    refused = await client.post(
        "/graphql", json={"query": mutation, "variables": variables}, headers=other
    )
    assert refused.json()["errors"][0]["message"] == "Policy Failed"
    assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    allowed = await client.post(
        "/graphql", json={"query": mutation, "variables": variables}, headers=owner
    )
    assert allowed.json()["data"]["updateArticle"]["data"]["attributes"] == {"title": "Via GraphQL"}


async def test_a_wrapped_find_adds_a_computed_attribute(blog):
    client = blog.client
    await client.post("/api/articles", json={"data": {"title": "Four"}}, headers=ADMIN)
    listed = (await client.get("/api/articles?fields[0]=title", headers=ADMIN)).json()
    assert [a["attributes"] for a in listed["data"]] == [{"title": "Four", "titleLength": 4}]
    assert listed["meta"]["pagination"]["total"] == 1  # the rest of the answer is the core's


async def test_a_custom_route_and_its_permission_in_the_tree(blog):
    client = blog.client
    first = await client.post(
        "/api/articles", json={"data": {"title": "One", "slug": "one"}}, headers=ADMIN
    )
    second = await client.post(
        "/api/articles",
        json={"data": {"title": "Two", "slug": "two", "related": [first.json()["data"]["id"]]}},
        headers=ADMIN,
    )
    assert second.status_code == 200, second.text
    user = await _user(client, "reader")
    assert (await client.get("/api/articles/two/related", headers=user)).status_code == 403
    role = await _role(client, "authenticated")
    tree = role["permissions"]["api::article"]["controllers"]["article"]
    assert tree["related"] == {"enabled": False, "policy": ""}
    assert list(tree)[-1] == "related"  # after the core actions
    await _grant(client, role, "article", ["related", "find"])
    answer = await client.get("/api/articles/two/related", headers=user)
    assert answer.status_code == 200, answer.text
    assert [a["attributes"]["title"] for a in answer.json()["data"]] == ["One"]
    assert (await client.get("/api/articles/nothing/related", headers=user)).json() == {
        "data": [],
        "meta": {},
    }
    # the full-access API token may call it; the core routes still answer beside it
    assert (await client.get("/api/articles/two/related", headers=ADMIN)).status_code == 200
    assert (
        await client.get(f"/api/articles/{first.json()['data']['id']}", headers=ADMIN)
    ).status_code == 200


async def test_a_service_override_changes_both_protocols(blog):
    client = blog.client
    made = await client.post("/api/categories", json={"data": {"name": "Big News"}}, headers=ADMIN)
    assert made.status_code == 200, made.text
    assert made.json()["data"]["attributes"]["slug"] == "big-news"
    mutation = (
        'mutation { createCategory(data: {name: "Small Talk"}) { data { attributes { slug } } } }'
    )
    answer = (await client.post("/graphql", json={"query": mutation}, headers=ADMIN)).json()
    assert answer == {"data": {"createCategory": {"data": {"attributes": {"slug": "small-talk"}}}}}
    # other types and methods are the core's
    refused = await client.post(
        "/api/categories", json={"data": {"slug": "no-name"}}, headers=ADMIN
    )
    assert refused.status_code == 400


def _module(name: str, register) -> str:
    module = types.ModuleType(name)
    module.register = register  # type: ignore[attr-defined]
    sys.modules[name] = module
    return name


@pytest.mark.parametrize(
    ("register", "message"),
    [
        (
            lambda app: app.rest.route(
                "GET", "/articles/:id", lambda c: {}, uid="api::article.article", name="mine"
            ),
            "extension 'broken_rest': route GET /api/articles/{id} conflicts with the core "
            "route GET /api/articles/{entry_id} (api::article.article.findOne)",
        ),
        (
            lambda app: app.rest.core_router(
                "api::article.article", config={"find": {"policies": ["nobody-registered-it"]}}
            ),
            "extension 'broken_rest': api::article.article.find: no policy is registered as "
            "'nobody-registered-it'",
        ),
        (
            lambda app: app.rest.core_router("api::article.article", only=["list"]),
            "extension 'broken_rest': api::article.article has no core action 'list' (it has "
            "find, findOne, create, update, delete, createLocalization)",
        ),
        (
            lambda app: app.rest.core_router(
                "api::article.article", config={"find": {"auth": "none"}}
            ),
            "extension 'broken_rest': api::article.article.find: auth is False or {'scope': [...]}",
        ),
        (
            lambda app: app.rest.route(
                "GET", "/x/:slug", lambda c: {}, uid="api::nothing.nothing", name="x"
            ),
            "extension 'broken_rest': no content type 'api::nothing.nothing' has REST routes",
        ),
        (
            lambda app: app.services.override("api::article.article", "findMany", lambda d: d),
            "extension 'broken_rest': the entry service has no method 'findMany' to override "
            "(it has find_many, find_one, create, update, delete, find_single, upsert_single, "
            "delete_single)",
        ),
    ],
    ids=[
        "conflict",
        "unknown-policy",
        "unknown-action",
        "bad-auth",
        "unknown-type",
        "unknown-service-method",
    ],
)
async def test_a_customization_that_cannot_apply_fails_start_up_in_one_line(
    start_app, register, message
):
    name = _module("broken_rest", register)
    try:
        with pytest.raises(ExtensionError) as raised:
            await start_app(extensions=name)
    finally:
        sys.modules.pop(name, None)
    assert str(raised.value) == message
    assert "\n" not in str(raised.value)


def test_contentapi_check_reports_a_route_conflict_in_one_line(monkeypatch, tmp_path):
    (tmp_path / "clashing.py").write_text(
        "def register(app):\n"
        "    app.rest.route('POST', '/articles', lambda c: {}, uid='api::article.article',"
        " name='bulk')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "clashing")
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 1
    line = (
        "extension error: extension 'clashing': route POST /api/articles conflicts with the "
        "core route POST /api/articles (api::article.article.create)"
    )
    assert line in " ".join(result.output.split()), result.output


async def test_the_openapi_document_has_the_custom_route_and_not_the_disabled_action(blog):
    document = (await blog.client.get("/documentation/openapi.json")).json()
    validate(document)
    paths = document["paths"]
    related = paths["/api/articles/{slug}/related"]["get"]
    assert related["operationId"] == "api::article.article.related"
    assert related["parameters"] == [
        {"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}}
    ]
    assert related["responses"]["200"]["content"]["application/json"]["schema"]["properties"][
        "data"
    ]["items"] == {"$ref": "#/components/schemas/ArticleEntry"}
    assert "Permission: `api::article.article.related`" in related["description"]
    assert "delete" not in paths["/api/categories/{id}"]
    assert {"get", "put"} <= set(paths["/api/categories/{id}"])


async def test_the_example_served_by_contentapi_serve(databases):
    """The same extension in a real server process, over a socket."""
    server = ServerProcess(
        await databases.new_url(),
        MODELS,
        CONTENTAPI_EXTENSIONS=EXAMPLE,
        PYTHONPATH=str(Path(__file__).resolve().parents[3]),  # the server runs elsewhere
    )
    await asyncio.to_thread(server.start)
    try:
        async with httpx.AsyncClient(base_url=server.base_url) as client:
            public = await client.get("/api/categories")
            assert public.status_code == 200, public.text
            assert public.headers["server-timing"].startswith("app;dur=")
            made = await client.post(
                "/api/categories", json={"data": {"name": "Over HTTP"}}, headers=server.headers
            )
            assert made.json()["data"]["attributes"]["slug"] == "over-http"
            related = await client.get("/api/articles/none/related", headers=server.headers)
            assert related.json() == {"data": [], "meta": {}}
            assert (await client.get("/api/articles/none/related")).status_code == 403
    finally:
        server.stop()
    assert "Traceback" not in server.log


async def test_a_policy_answering_nothing_refuses_and_a_custom_body_is_read_as_the_core_reads(
    start_app,
):
    async def echo(context):
        body = await context.body()
        return {"received": body, "user": context.state.kind}

    def register(app):
        app.rest.core_router(
            "api::category.category", config={"find": {"policies": [lambda context, app: None]}}
        )
        app.rest.route("POST", "/categories/echo", echo, uid="api::category.category", name="echo")

    name = _module("inline_rest", register)
    try:
        handle = await start_app(extensions=name)
    finally:
        sys.modules.pop(name, None)
    client = handle.client
    refused = await client.get("/api/categories", headers=ADMIN)
    assert refused.status_code == 403 and refused.json()["error"]["name"] == "PolicyError"
    echoed = await client.post("/api/categories/echo", json={"a": [1]}, headers=ADMIN)
    assert echoed.json() == {"received": {"a": [1]}, "user": "api-token"}
    malformed = await client.post(
        "/api/categories/echo",
        content=b"{not json",
        headers={**ADMIN, "Content-Type": "application/json"},
    )
    assert malformed.status_code == 400
    assert malformed.json()["error"]["name"] == "ValidationError"


async def test_a_policy_with_its_config_as_strapi_writes_it(start_app):
    """``{"name": "has-header", "config": {...}}``: the registered policy gets ``config=``."""

    def has_header(context, app, config):
        return context.request.headers.get(config["header"]) == config["value"]

    def register(app):
        app.policies.register("has-header", has_header)
        app.rest.core_router(
            "api::category.category",
            config={
                "find": {
                    "auth": False,
                    "policies": [{"name": "has-header", "config": {"header": "x-k", "value": "1"}}],
                }
            },
        )

    name = _module("configured_policy", register)
    try:
        handle = await start_app(extensions=name)
    finally:
        sys.modules.pop(name, None)
    assert (await handle.client.get("/api/categories")).status_code == 403
    assert (await handle.client.get("/api/categories", headers={"X-K": "1"})).status_code == 200


async def test_reads_an_extension_answers_are_validated_and_writes_no_store(blog):
    """``http/conditional.py``'s ``revalidated``: the wrapped ``find`` (a controller) and the
    ``findOne`` behind a middleware get the ETag and 304 of the core reads, the middleware's
    header kept; an action made public answers ``public`` without credentials."""
    client = blog.client
    created = await client.post("/api/articles", json={"data": {"title": "Four"}}, headers=ADMIN)
    assert created.headers["cache-control"] == "no-store"
    listed = await client.get("/api/articles", headers=ADMIN)
    assert listed.headers["etag"] == '"' + xxh3_128_hexdigest(listed.content) + '"'
    assert listed.headers["cache-control"] == "private, no-cache"
    again = await client.get(
        "/api/articles", headers={**ADMIN, "If-None-Match": listed.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    one = await client.get(f"/api/articles/{created.json()['data']['id']}", headers=ADMIN)
    assert one.headers["x-served-by"] == "rest_blog"
    assert one.headers["etag"] == '"' + xxh3_128_hexdigest(one.content) + '"'
    await client.post(
        "/api/categories", json={"data": {"name": "News", "slug": "news"}}, headers=ADMIN
    )
    public = await client.get("/api/categories")
    assert public.status_code == 200 and public.headers["cache-control"] == "public, no-cache"
