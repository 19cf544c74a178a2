"""The ``blocks`` attribute type in GraphQL, on both databases: typed ``JSON`` (``JSON!`` when
required) with ``JSONFilterInput`` filters, as Strapi's GraphQL plugin maps it; written through
the same checks as REST (the error is the reference's answer to the same mutation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.graphql.conftest import gql
from tests.conftest import AppHandle

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "blocks-models"
HEADING = [{"type": "heading", "level": 1, "children": [{"type": "text", "text": "t"}]}]
CREATE = """mutation($d: PostInput!) {
  createPost(data: $d) { data { id attributes { body shared } } }
}"""


@pytest.fixture
async def blog(reused_app) -> AppHandle:
    return await reused_app(MODELS)


async def _field_types(blog: AppHandle, name: str, fields: str = "fields") -> dict[str, str]:
    query = (
        f'{{ __type(name: "{name}") {{ {fields} {{ name type {{ name ofType {{ name }} }} }} }} }}'
    )
    body = await gql(blog.client, query)
    return {
        field["name"]: field["type"]["name"] or f"{field['type']['ofType']['name']}!"
        for field in body["data"]["__type"][fields]
    }


async def test_blocks_are_json_in_types_inputs_and_filters(blog):
    assert (await _field_types(blog, "Post"))["body"] == "JSON"
    assert (await _field_types(blog, "Note"))["content"] == "JSON!"
    assert (await _field_types(blog, "ComponentContentSection"))["content"] == "JSON"
    inputs = await _field_types(blog, "PostInput", "inputFields")
    assert (inputs["body"], inputs["notes"]) == ("JSON", "JSON")
    filters = await _field_types(blog, "PostFiltersInput", "inputFields")
    assert (filters["body"], filters["shared"]) == ("JSONFilterInput", "JSONFilterInput")
    assert "notes" not in filters  # private: CONTRACT §8


async def test_blocks_written_and_read_through_graphql(blog):
    created = await gql(blog.client, CREATE, {"d": {"title": "g", "body": HEADING, "shared": 5}})
    assert created["data"]["createPost"]["data"]["attributes"] == {"body": HEADING, "shared": None}
    found = await gql(
        blog.client,
        "{ posts(filters: {body: {notNull: true}}) { data { attributes { body } } } }",
    )
    assert found["data"]["posts"]["data"] == [{"attributes": {"body": HEADING}}]


async def test_invalid_blocks_in_a_mutation_are_a_bad_user_input(blog):
    body = await gql(
        blog.client, CREATE, {"d": {"title": "g", "body": [{"type": "heading", "children": []}]}}
    )
    (error,) = body["errors"]
    assert error["message"] == "2 errors occurred"
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["error"]["details"]["errors"] == [
        {
            "path": ["body", "0", "level"],
            "message": "body[0].level is a required field",
            "name": "ValidationError",
        },
        {
            "path": ["body", "0", "children"],
            "message": "Heading node children must have at least one Text or Link node",
            "name": "ValidationError",
        },
    ]


async def test_blocks_filters_and_sort_are_jsons(blog):
    """Blocks are queried as JSON (``query/jsonb.py``): ``eq`` compares with a JSON string,
    ``containsi`` reads jsonb's text, a sort orders by jsonb; ``contains`` (a 500 on the
    reference's PostgreSQL) is a BAD_USER_INPUT."""
    await gql(blog.client, CREATE, {"d": {"title": "h", "body": HEADING}})
    await gql(blog.client, CREATE, {"d": {"title": "none"}})
    query = (
        "query($f: PostFiltersInput, $s: [String]) { posts(filters: $f, sort: $s) { data { id } } }"
    )

    async def ids(filters: dict, sort: list[str] | None = None) -> list[str]:
        body = await gql(blog.client, query, {"f": filters, "s": sort or ["id"]})
        assert "errors" not in body, body
        return [entry["id"] for entry in body["data"]["posts"]["data"]]

    assert await ids({"body": {"eq": "x"}}) == []
    assert await ids({"body": {"containsi": '"TYPE": "HEADING"'}}) == ["1"]
    assert await ids({"body": {"nei": "x"}}) == ["1"]
    assert await ids({"body": {"gt": "x"}}) == ["1"]  # an array is above every string
    assert await ids({}, ["body:desc"]) == ["2", "1"]  # NULL first when descending
    body = await gql(blog.client, '{ posts(filters: {body: {contains: "x"}}) { data { id } } }')
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert body["data"] == {"posts": None}
