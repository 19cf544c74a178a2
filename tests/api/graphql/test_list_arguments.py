"""Arguments of nested lists as Strapi 4.25 applies them (issue 24, classes 1, 3 and 8).

- ``filters``/``sort``/``pagination`` on a repeatable component and on a media list: filtered
  and sorted in SQL, ties (and no sort) in the order stored, each parent's page cut after;
- one attribute under aliases with different arguments or sub-fields, each read as asked;
- refused nested arguments: that field ``null`` with one error per parent row;
- an empty filter (``{}``) is no condition at all.

The expected answers are the reference Strapi 4.25's for the same data.
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from tests.api.graphql.conftest import ADMIN, gql

LINKS = [
    {"label": "b", "url": "/2", "newTab": True},
    {"label": "a", "url": "/1"},
    {"label": "c", "url": "/3"},
    {"label": "a", "url": "/0"},
]


def _png(size: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


async def _seed(app: Any) -> None:
    """Strapi's reference data: article 1 with four links and four images whose stored order
    differs from their ids (so ties show which order breaks them), article 2 with one of each,
    article 3 with none."""
    files = []
    for name, size in (("zeta.png", 30), ("alpha.png", 10), ("mid.png", 20), ("alpha2.png", 10)):
        response = await app.client.post(
            "/api/upload", files=[("files", (name, _png(size), "image/png"))], headers=ADMIN
        )
        assert response.status_code == 200, response.text
        files.append(response.json()[0]["id"])
    entries = app.runtime.entries
    for name in ("Tech", "Life", "Science"):
        await entries.create("api::category.category", {"name": name, "slug": name.lower()})
    await entries.create(
        "api::article.article",
        {"title": "Alpha", "links": LINKS, "gallery": [files[2], files[0]], "categories": [1, 2]},
    )
    await entries.create(
        "api::article.article",
        {"title": "Beta", "links": [{"label": "x", "url": "/x"}], "gallery": [files[1]]},
    )
    await entries.create("api::article.article", {"title": "Gamma", "categories": [3]})
    # the links stored in another order than their ids (4, 3, 2, 1), the files as 3, 1, 4, 2
    reordered = [{"id": n, **LINKS[n - 1]} for n in (4, 3, 2, 1)]
    await entries.update("api::article.article", 1, {"links": reordered, "gallery": [3, 1, 4, 2]})


def _ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


async def test_repeatable_component_sort_filters_pagination(app):
    await _seed(app)
    body = await gql(
        app.client,
        """{ article(id: 1) { data { attributes {
              links { id }
              asc: links(sort: "label:asc") { id }
              desc: links(sort: "label:desc") { id }
              two: links(sort: ["label:asc", "url:desc"]) { id url }
              page: links(pagination: {start: 1, limit: 2}, sort: "label") { id }
              byPage: links(pagination: {page: 2, pageSize: 3}) { id }
              a: links(filters: {label: {eq: "a"}}) { id url }
              newTab: links(filters: {newTab: {eq: true}}) { id }
              none: links(filters: {label: {eq: "zz"}}) { id }
            } } } }""",
    )
    assert "errors" not in body, body
    links = body["data"]["article"]["data"]["attributes"]
    assert _ids(links["links"]) == ["4", "3", "2", "1"]  # stored order
    assert _ids(links["asc"]) == ["4", "2", "1", "3"]  # ties (4, 2) in stored order, not ids
    assert _ids(links["desc"]) == ["3", "1", "4", "2"]
    assert links["two"] == [
        {"id": "2", "url": "/1"},
        {"id": "4", "url": "/0"},
        {"id": "1", "url": "/2"},
        {"id": "3", "url": "/3"},
    ]
    assert _ids(links["page"]) == ["2", "1"]
    assert _ids(links["byPage"]) == ["1"]
    assert links["a"] == [{"id": "4", "url": "/0"}, {"id": "2", "url": "/1"}]
    assert _ids(links["newTab"]) == ["1"]
    assert links["none"] == []


async def test_component_arguments_per_parent_in_a_list(app):
    """Each parent's own page: filtered and sorted for all parents at once, cut per parent."""
    await _seed(app)
    body = await gql(
        app.client,
        """{ articles(sort: "id") { data { id attributes {
              top: links(sort: "label:desc", pagination: {limit: 1}) { label }
              a: links(filters: {label: {in: ["a", "x"]}}) { url }
            } } } }""",
    )
    assert "errors" not in body, body
    rows = [entry["attributes"] for entry in body["data"]["articles"]["data"]]
    assert rows == [
        {"top": [{"label": "c"}], "a": [{"url": "/0"}, {"url": "/1"}]},
        {"top": [{"label": "x"}], "a": [{"url": "/x"}]},
        {"top": [], "a": []},
    ]


