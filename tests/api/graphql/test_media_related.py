"""``related`` of files selected under an entry's media attributes (``UploadFile.related``,
a ``[GenericMorph]``): what each file is attached to, as under ``uploadFiles``, read once per
level for the files of every parent."""

from __future__ import annotations

import io

from PIL import Image

from tests.api.graphql.conftest import ADMIN, gql

RELATED = (
    "related { __typename ... on Article { title } ... on Author { name } "
    "... on ComponentSharedSeo { metaTitle } }"
)


async def _upload(client, name: str) -> int:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (1, 2, 3)).save(buffer, format="PNG")
    response = await client.post(
        "/api/upload", files=[("files", (name, buffer.getvalue(), "image/png"))], headers=ADMIN
    )
    assert response.status_code == 200, response.text
    return int(response.json()[0]["id"])


async def _attach(client, path: str, data: dict) -> None:
    response = await client.put(path, json={"data": data}, headers=ADMIN)
    assert response.status_code == 200, response.text


async def test_related_of_media_under_entries(blog, client, make_token):
    cover = await _upload(client, "cover.png")
    other = await _upload(client, "other.png")
    await _attach(client, "/api/articles/1", {"cover": cover, "gallery": [other]})
    await _attach(client, "/api/articles/2", {"cover": other})
    await _attach(client, "/api/authors/2", {"avatar": cover})
    query = (
        '{ articles(sort: "id") { data { id attributes { '
        f"cover {{ data {{ attributes {{ name {RELATED} }} }} }} "
        f"gallery {{ data {{ id attributes {{ {RELATED} }} }} }} }} }} }} }}"
    )
    body = await gql(client, query)
    assert "errors" not in body, body
    first, second = body["data"]["articles"]["data"]
    cover_related = [
        {"__typename": "Article", "title": "Hello World"},
        {"__typename": "Author", "name": "Bob"},
    ]
    other_related = [
        {"__typename": "Article", "title": "Hello World"},
        {"__typename": "Article", "title": "Second post"},
    ]
    assert first["attributes"]["cover"] == {
        "data": {"attributes": {"name": "cover.png", "related": cover_related}}
    }
    assert first["attributes"]["gallery"] == {
        "data": [
            {"id": str(other), "attributes": {"related": other_related}},
        ]
    }
    assert second["attributes"]["cover"]["data"]["attributes"]["related"] == other_related
    assert second["attributes"]["gallery"] == {"data": []}
    # as under `uploadFiles`: entries of types the caller may not find are left out
    custom = await make_token(
        "custom", ("plugin::upload.content-api.find", "api::article.article.find")
    )
    limited = await gql(
        client,
        "{ articles(filters: {id: {eq: 1}}) { data { attributes { cover { data { attributes "
        "{ related { __typename } } } } } } } }",
        headers=custom,
    )
    assert "errors" not in limited, limited
    assert limited["data"]["articles"]["data"][0]["attributes"]["cover"] == {
        "data": {"attributes": {"related": [{"__typename": "Article"}]}}
    }


async def test_related_of_media_under_a_relation_and_a_single_entry(blog, client):
    avatar = await _upload(client, "avatar.png")
    await _attach(client, "/api/authors/1", {"avatar": avatar})
    body = await gql(
        client,
        "{ article(id: 1) { data { attributes { author { data { attributes { "
        f"avatar {{ data {{ attributes {{ {RELATED} }} }} }} }} }} }} }} }} }} }}",
    )
    assert "errors" not in body, body
    author = body["data"]["article"]["data"]["attributes"]["author"]["data"]["attributes"]
    assert author["avatar"]["data"]["attributes"]["related"] == [
        {"__typename": "Author", "name": "Alice"}
    ]


MANY = """
query Many($size: Int) {
  articles(pagination: {pageSize: $size}) {
    data { attributes { cover { data { attributes { related {
      __typename ... on Article { title }
    } } } } } }
  }
}
"""


async def test_related_of_media_does_not_grow_with_rows(app, client, statements):
    files = [await _upload(client, f"{number}.png") for number in range(3)]
    for number in range(100):
        await app.runtime.entries.create(
            "api::article.article",
            {"title": f"Article {number}", "cover": files[number % 3]},
        )

    async def run(size: int) -> tuple[list[str], dict]:
        async with statements.recording() as recorded:
            response = await client.post(
                "/graphql", json={"query": MANY, "variables": {"size": size}}, headers=ADMIN
            )
        body = response.json()
        assert "errors" not in body, body
        # the caller and (SQLite: on each read of a localized type) the locales aside
        content = [
            s
            for s in recorded
            if not s.startswith("BEGIN")
            and "strapi_api_tokens" not in s
            and "FROM i18n_locale" not in s
        ]
        return content, body

    small, _ = await run(5)
    large, body = await run(100)
    # the page, the covers, the files' attachments, the related articles
    assert len(small) == len(large) == 4, large
    articles = body["data"]["articles"]["data"]
    assert len(articles) == 100
    related = articles[99]["attributes"]["cover"]["data"]["attributes"]["related"]
    assert len(related) == 34 and {item["__typename"] for item in related} == {"Article"}


async def test_related_of_media_in_a_component_and_a_dynamic_zone(blog, client):
    image = await _upload(client, "image.png")
    await _attach(
        client,
        "/api/articles/2",
        {
            "seo": {"metaTitle": "second", "shareImage": image},
            "blocks": [{"__component": "blocks.media", "file": image}],
        },
    )
    related = (
        "related { __typename ... on ComponentSharedSeo { metaTitle } "
        "... on ComponentBlocksMedia { id } ... on Article { title } }"
    )
    body = await gql(
        client,
        "{ article(id: 2) { data { attributes { "
        f"seo {{ shareImage {{ data {{ attributes {{ {related} }} }} }} }} "
        "blocks { ... on ComponentBlocksMedia { "
        f"file {{ data {{ attributes {{ {related} }} }} }} }} }} "
        "} } } }",
    )
    assert "errors" not in body, body
    attributes = body["data"]["article"]["data"]["attributes"]
    expected = sorted(
        [
            {"__typename": "ComponentSharedSeo", "metaTitle": "second"},
            {"__typename": "ComponentBlocksMedia", "id": "1"},
        ],
        key=lambda item: item["__typename"],
    )
    shared = attributes["seo"]["shareImage"]["data"]["attributes"]["related"]
    (block,) = attributes["blocks"]
    in_zone = block["file"]["data"]["attributes"]["related"]
    assert sorted(shared, key=lambda item: item["__typename"]) == expected
    assert sorted(in_zone, key=lambda item: item["__typename"]) == expected
