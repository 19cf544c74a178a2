"""Shadow CRUD mutations through the same entry service and validation as REST."""

from __future__ import annotations

from tests.api.graphql.conftest import ADMIN, gql

CREATE = """
mutation Create($data: ArticleInput!) {
  createArticle(data: $data) {
    data { id attributes {
      title publishedAt views
      author { data { id } }
      categories { data { id } }
      links { label url }
      blocks {
        __typename
        ... on ComponentBlocksQuote { body }
        ... on ComponentBlocksRichText { text: body }
      }
    } }
  }
}
"""


async def test_create_makes_a_draft_with_relations_components_and_zone(blog, client):
    body = await gql(
        client,
        CREATE,
        {
            "data": {
                "title": "Made in GraphQL",
                "views": 7,
                "author": "2",
                "categories": ["1", "3"],
                "links": [{"label": "a", "url": "/a"}],
                "blocks": [
                    {"__typename": "ComponentBlocksQuote", "body": "said"},
                    {"__typename": "ComponentBlocksRichText", "body": "text"},
                ],
            }
        },
    )
    assert "errors" not in body, body
    created = body["data"]["createArticle"]["data"]
    assert created["id"] == "4"
    assert created["attributes"] == {
        "title": "Made in GraphQL",
        "publishedAt": None,  # GraphQL creates drafts (REST POST publishes)
        "views": 7,
        "author": {"data": {"id": "2"}},
        "categories": {"data": [{"id": "1"}, {"id": "3"}]},
        "links": [{"label": "a", "url": "/a"}],
        "blocks": [
            {"__typename": "ComponentBlocksQuote", "body": "said"},
            {"__typename": "ComponentBlocksRichText", "text": "text"},
        ],
    }
    rest = await client.get("/api/articles/4?publicationState=preview&populate=*", headers=ADMIN)
    assert rest.json()["data"]["attributes"]["author"]["data"]["id"] == 2


async def test_create_with_published_at_publishes(app, client):
    body = await gql(
        client,
        CREATE,
        {"data": {"title": "Published", "publishedAt": "2024-05-01T10:00:00.000Z"}},
    )
    assert body["data"]["createArticle"]["data"]["attributes"]["publishedAt"] == (
        "2024-05-01T10:00:00.000Z"
    )


async def test_create_validates_like_a_published_entry(app, client):
    """Strapi validates GraphQL creates as published entries (minLength applies)."""
    body = await gql(client, CREATE, {"data": {"title": "ab"}})
    assert body["data"] == {"createArticle": None}
    (error,) = body["errors"]
    assert error == {
        "message": "title must be at least 3 characters",
        "extensions": {
            "error": {
                "name": "ValidationError",
                "message": "title must be at least 3 characters",
                "details": {
                    "errors": [
                        {
                            "path": ["title"],
                            "message": "title must be at least 3 characters",
                            "name": "ValidationError",
                        }
                    ]
                },
            },
            "code": "BAD_USER_INPUT",
        },
    }
    listed = await client.get("/api/articles?publicationState=preview", headers=ADMIN)
    assert listed.json()["data"] == []  # nothing written


async def test_unknown_dynamic_zone_component(app, client):
    body = await gql(
        client, CREATE, {"data": {"title": "Zone", "blocks": [{"__typename": "Nope"}]}}, status=400
    )
    assert (
        "Component not found. expected one of: ComponentBlocksRichText, ComponentBlocksQuote, "
        in (body["errors"][0]["message"])
    )
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_update_and_delete(blog, client):
    updated = await gql(
        client,
        'mutation { updateArticle(id: 2, data: {title: "Renamed", categories: ["1"]}) '
        "{ data { id attributes { title categories { data { id } } } } } }",
    )
    assert updated["data"]["updateArticle"]["data"] == {
        "id": "2",
        "attributes": {"title": "Renamed", "categories": {"data": [{"id": "1"}]}},
    }
    deleted = await gql(
        client, "mutation { deleteArticle(id: 2) { data { id attributes { title } } } }"
    )
    assert deleted["data"]["deleteArticle"]["data"] == {
        "id": "2",
        "attributes": {"title": "Renamed"},
    }
    assert (await client.get("/api/articles/2", headers=ADMIN)).status_code == 404


async def test_update_and_delete_of_a_missing_entry_answer_null(app, client):
    body = await gql(
        client,
        'mutation { updateArticle(id: 99, data: {title: "xyz"}) { data { id } } '
        "deleteArticle(id: 98) { data { id } } }",
    )
    assert body == {"data": {"updateArticle": {"data": None}, "deleteArticle": {"data": None}}}


async def test_mutation_permissions(blog, client, make_token):
    read_only = await make_token("read-only")
    body = await gql(
        client,
        'mutation { createArticle(data: {title: "Nope"}) { data { id } } }',
        headers=read_only,
    )
    assert body["data"] == {"createArticle": None}
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    custom = await make_token("custom", ("api::category.category.create",))
    body = await gql(
        client,
        'mutation { createCategory(data: {name: "New", slug: "new"}) { data { id } } }',
        headers=custom,
    )
    assert body == {"data": {"createCategory": {"data": {"id": "4"}}}}