async def test_media_list_sort_filters_pagination(app):
    await _seed(app)
    body = await gql(
        app.client,
        """{ articles(sort: "id") { data { attributes {
              gallery { data { id } }
              w: gallery(sort: "width") { data { id } }
              wd: gallery(sort: "width:desc") { data { id } }
              small: gallery(filters: {width: {lt: 25}}, sort: "name:desc") { data { id } }
              page: gallery(pagination: {page: 2, pageSize: 2}) { data { id } }
              named: gallery(pagination: {page: 2, pageSize: 2}, sort: "name") {
                data { attributes { name } }
              }
            } } } }""",
    )
    assert "errors" not in body, body
    first, second, third = (e["attributes"] for e in body["data"]["articles"]["data"])

    def ids(value: dict[str, Any]) -> list[str]:
        return _ids(value["data"])

    assert ids(first["gallery"]) == ["3", "1", "4", "2"]  # the order attached
    assert ids(first["w"]) == ["4", "2", "3", "1"]  # the 10-pixel tie in the order attached
    assert ids(first["wd"]) == ["1", "3", "4", "2"]
    assert ids(first["small"]) == ["3", "4", "2"]
    assert ids(first["page"]) == ["4", "2"]
    assert first["named"] == {
        "data": [{"attributes": {"name": "mid.png"}}, {"attributes": {"name": "zeta.png"}}]
    }
    assert ids(second["small"]) == ["2"] and ids(second["page"]) == []
    assert ids(third["gallery"]) == [] and ids(third["small"]) == []


async def test_single_entry_query_as_an_apollo_client_sends_it(app):
    await _seed(app)
    query = """query Article($id: ID!, $sort: [String]) {
      article(id: $id) { data { id attributes { title links(sort: $sort) { label url } } } }
    }"""
    body = await gql(app.client, query, {"id": "1", "sort": ["label:desc"]})
    assert body == {
        "data": {
            "article": {
                "data": {
                    "id": "1",
                    "attributes": {
                        "title": "Alpha",
                        "links": [
                            {"label": "c", "url": "/3"},
                            {"label": "b", "url": "/2"},
                            {"label": "a", "url": "/0"},
                            {"label": "a", "url": "/1"},
                        ],
                    },
                }
            }
        }
    }


async def test_aliases_with_different_arguments_or_fields(app):
    await _seed(app)
    body = await gql(
        app.client,
        """{ articles(sort: "id") {
              data { id attributes {
                a: categories(sort: "name") { data { id } }
                b: categories(sort: "name:desc") { data { attributes { name } } }
                c: categories(sort: "name") { data { id attributes { name } } }
                l1: links(sort: "label") { id }
                l2: links { label }
                g1: gallery(sort: "name") { data { id } }
                g2: gallery { data { attributes { width } } }
              } }
              other: data { attributes {
                categories(filters: {name: {eq: "Tech"}}) { data { id } }
              } }
            } }""",
    )
    assert "errors" not in body, body
    articles = body["data"]["articles"]
    first = articles["data"][0]["attributes"]
    assert _ids(first["a"]["data"]) == ["2", "1"]
    assert first["b"] == {
        "data": [{"attributes": {"name": "Tech"}}, {"attributes": {"name": "Life"}}]
    }
    assert first["c"] == {
        "data": [
            {"id": "2", "attributes": {"name": "Life"}},
            {"id": "1", "attributes": {"name": "Tech"}},
        ]
    }
    assert _ids(first["l1"]) == ["4", "2", "1", "3"]
    assert [link["label"] for link in first["l2"]] == ["a", "c", "a", "b"]
    assert _ids(first["g1"]["data"]) == ["2", "4", "3", "1"]
    assert [f["attributes"]["width"] for f in first["g2"]["data"]] == [20, 30, 10, 10]
    assert [_ids(e["attributes"]["categories"]["data"]) for e in articles["other"]] == [
        ["1"],
        [],
        [],
    ]


