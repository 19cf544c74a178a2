"""The remaining generated operations of the plugins' models: upload files' Shadow CRUD,
single users and roles, user and role updates."""

from __future__ import annotations

from tests.api.graphql.conftest import gql


async def test_upload_file_shadow_crud(app, client):
    created = await gql(
        client,
        'mutation { createUploadFile(data: {name: "a.txt", hash: "a_1", mime: "text/plain", '
        'size: 1.5, url: "/uploads/a_1.txt", provider: "local", ext: ".txt"}) '
        "{ data { id attributes { name size url } } } }",
    )
    assert created["data"]["createUploadFile"]["data"] == {
        "id": "1",
        "attributes": {"name": "a.txt", "size": 1.5, "url": "/uploads/a_1.txt"},
    }
    updated = await gql(
        client,
        'mutation { updateUploadFile(id: 1, data: {caption: "c"}) '
        "{ data { attributes { caption } } } }",
    )
    assert updated["data"]["updateUploadFile"]["data"]["attributes"] == {"caption": "c"}
    one = await gql(client, "{ uploadFile(id: 1) { data { attributes { name caption } } } }")
    assert one["data"]["uploadFile"]["data"]["attributes"] == {"name": "a.txt", "caption": "c"}
    deleted = await gql(client, "mutation { deleteUploadFile(id: 1) { data { id } } }")
    assert deleted["data"]["deleteUploadFile"]["data"] == {"id": "1"}
    assert (await gql(client, "{ uploadFile(id: 1) { data { id } } }"))["data"]["uploadFile"] == {
        "data": None
    }


async def test_single_user_and_role_queries_and_updates(app, client):
    from tests.api.graphql.test_users import _authenticated_role

    role_id = await _authenticated_role(client)
    await gql(
        client,
        'mutation { createUsersPermissionsUser(data: {username: "morpheus", '
        f'email: "m@x.io", password: "secret123", role: "{role_id}"}}) {{ data {{ id }} }} }}',
    )
    user = await gql(
        client,
        "{ usersPermissionsUser(id: 1) { data { attributes { username blocked "
        "role { data { id attributes { name } } } } } } }",
    )
    attributes = user["data"]["usersPermissionsUser"]["data"]["attributes"]
    assert attributes["username"] == "morpheus" and attributes["blocked"] is False
    role_id = attributes["role"]["data"]["id"]
    role = await gql(
        client,
        f"{{ usersPermissionsRole(id: {role_id}) {{ data {{ attributes {{ type "
        f"users {{ data {{ attributes {{ username }} }} }} }} }} }} }}",
    )
    assert role["data"]["usersPermissionsRole"]["data"]["attributes"] == {
        "type": "authenticated",
        "users": {"data": [{"attributes": {"username": "morpheus"}}]},
    }
    blocked = await gql(
        client,
        "mutation { updateUsersPermissionsUser(id: 1, data: {blocked: true}) "
        "{ data { attributes { blocked } } } }",
    )
    assert blocked["data"]["updateUsersPermissionsUser"]["data"]["attributes"] == {"blocked": True}
    renamed = await gql(
        client,
        f'mutation {{ updateUsersPermissionsRole(id: {role_id}, data: {{description: "d"}}) '
        "{ ok } }",
    )
    assert renamed == {"data": {"updateUsersPermissionsRole": {"ok": True}}}
    ids = await gql(  # read as Strapi does: no tree, no permissions (test_roles.py)
        client,
        f'mutation {{ updateUsersPermissionsRole(id: {role_id}, data: {{permissions: ["1"]}}) '
        "{ ok } }",
    )
    assert ids == {"data": {"updateUsersPermissionsRole": {"ok": True}}}


async def test_upload_folders(app, client):
    root = await gql(
        client,
        'mutation { createUploadFolder(data: {name: "Photos", pathId: 1, path: "/1"}) '
        "{ data { id attributes { name pathId path } } } }",
    )
    assert root["data"]["createUploadFolder"]["data"] == {
        "id": "1",
        "attributes": {"name": "Photos", "pathId": 1, "path": "/1"},
    }
    child = await gql(
        client,
        'mutation { createUploadFolder(data: {name: "2024", pathId: 2, path: "/1/2", parent: "1"}) '
        "{ data { attributes { parent { data { attributes { name } } } } } } }",
    )
    assert child["data"]["createUploadFolder"]["data"]["attributes"]["parent"] == {
        "data": {"attributes": {"name": "Photos"}}
    }
    tree = await gql(
        client,
        "{ uploadFolders(filters: {parent: {id: {null: true}}}) { data { attributes { name "
        "children { data { attributes { name } } } files { data { id } } } } } }",
    )
    assert tree["data"]["uploadFolders"]["data"] == [
        {
            "attributes": {
                "name": "Photos",
                "children": {"data": [{"attributes": {"name": "2024"}}]},
                "files": {"data": []},
            }
        }
    ]
    duplicate = await gql(
        client,
        'mutation { createUploadFolder(data: {name: "Again", pathId: 1, path: "/3"}) '
        "{ data { id } } }",
    )
    assert duplicate["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    deleted = await gql(client, "mutation { deleteUploadFolder(id: 2) { data { id } } }")
    assert deleted == {"data": {"deleteUploadFolder": {"data": {"id": "2"}}}}


async def test_files_list_what_they_are_attached_to(blog, client, make_token):
    from tests.api.graphql.test_upload import UPLOAD, multipart
    from tests.api.upload.test_upload import png

    uploaded = await multipart(
        client,
        UPLOAD,
        {"file": None, "ref": "api::article.article", "refId": "1", "field": "cover"},
        [("file", ("cover.png", png(40, 40), "image/png"))],
    )
    file_id = uploaded.json()["data"]["upload"]["data"]["id"]
    await client.put(
        "/api/authors/2",
        json={"data": {"avatar": int(file_id)}},
        headers={"Authorization": "Bearer test-admin-token"},
    )
    query = (
        "{ uploadFiles { data { id attributes { name related { __typename "
        "... on Article { title author { data { attributes { name } } } } "
        "... on Author { name } } } } } }"
    )
    body = await gql(client, query)
    assert "errors" not in body, body
    (entry,) = body["data"]["uploadFiles"]["data"]
    assert entry["attributes"]["related"] == [
        {
            "__typename": "Article",
            "title": "Hello World",
            "author": {"data": {"attributes": {"name": "Alice"}}},
        },
        {"__typename": "Author", "name": "Bob"},
    ]
    # a caller who may not find authors does not learn which authors use the file
    custom = await make_token(
        "custom", ("plugin::upload.content-api.find", "api::article.article.find")
    )
    limited = await gql(
        client,
        "{ uploadFiles { data { attributes { related { __typename } } } } }",
        headers=custom,
    )
    assert limited["data"]["uploadFiles"]["data"][0]["attributes"]["related"] == [
        {"__typename": "Article"}
    ]
