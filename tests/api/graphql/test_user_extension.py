"""GraphQL over the extended users-permissions user (``tests/support/user_extension.py``):
``UsersPermissionsUser`` has the extension's fields in the file's order, its filters input has
the public ones, the Shadow CRUD reads and writes them, and a populated author has them.
Answers compared with the reference Strapi 4.25 on the same models and data.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.api.graphql.conftest import gql
from tests.conftest import AppHandle, Databases, _empty_content_tables
from tests.support.user_extension import seed, start_foodie


@pytest.fixture(scope="module")
async def foodie_app(databases: Databases) -> AsyncIterator[AppHandle]:
    handle = await start_foodie(databases)
    yield handle
    await handle.__aexit__()


@pytest.fixture
async def http(foodie_app: AppHandle) -> httpx.AsyncClient:
    await _empty_content_tables(foodie_app.runtime)
    return foodie_app.client


async def _fields(http: httpx.AsyncClient, name: str) -> list[str]:
    body = await gql(
        http, f'{{ __type(name: "{name}") {{ fields {{ name }} inputFields {{ name }} }} }}'
    )
    found = body["data"]["__type"]
    return [field["name"] for field in found["fields"] or found["inputFields"]]


async def test_user_type_and_inputs_have_the_extension_attributes(http):
    assert await _fields(http, "UsersPermissionsUser") == [
        "username",
        "email",
        "provider",
        "confirmed",
        "blocked",
        "role",
        "reviews",
        "articles",
        "picture",
        "job",
        "favorites",
        "socials",
        "createdAt",
        "updatedAt",
    ]
    filters = await _fields(http, "UsersPermissionsUserFiltersInput")
    assert {"job", "reviews", "articles", "favorites"} <= set(filters)
    assert "phone" not in filters  # private: left out (docs/differences-from-strapi.md)
    assert {"job", "picture", "reviews", "favorites", "phone"} <= set(
        await _fields(http, "UsersPermissionsUserInput")
    )
    # the plugin's fixed types stay as they are
    assert "job" not in await _fields(http, "UsersPermissionsMe")
    assert await _fields(http, "UsersPermissionsRegisterInput") == [
        "username",
        "email",
        "password",
    ]


async def test_users_query_reads_filters_and_populates_the_extension(http):
    ids = await seed(http)
    body = await gql(
        http,
        '{ usersPermissionsUsers(filters: {job: {eq: "chef"}}) { data { id attributes {'
        " username job picture { data { id attributes { mime } } }"
        ' reviews(sort: "note:asc") { data { id attributes { note author { data { attributes'
        " { job } } } } } } favorites { data { id } } } } }"
        ' reviews(filters: {author: {job: {eq: "chef"}}}) { data { id attributes { author {'
        " data { id attributes { job picture { data { id } } } } } } } } }",
    )
    assert "errors" not in body, body
    author = {"data": {"attributes": {"job": "chef"}}}
    assert body["data"]["usersPermissionsUsers"]["data"] == [
        {
            "id": str(ids["user"]),
            "attributes": {
                "username": "bob",
                "job": "chef",
                "picture": {"data": {"id": str(ids["file"]), "attributes": {"mime": "image/png"}}},
                "reviews": {
                    "data": [
                        {"id": str(ids["bad"]), "attributes": {"note": 2, "author": author}},
                        {"id": str(ids["good"]), "attributes": {"note": 4, "author": author}},
                    ]
                },
                "favorites": {"data": [{"id": str(ids["article"])}]},
            },
        }
    ]
    populated = {
        "data": {
            "id": str(ids["user"]),
            "attributes": {"job": "chef", "picture": {"data": {"id": str(ids["file"])}}},
        }
    }
    assert body["data"]["reviews"]["data"] == [
        {"id": str(ids["good"]), "attributes": {"author": populated}},
        {"id": str(ids["bad"]), "attributes": {"author": populated}},
    ]


async def test_update_user_mutation_writes_the_extension(http):
    ids = await seed(http)
    body = await gql(
        http,
        f'mutation {{ updateUsersPermissionsUser(id: {ids["user"]}, data: {{job: "baker",'
        " favorites: []}) { data { id attributes { job favorites { data { id } } } } } }",
    )
    assert body == {
        "data": {
            "updateUsersPermissionsUser": {
                "data": {
                    "id": str(ids["user"]),
                    "attributes": {"job": "baker", "favorites": {"data": []}},
                }
            }
        }
    }