async def test_aliases_with_different_arguments_inside_a_nested_relation(app):
    await _seed(app)
    body = await gql(
        app.client,
        """{ categories(sort: "id", filters: {id: {in: [1, 3]}}) { data { attributes {
              articles { data { attributes {
                one: links(pagination: {limit: 1}) { id }
                all: links { id }
              } } }
              titles: articles(sort: "title:desc") { data { attributes { title } } }
            } } } }""",
    )
    assert "errors" not in body, body
    tech, science = (e["attributes"] for e in body["data"]["categories"]["data"])
    alpha = tech["articles"]["data"][0]["attributes"]
    assert _ids(alpha["one"]) == ["4"] and _ids(alpha["all"]) == ["4", "3", "2", "1"]
    assert science["titles"] == {"data": [{"attributes": {"title": "Gamma"}}]}


async def test_refused_nested_arguments_null_only_that_field(app):
    await _seed(app)
    error = {
        "message": "Invalid parameter nosuch",
        "extensions": {
            "error": {
                "name": "ValidationError",
                "message": "Invalid parameter nosuch",
                "details": {},
            },
            "code": "BAD_USER_INPUT",
        },
    }
    for field in ('links(sort: "nosuch") { id }', 'gallery(sort: "nosuch") { data { id } }'):
        name = field.split("(")[0]
        body = await gql(
            app.client, f"{{ article(id: 1) {{ data {{ attributes {{ {field} }} }} }} }}"
        )
        assert body == {
            "errors": [error],
            "data": {"article": {"data": {"attributes": {name: None}}}},
        }
    body = await gql(
        app.client,
        '{ articles(sort: "id") { data { attributes { title '
        'categories(sort: "nosuch") { data { id } } } } } }',
    )
    assert body["errors"] == [error, error, error]  # one per row, as Strapi's resolvers
    assert [e["attributes"] for e in body["data"]["articles"]["data"]] == [
        {"title": "Alpha", "categories": None},
        {"title": "Beta", "categories": None},
        {"title": "Gamma", "categories": None},
    ]
    body = await gql(
        app.client,
        "{ article(id: 1) { data { attributes { "
        "gallery(pagination: {page: 1, start: 2}) { data { id } } } } } }",
    )
    assert body["errors"][0]["extensions"]["code"] == "STRAPI_PAGINATION_ERROR"
    assert body["data"] == {"article": {"data": {"attributes": {"gallery": None}}}}


async def test_empty_filters_are_no_condition(app):
    await _seed(app)

    async def ids(filters: str) -> tuple[list[str], int]:
        body = await gql(
            app.client,
            f'{{ articles(filters: {filters}, sort: "id") '
            "{ data { id } meta { pagination { total } } } }",
        )
        assert "errors" not in body, body
        articles = body["data"]["articles"]
        return _ids(articles["data"]), articles["meta"]["pagination"]["total"]

    everything = (["1", "2", "3"], 3)
    for empty in (
        "{categories: {}}",
        "{categories: {and: []}}",
        "{categories: {or: []}}",
        "{categories: {not: {}}}",
        "{categories: {articles: {}}}",
        "{categories: {name: {}}}",
        "{categories: {id: {}}}",
        "{not: {categories: {}}}",
        "{and: [{categories: {}}]}",
        "{seo: {}}",
        "{title: {}}",
        "{title: {not: {}}}",
    ):
        assert await ids(empty) == everything, empty
    # left out of an `or`, not true: only the other branch decides
    assert await ids('{or: [{categories: {}}, {title: {eq: "Beta"}}]}') == (["2"], 1)
    assert await ids('{or: [{title: {}}, {title: {eq: "Beta"}}]}') == (["2"], 1)
    assert await ids('{categories: {name: {eq: "Tech"}, articles: {}}}') == (["1"], 1)


async def test_null_filter_values_as_strapi_reads_them(app):
    """`{title: null}` is `title IS NULL` (as `{title: {eq: null}}`); a null relation is no
    condition; a null inside a relation filter holds for entries without related entries too
    (Strapi's LEFT JOIN row of nulls). Expected as the reference answered."""
    await _seed(app)

    async def ids(filters: str) -> list[str]:
        body = await gql(
            app.client, f'{{ articles(filters: {filters}, sort: "id") {{ data {{ id }} }} }}'
        )
        assert "errors" not in body, body
        return _ids(body["data"]["articles"]["data"])

    assert await ids("{title: null}") == []
    assert await ids("{summary: null}") == ["1", "2", "3"]
    assert await ids("{not: {summary: null}}") == []
    assert await ids("{categories: null}") == ["1", "2", "3"]
    assert await ids("{categories: {id: null}}") == ["2"]
    assert await ids("{categories: {name: null}}") == ["2"]
    assert await ids('{or: [{title: null}, {title: {eq: "Beta"}}]}') == ["2"]
