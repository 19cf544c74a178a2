"""The OpenAPI document of a ``blocks`` attribute: an array of block nodes (``null`` unless
required), and a real answer holding blocks validates against it — on both databases."""

from __future__ import annotations

from pathlib import Path

from jsonschema import Draft202012Validator

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "blocks-models"
BODY = [{"type": "paragraph", "children": [{"type": "text", "text": "Hi", "bold": True}]}]


async def test_blocks_are_an_array_of_nodes_in_the_document(start_app, admin):
    blog = await start_app(MODELS)
    document = (await blog.client.get("/documentation/openapi.json")).json()
    schemas = document["components"]["schemas"]
    body = schemas["PostAttributes"]["properties"]["body"]
    assert body["type"] == ["array", "null"]
    assert body["items"]["required"] == ["type"]
    note = schemas["NoteCreateRequest"]["properties"]["data"]
    assert note["properties"]["content"]["type"] == "array"
    assert "content" in note["required"]

    created = await blog.client.post(
        "/api/posts", json={"data": {"title": "t", "body": BODY}}, headers=admin
    )
    assert created.status_code == 200, created.text
    attributes = created.json()["data"]["attributes"]
    validator = Draft202012Validator(
        {**schemas["PostAttributes"], "components": {"schemas": schemas}}
    )
    assert sorted(validator.iter_errors(attributes), key=str) == []
