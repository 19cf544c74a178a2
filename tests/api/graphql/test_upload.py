"""Uploads over the GraphQL multipart request spec, and the file's other mutations."""

from __future__ import annotations

import json

from tests.api.graphql.conftest import ADMIN, gql
from tests.api.upload.test_upload import png

UPLOAD = """
mutation Upload($file: Upload!, $ref: String, $refId: ID, $field: String) {
  upload(file: $file, ref: $ref, refId: $refId, field: $field, info: {alternativeText: "alt"}) {
    data { id attributes { name alternativeText mime width height url } }
  }
}
"""


async def multipart(client, query, variables, files, headers=ADMIN):
    mapping = {str(i): [f"variables.{path}"] for i, (path, _) in enumerate(files)}
    parts = {
        "operations": (None, json.dumps({"query": query, "variables": variables})),
        "map": (None, json.dumps(mapping)),
    }
    for i, (_, (name, content, mime)) in enumerate(files):
        parts[str(i)] = (name, content, mime)
    return await client.post("/graphql", files=parts, headers=headers)


async def test_upload_attach_update_and_remove(blog, client):
    response = await multipart(
        client,
        UPLOAD,
        {"file": None, "ref": "api::article.article", "refId": "1", "field": "cover"},
        [("file", ("cover.png", png(300, 200), "image/png"))],
    )
    assert response.status_code == 200, response.text
    uploaded = response.json()["data"]["upload"]["data"]
    assert uploaded["attributes"]["name"] == "cover.png"
    assert uploaded["attributes"]["alternativeText"] == "alt"
    assert uploaded["attributes"]["mime"] == "image/png"
    assert (uploaded["attributes"]["width"], uploaded["attributes"]["height"]) == (300, 200)
    stored = await client.get(uploaded["attributes"]["url"])
    assert stored.status_code == 200
    cover = await gql(
        client, "{ article(id: 1) { data { attributes { cover { data { id } } } } } }"
    )
    assert cover["data"]["article"]["data"]["attributes"]["cover"] == {
        "data": {"id": uploaded["id"]}
    }

    info = await gql(
        client,
        f'mutation {{ updateFileInfo(id: {uploaded["id"]}, info: {{caption: "c", name: "n.png"}}) '
        "{ data { attributes { name caption } } } }",
    )
    assert info["data"]["updateFileInfo"]["data"]["attributes"] == {"name": "n.png", "caption": "c"}
    files = await gql(client, "{ uploadFiles { data { id } meta { pagination { total } } } }")
    assert files["data"]["uploadFiles"]["meta"]["pagination"]["total"] == 1
    removed = await gql(
        client, f"mutation {{ removeFile(id: {uploaded['id']}) {{ data {{ id }} }} }}"
    )
    assert removed["data"]["removeFile"]["data"] == {"id": uploaded["id"]}
    assert (await client.get(uploaded["attributes"]["url"])).status_code == 404


async def test_multiple_upload(app, client):
    response = await multipart(
        client,
        "mutation($files: [Upload]!) "
        "{ multipleUpload(files: $files) { data { attributes { name } } } }",
        {"files": [None, None]},
        [
            ("files.0", ("a.png", png(20, 20), "image/png")),
            ("files.1", ("b.txt", b"hello", "text/plain")),
        ],
    )
    assert response.status_code == 200, response.text
    names = [r["data"]["attributes"]["name"] for r in response.json()["data"]["multipleUpload"]]
    assert names == ["a.png", "b.txt"]


async def test_multipart_errors(app, client):
    missing_map = await client.post(
        "/graphql",
        files={"operations": (None, json.dumps({"query": UPLOAD, "variables": {"file": None}}))},
        headers=ADMIN,
    )
    assert missing_map.status_code == 400
    assert missing_map.json()["errors"][0]["message"].startswith("Missing multipart field ‘map’")  # noqa: RUF001
    no_file = await client.post(
        "/graphql",
        files={
            "operations": (None, json.dumps({"query": UPLOAD, "variables": {"file": None}})),
            "map": (None, json.dumps({"0": ["variables.file"]})),
        },
        headers=ADMIN,
    )
    assert no_file.status_code == 400
    assert "File missing in the request" in no_file.json()["errors"][0]["message"]


async def test_upload_needs_the_upload_permission(app, client, make_token):
    read_only = await make_token("read-only")
    response = await multipart(
        client, UPLOAD, {"file": None}, [("file", ("x.png", png(10, 10), "image/png"))], read_only
    )
    assert response.status_code == 200
    assert response.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert response.json()["data"] is None
