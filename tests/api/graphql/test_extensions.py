"""GraphQL customization: Shadow CRUD switches, the extension service, resolvers_config.

Schema-shape tests build the schema without a database (introspection of the result); the
behaviour tests start an app with ``CONTENTAPI_EXTENSIONS`` on each backend.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import Request
from graphql import GraphQLSchema, get_introspection_query, graphql_sync
from typer.testing import CliRunner

from contentapi.auth.actor import Actor
from contentapi.auth.tokens import create_token
from contentapi.cli import app as cli
from contentapi.extensions import App, ExtensionError
from contentapi.graphql import graphql_schema
from contentapi.graphql.context import GraphQLContext
from contentapi.graphql.shadow_crud import ContentTypeSwitches, FieldSwitches
from contentapi.runtime import Runtime
from tests.api.graphql.conftest import ADMIN, gql, seed_blog
from tests.api.graphql.extensions import library
from tests.conftest import MODELS, make_settings

LIBRARY = "tests.api.graphql.extensions.library"
SECOND = "tests.api.graphql.extensions.second"
ARTICLE = "api::article.article"

Register = Callable[[App], None]


def build(*registers: Register, **overrides: Any) -> GraphQLSchema:
    """The schema with ``registers`` applied (no database needed to build it)."""
    settings = make_settings("sqlite+aiosqlite:///unused.db", MODELS, **overrides)
    runtime = Runtime.build(settings)
    app = App(settings, runtime.registry)
    for register in registers:
        register(app)
    return graphql_schema(runtime, app)


def introspect(schema: GraphQLSchema) -> dict[str, dict[str, Any]]:
    result = graphql_sync(schema, get_introspection_query())
    assert result.errors is None
    assert result.data is not None
    return {t["name"]: t for t in result.data["__schema"]["types"]}


def names(kind: dict[str, Any], key: str = "fields") -> set[str]:
    return {field["name"] for field in kind[key] or ()}


def use(extension: Any) -> Register:
    return lambda app: app.graphql.extension_service.use(extension)


# ---------------------------------------------------------------- switches


def test_content_type_switches_and_getters():
    switches = ContentTypeSwitches(ARTICLE)
    assert switches.is_enabled() and not switches.is_disabled()
    assert switches.are_queries_enabled() and switches.are_mutations_enabled()
    assert switches.is_action_enabled("find") and not switches.is_action_disabled("find")
    assert switches.disable_action("delete") is switches  # chains as in Strapi
    assert switches.is_action_disabled("delete") and switches.is_action_enabled("update")
    switches.disable_actions(["create", "update"])
    assert switches.is_action_disabled("create") and switches.is_action_disabled("update")
    switches.disable_queries()
    assert switches.are_queries_disabled() and switches.are_mutations_enabled()
    switches.disable_mutations()
    assert switches.are_mutations_disabled()
    switches.disable()
    assert switches.is_disabled() and not switches.is_enabled()
    everything = ContentTypeSwitches(ARTICLE).disable_action("*")
    assert everything.is_action_disabled("find") and everything.is_action_disabled("delete")
    with pytest.raises(ValueError, match="Unknown Shadow CRUD action 'remove'"):
        ContentTypeSwitches(ARTICLE).disable_action("remove")


def test_field_switches_and_getters():
    field = FieldSwitches()
    assert field.is_enabled() and not field.is_disabled()
    assert field.has_output_enabled() and field.has_input_enabled()
    assert field.has_filters_enabled()
    field.disable_output()
    assert not field.has_output_enabled() and field.has_input_enabled() and field.is_enabled()
    field.disable_input()
    assert not field.has_input_enabled() and field.has_filters_enabled()
    field.disable_filters()
    assert not field.has_filters_enabled() and field.is_enabled()
    whole = FieldSwitches().disable()
    assert whole.is_disabled() and not whole.has_output_enabled()
    assert not whole.has_input_enabled() and not whole.has_filters_enabled()
    app = App(None, None)
    assert app.graphql.shadow_crud(ARTICLE).field("title") is (
        app.graphql.shadow_crud(ARTICLE).field("title")
    )


def _switch_everything(app: App) -> None:
    articles = app.graphql.shadow_crud(ARTICLE)
    articles.disable_actions(["delete", "createLocalization"])
    articles.field("summary").disable_output()
    articles.field("slug").disable_input()
    articles.field("views").disable_filters()
    articles.field("body").disable()
    articles.field("createdAt").disable_output()
    app.graphql.shadow_crud("api::category.category").disable_queries()
    app.graphql.shadow_crud("api::author.author").disable_mutations()
    app.graphql.shadow_crud("api::profile.profile").disable()
    app.graphql.shadow_crud("api::global.global").disable_action("find")
    app.graphql.shadow_crud("shared.seo").field("metaDescription").disable_output()


def test_switches_shape_the_schema_as_introspection_shows():
    before = introspect(build())
    types = introspect(build(_switch_everything))
    queries, mutations = names(types["Query"]), names(types["Mutation"])
    # content-type level
    assert "deleteArticle" not in mutations and "deleteArticle" in names(before["Mutation"])
    assert "createArticleLocalization" in names(before["Mutation"])
    assert "createArticleLocalization" not in mutations
    assert {"createArticle", "updateArticle", "articles", "article"} <= mutations | queries
    assert not {"categories", "category"} & queries
    assert "createCategory" in mutations
    assert not {"createAuthor", "updateAuthor", "deleteAuthor"} & mutations
    assert {"authors", "author"} <= queries
    assert "global" not in queries and "updateGlobal" in mutations
    assert not [name for name in types if name.startswith("Profile")]
    assert any(name.startswith("Profile") for name in before)
    assert "profile" in names(before["Author"]) and "profile" not in names(types["Author"])
    assert "profile" not in names(types["AuthorFiltersInput"], "inputFields")
    # field level
    output = names(types["Article"])
    inputs = names(types["ArticleInput"], "inputFields")
    filters = names(types["ArticleFiltersInput"], "inputFields")
    assert "summary" not in output and "summary" in inputs and "summary" in filters
    assert "slug" in output and "slug" not in inputs and "slug" in filters
    assert "views" in output and "views" in inputs and "views" not in filters
    assert not {"body"} & (output | inputs | filters)
    assert "createdAt" not in output and "createdAt" in filters
    assert "metaDescription" not in names(types["ComponentSharedSeo"])
    assert "metaDescription" in names(types["ComponentSharedSeoInput"], "inputFields")
    # nothing else changed
    assert names(before["Article"]) - output == {"summary", "body", "createdAt"}


def test_shadow_crud_off_generates_no_content_type_operations():
    types = introspect(build(graphql_shadow_crud=False))
    assert names(types["Query"]) == {"me"}
    assert not {"createArticle", "updateArticle", "deleteArticle"} & names(types["Mutation"])


@pytest.mark.parametrize(
    ("register", "message"),
    [
        (lambda app: app.graphql.shadow_crud("api::nope.nope").disable(), "api::nope.nope"),
        (
            lambda app: app.graphql.shadow_crud(ARTICLE).field("nope").disable(),
            "field('nope'): no such attribute",
        ),
    ],
)
def test_switches_naming_unknown_models_fail_start_up(register, message):
    with pytest.raises(ExtensionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build(register)


# ---------------------------------------------------------------- extension service


def test_type_defs_and_resolvers_add_queries_and_fields_to_generated_types():
    types = introspect(build(library.register))
    assert {"shelf", "stats", "open", "echo"} <= names(types["Query"])
    assert "shout" in names(types["Mutation"])
    assert {"titleLength", "shelf"} <= names(types["Article"])
    assert "permalink" in names(types["ArticleEntity"])
    assert names(types["Stats"]) == {"articles", "label", "doubled"}
    assert names(types["Shelf"]) == {"name", "size"}


def test_two_extensions_merge_in_registration_order():
    from tests.api.graphql.extensions import second

    types = introspect(build(library.register, second.register))
    assert {"shelf", "second"} <= names(types["Query"])
    assert "createProfile" not in names(types["Mutation"])


def _strawberry_named_article(helpers: Any) -> dict[str, Any]:
    @helpers.strawberry.type(name="Article")
    class Clash:
        x: int

    return {"types": [Clash]}


@pytest.mark.parametrize(
    ("registers", "message"),
    [
        (
            [use({"type_defs": "extend type Query { x: Int }"})] * 2,
            "extension 2.*Field 'Query.x' already exists",
        ),
        ([use({"type_defs": "type Article { x: Int }"})], "Type 'Article' already exists"),
        ([use({"type_defs": "extend type Query { x: Int"})], "type_defs: Syntax Error"),
        ([use({"type_defs": "extend type Nope { x: Int }"})], "Nope"),
        (
            [use({"resolvers": {"Query": {"articles": lambda p, i: None}}})] * 2,
            "Query.articles is already resolved by",
        ),
        ([use({"resolvers": {"Query": {"nope": lambda p, i: None}}})], "Query has no field 'nope'"),
        ([use({"resolvers": {"Nope": {"x": lambda p, i: None}}})], "no object type 'Nope'"),
        (
            [
                use({"resolvers_config": {"Query.articles": {"auth": False}}}),
                use({"resolvers_config": {"Query.articles": {"auth": {"scope": ["a.b.find"]}}}}),
            ],
            "auth conflicts",
        ),
        (
            [use({"resolvers_config": {"Query.articles": {"policies": ["is-nobody"]}}})],
            "no policy is registered as 'is-nobody'",
        ),
        (
            [use({"resolvers_config": {"Query.articles": {"middlewares": ["nope"]}}})],
            "no middleware is registered as 'nope'",
        ),
        ([use({"resolvers_config": {"articles": {}}})], "is not 'Type.field'"),
        ([use({"resolvers_config": {"Query.articles": {"cache": 1}}})], "unknown options"),
        ([use({"resolvers_config": {"Query.articles": {"auth": "yes"}}})], "auth is False or"),
        ([use({"typedefs": ""})], "unknown keys \\['typedefs'\\]"),
        ([use(_strawberry_named_article)], "already has a type named 'Article'"),
    ],
)
def test_conflicts_and_mistakes_fail_start_up_with_a_message(registers, message):
    with pytest.raises(ExtensionError, match=message):
        build(*registers)


def test_a_conflicting_module_stops_the_cli_before_serving(monkeypatch):
    monkeypatch.setenv(
        "CONTENTAPI_EXTENSIONS", f"{LIBRARY},tests.api.graphql.extensions.conflicting"
    )
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    result = CliRunner().invoke(cli, ["graphql-schema"])
    assert result.exit_code == 1
    assert "tests.api.graphql.extensions.conflicting (extension" in result.output
    assert "Field 'Query.open' already exists" in result.output
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "tests.api.graphql.extensions.nope")
    result = CliRunner().invoke(cli, ["graphql-schema"])
    assert result.exit_code == 1 and "cannot import" in result.output


def test_a_module_that_does_not_compile_is_one_line_naming_file_and_line(monkeypatch, tmp_path):
    (tmp_path / "halfsaved.py").write_text("def register(app):\n    app.policies(\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "halfsaved")
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 1
    assert "cannot import 'halfsaved'" in result.output
    assert "halfsaved.py:2: '(' was never closed" in result.output
    assert not isinstance(result.exception, SyntaxError)


# ---------------------------------------------------------------- behaviour


@pytest.fixture
async def extended(reused_app) -> Any:
    handle = await reused_app(extensions=f"{LIBRARY},{SECOND}")
    await seed_blog(handle)
    return handle


async def _token(handle: Any, token_type: str, actions: tuple[str, ...] = ()) -> dict[str, str]:
    runtime = handle.runtime
    async with runtime.database.write() as conn:
        created = await create_token(
            conn,
            runtime.token_hasher,
            name=f"{token_type}-{uuid.uuid4().hex[:6]}",
            token_type=token_type,
            actions=actions,
        )
    return {"Authorization": f"Bearer {created.secret}"}


def _forbidden(body: dict[str, Any], message: str = "Forbidden access") -> None:
    assert body["errors"][0]["message"] == message, body
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_custom_queries_types_and_strawberry_payloads_answer(extended):
    client = extended.client
    body = await gql(
        client, '{ shelf(name: "abc") { name size } stats { articles label doubled } }'
    )
    assert body == {
        "data": {
            "shelf": {"name": "abc", "size": 3},
            "stats": {"articles": 2, "label": "s", "doubled": 4},
        }
    }
    assert (await gql(client, "{ second }", headers=None)) == {"data": {"second": "second"}}


async def test_fields_added_to_generated_types_resolve_inside_generated_reads(extended, statements):
    query = """{ articles(sort: "id") { data { id permalink attributes {
        slug titleLength shelf { name } author { data { attributes { name } } } } } } }"""
    async with statements.recording() as recorded:
        body = await gql(extended.client, query)
    assert "errors" not in body, body
    first, second = body["data"]["articles"]["data"]
    hello = first["attributes"]
    assert hello["titleLength"] == len("Hello World") and hello["shelf"] == {"name": "Hello World"}
    assert hello["author"]["data"]["attributes"]["name"] == "Alice"
    assert first["permalink"] == f"/a/1/{hello['slug']}"
    assert second["attributes"]["titleLength"] == len("Second post")
    reads = [s for s in recorded if s.lstrip().upper().startswith("SELECT")]
    # the caller and (SQLite: on each read of a localized type) the locales aside
    reads = [s for s in reads if "strapi_api_tokens" not in s and "FROM i18n_locale" not in s]
    assert len(reads) == 2, reads  # the page and the authors: custom fields add none


async def test_a_middleware_on_a_generated_nested_field_changes_its_value(extended):
    body = await gql(extended.client, "{ article(id: 1) { data { attributes { title } } } }")
    assert body["data"]["article"]["data"]["attributes"]["title"] == "HELLO WORLD"
    body = await gql(extended.client, "{ articles { data { attributes { slug } } } }")
    assert "errors" not in body


async def test_auth_false_and_scope_and_the_default_for_custom_roots(extended):
    client = extended.client
    assert await gql(client, "{ open }", headers=None) == {"data": {"open": "open"}}
    _forbidden(await gql(client, "{ scoped }", headers=None))
    allowed = await _token(extended, "custom", ("api::category.category.find",))
    assert await gql(client, "{ scoped }", headers=allowed) == {"data": {"scoped": "scoped"}}
    other = await _token(extended, "custom", ("api::article.article.find",))
    _forbidden(await gql(client, "{ scoped }", headers=other))
    # a custom root field without auth config: signed-in users and full-access tokens only
    _forbidden(await gql(client, "{ stats { label } }", headers=None))
    _forbidden(
        await gql(client, "{ stats { label } }", headers=await _token(extended, "read-only"))
    )
    assert (await gql(client, "{ stats { label } }"))["data"] == {"stats": {"label": "s"}}
    # auth: False on a generated query opens it to the public role
    public = await gql(client, "{ categories { data { attributes { name } } } }", headers=None)
    assert len(public["data"]["categories"]["data"]) == 3
    _forbidden(await gql(client, "{ authors { data { id } } }", headers=None))


async def test_named_and_inline_policies_allow_and_deny(extended):
    client = extended.client
    for name in ("guarded", "inlineGuarded"):
        assert await gql(client, f"{{ {name}(allow: true) }}", headers=None) == {
            "data": {name: "passed"}
        }
        denied = await gql(client, f"{{ {name}(allow: false) }}", headers=None)
        _forbidden(denied, "Policy Failed")
        assert denied["errors"][0]["extensions"]["error"]["name"] == "PolicyError"
        assert denied["data"] == {name: None}


async def test_a_policy_receives_the_documented_context(extended):
    await gql(extended.client, "{ guarded(allow: true) }", headers=ADMIN)
    seen = library.SEEN["policy"]
    assert seen["parent"] is None and seen["args"] == {"allow": True}
    assert isinstance(seen["context"], GraphQLContext)
    assert seen["info"].field_name == "guarded"
    assert isinstance(seen["http"], Request) and seen["http"].headers["authorization"]
    assert isinstance(seen["state"], Actor) and seen["state"].kind == "api-token"
    assert isinstance(seen["app"], App)


async def test_middlewares_rewrite_arguments_and_results_and_merge(extended):
    client = extended.client
    assert await gql(client, 'mutation { shout(text: "hi") }') == {"data": {"shout": "HI!"}}
    _forbidden(await gql(client, 'mutation { shout(text: "hi") }', headers=None))
    # library's `exclaim`, then second's `bracket`, around the resolver
    assert await gql(client, '{ echo(text: "hi") }', headers=None) == {"data": {"echo": "[hi]!"}}


async def test_the_example_extension(start_app):
    handle = await start_app(extensions="examples.extensions.demo")
    await seed_blog(handle)
    await handle.runtime.entries.update(ARTICLE, 1, {"body": "one two  three"})
    client = handle.client
    deleted = await gql(client, "mutation { deleteArticle(id: 1) { data { id } } }", status=400)
    assert 'Cannot query field "deleteArticle"' in deleted["errors"][0]["message"]
    hidden = await gql(client, "{ articles { data { attributes { contactEmail } } } }", status=400)
    assert 'Cannot query field "contactEmail"' in hidden["errors"][0]["message"]
    written = await gql(
        client,
        'mutation { updateArticle(id: 2, data: {contactEmail: "c@x.io"}) { data { id } } }',
    )
    assert "errors" not in written
    _forbidden(await gql(client, "{ articleCount }", headers=None), "Policy Failed")
    assert await gql(client, '{ articleCount(search: "  HELLO ") }') == {
        "data": {"articleCount": 1}
    }
    assert await gql(client, '{ articleCount(search: "   ") }') == {"data": {"articleCount": 2}}
    body = await gql(client, '{ articles(sort: "id") { data { attributes { wordCount } } } }')
    counts = [a["attributes"]["wordCount"] for a in body["data"]["articles"]["data"]]
    assert counts == [3, None]


async def test_an_error_in_a_custom_field_nulls_only_that_field(extended):
    query = '{ articles(sort: "id") { data { id attributes { title boom } } } }'
    body = await gql(extended.client, query)
    first, second = body["data"]["articles"]["data"]
    assert first["attributes"]["boom"] == "boom"
    assert second["attributes"] == {"title": "SECOND POST", "boom": None}
    assert [e["message"] for e in body["errors"]] == ["no boom for the second"]
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_plugins_add_validation_rules_and_execution_hooks(extended):
    client = extended.client
    refused = await gql(client, "{ forbiddenByPlugin }", status=400)
    assert refused["errors"][0]["message"] == "forbiddenByPlugin is refused by a plugin"
    assert refused["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    blocked = await gql(client, "{ second }", headers={**ADMIN, "x-refuse": "1"})
    _forbidden(blocked, "Refused by a plugin")
    assert blocked["data"] is None
    marked = await gql(client, "{ second }", headers={**ADMIN, "x-mark": "1"})
    assert marked == {"data": {"second": "second"}, "extensions": {"marked": True}}


async def test_a_middleware_on_a_generated_root_sees_its_arguments_and_answer(extended):
    query = '{ authors(sort: "name:desc") { data { attributes { name } } } }'
    body = await gql(extended.client, query)
    names_ = [a["attributes"]["name"] for a in body["data"]["authors"]["data"]]
    assert names_ == ["Bob", "Alice"]
    seen = library.SEEN["authors"]
    assert seen["args"]["sort"] == ["name:desc"]
    assert seen["data"] == body["data"]["authors"]
    _forbidden(await gql(extended.client, query, headers=None))  # its own permission still


async def test_custom_queries_can_answer_generated_types_through_the_compiled_read(
    extended, statements
):
    query = """query($t: String!) { articlesTitled(title: $t) {
        data { id attributes { slug author { data { attributes { name } } } } }
        meta { pagination { total } } } }"""
    for title, author in (("Hello World", "Alice"), ("Second post", "Bob")):
        async with statements.recording() as recorded:
            body = await gql(extended.client, query, {"t": title})
        found = body["data"]["articlesTitled"]
        assert found["meta"]["pagination"]["total"] == 1, body
        assert found["data"][0]["attributes"]["author"]["data"]["attributes"]["name"] == author
        reads = [s for s in recorded if s.lstrip().upper().startswith("SELECT")]
        # the caller and (SQLite: on each read of a localized type) the locales aside
        reads = [s for s in reads if "strapi_api_tokens" not in s and "FROM i18n_locale" not in s]
        assert len(reads) == 3, reads  # page, count, authors
    first = await gql(extended.client, "{ firstArticle { data { id attributes { slug } } } }")
    assert first["data"]["firstArticle"]["data"]["id"] == "1"
