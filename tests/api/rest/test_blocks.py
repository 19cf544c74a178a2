"""The ``blocks`` attribute type (Strapi 4.15+'s Blocks editor) over REST, on both databases:
stored in a JSON column (``jsonb`` on PostgreSQL), checked and cast as Strapi 4.25's validator
does (the messages below are the reference Strapi's answers to the same bodies), answered as
the array, private and required honoured, filtered like JSON, non-localized values copied to
a new localization. Models: ``tests/fixtures/blocks-models``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from tests.conftest import AppHandle

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "blocks-models"

PARAGRAPH = {"type": "paragraph", "children": [{"type": "text", "text": "Hello ", "bold": True}]}
RICH = [
    {
        "type": "paragraph",
        "children": [
            {"type": "text", "text": "Read "},
            {
                "type": "link",
                "url": "https://strapi.io/blog",
                "children": [{"type": "text", "text": "the blog", "italic": True}],
            },
        ],
    },
    {"type": "heading", "level": 2, "children": [{"type": "text", "text": "Title"}]},
    {
        "type": "list",
        "format": "ordered",
        "children": [
            {"type": "list-item", "children": [{"type": "text", "text": "one"}]},
            {
                "type": "list",
                "format": "unordered",
                "children": [{"type": "list-item", "children": [{"type": "text", "text": "a"}]}],
            },
        ],
    },
    {"type": "quote", "children": [{"type": "text", "text": "q", "code": True}]},
    {"type": "code", "syntax": "python", "children": [{"type": "text", "text": "x = 1"}]},
    {
        "type": "image",
        "image": {
            "name": "photo.png",
            "alternativeText": None,
            "url": "/uploads/photo.png",
            "caption": None,
            "width": 10,
            "height": 8,
            "formats": {},
            "hash": "photo",
            "ext": ".png",
            "mime": "image/png",
            "size": 1.5,
            "previewUrl": None,
            "provider": "local",
            "provider_metadata": None,
            "createdAt": "2024-05-15T10:00:00.000Z",
            "updatedAt": "2024-05-15T10:00:00.000Z",
        },
        "children": [{"type": "text", "text": ""}],
    },
]


@pytest.fixture
async def blog(reused_app) -> AppHandle:
    return await reused_app(MODELS)


async def _post(handle: AppHandle, admin, plural: str, data: dict[str, Any]) -> Any:
    return await handle.client.post(f"/api/{plural}", json={"data": data}, headers=admin)


async def _created(handle: AppHandle, admin, plural: str, data: dict[str, Any]) -> dict:
    response = await _post(handle, admin, plural, data)
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def _error(handle: AppHandle, admin, plural: str, data: dict[str, Any]) -> dict:
    response = await _post(handle, admin, plural, data)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["name"] == "ValidationError"
    return error


async def test_blocks_round_trip_as_the_array_sent(blog, admin):
    created = await _created(
        blog, admin, "posts", {"title": "a", "body": RICH, "sections": [{"content": [PARAGRAPH]}]}
    )
    assert created["attributes"]["body"] == RICH
    read = await blog.client.get(
        f"/api/posts/{created['id']}", params={"populate": "sections"}, headers=admin
    )
    attributes = read.json()["data"]["attributes"]
    assert attributes["body"] == RICH
    assert attributes["sections"][0]["content"] == [PARAGRAPH]
    listed = await blog.client.get("/api/posts?fields[0]=body", headers=admin)
    assert listed.json()["data"][0]["attributes"] == {"body": RICH}


async def test_blocks_column_is_json(blog):
    async with blog.runtime.database.read() as conn:
        columns = await conn.run_sync(
            lambda sync: {c["name"]: c["type"] for c in inspect(sync).get_columns("posts")}
        )
    expected = "JSON" if blog.runtime.database.dialect.name == "sqlite" else "JSONB"
    assert str(columns["body"]).upper() == expected


async def test_blocks_store_what_strapi_casts(blog, admin):
    sent = [
        {"type": "heading", "level": "2", "children": [{"type": "text", "text": 5, "bold": "1"}]}
    ]
    created = await _created(blog, admin, "posts", {"title": "cast", "body": sent})
    assert created["attributes"]["body"] == [
        {"type": "heading", "level": 2, "children": [{"type": "text", "text": "5", "bold": True}]}
    ]
    quoted = '[{"type":"quote","children":[{"type":"text","text":"q"}]}]'
    read_as_json = await _created(blog, admin, "posts", {"body": quoted})
    assert read_as_json["attributes"]["body"] == [
        {"type": "quote", "children": [{"type": "text", "text": "q"}]}
    ]


@pytest.mark.parametrize("value", [5, {"a": 1}, "not json", True])
async def test_a_value_that_is_not_an_array_is_stored_as_null(blog, admin, value):
    created = await _created(blog, admin, "posts", {"title": "x", "body": value})
    assert created["attributes"]["body"] is None


async def test_invalid_blocks_answer_every_problem_with_strapis_messages(blog, admin):
    body = [
        {"type": "heading", "children": []},
        {
            "type": "list",
            "format": "x",
            "children": [{"type": "list-item", "children": [{"type": "bogus"}]}],
        },
    ]
    error = await _error(blog, admin, "posts", {"body": body})
    assert error["message"] == "4 errors occurred"
    assert error["details"]["errors"] == [
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
        {
            "path": ["body", "1", "format"],
            "message": "body[1].format must be one of the following values: ordered, unordered",
            "name": "ValidationError",
        },
        {
            "path": ["body", "1", "children", "0", "children", "0"],
            "message": "Inline node must be Text or Link",
            "name": "ValidationError",
        },
    ]


@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        ([{"type": "foo"}], ["body", "0"], "Block node is of invalid type"),
        # Strapi reads `null.type` here and answers 500
        ([None], ["body", "0"], "Block node is of invalid type"),
        (
            [{"type": "paragraph", "children": [{"type": "text"}]}],
            ["body", "0", "children", "0", "text"],
            "Text must be defined with at least an empty string",
        ),
        (
            [{"type": "paragraph", "children": [{"type": "link", "url": "no", "children": []}]}],
            ["body", "0", "children", "0", "url"],
            "Please specify a valid link.",
        ),
        (
            [{"type": "heading", "level": 7, "children": [{"type": "text", "text": "h"}]}],
            ["body", "0", "level"],
            "body[0].level must be one of the following values: 1, 2, 3, 4, 5, 6",
        ),
        (
            [{"type": "paragraph", "children": [{"type": "text", "text": "a", "bold": "yes"}]}],
            ["body", "0", "children", "0", "bold"],
            'body[0].children[0].bold must be a `boolean` type, but the final value was: `"yes"`.',
        ),
        (
            [{"type": "paragraph", "children": "abc"}],
            ["body", "0", "children"],
            "body[0].children must be a `array` type, but the final value was: `null` "
            '(cast from the value `"abc"`).',
        ),
    ],
)
async def test_one_invalid_node_is_named_by_its_path(blog, admin, body, path, message):
    error = await _error(blog, admin, "posts", {"body": body})
    assert error["message"] == message
    assert error["details"]["errors"] == [
        {"path": path, "message": message, "name": "ValidationError"}
    ]


async def test_blocks_inside_a_component_are_checked_at_their_path(blog, admin):
    error = await _error(blog, admin, "posts", {"sections": [{"content": [{"type": "x"}]}]})
    assert error["details"]["errors"] == [
        {
            "path": ["sections", "0", "content", "0"],
            "message": "Block node is of invalid type",
            "name": "ValidationError",
        }
    ]


async def test_blocks_nested_too_deep_are_refused(blog, admin):
    deep: Any = [{"type": "text", "text": "x"}]
    for _ in range(60):
        deep = [{"type": "list", "format": "ordered", "children": deep}]
    error = await _error(blog, admin, "posts", {"body": deep})
    assert error["message"] == "body must not be nested more than 100 levels deep"


async def test_blocks_holding_nul_are_refused(blog, admin):
    body = [{"type": "paragraph", "children": [{"type": "text", "text": "a\x00b"}]}]
    error = await _error(blog, admin, "posts", {"body": body})
    assert error["message"] == "body must not contain NUL characters"


NOT_ARRAY = "content must be a `array` type, but the final value was: `null`"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "n"}, "content must be defined."),
        ({"name": "n", "content": None}, f"{NOT_ARRAY}."),
        ({"name": "n", "content": "x"}, f'{NOT_ARRAY} (cast from the value `"x"`).'),
    ],
)
async def test_required_blocks_need_an_array(blog, admin, data, message):
    error = await _error(blog, admin, "notes", data)
    assert error["message"] == message


async def test_required_blocks_accept_an_empty_array_and_drafts_may_omit_them(blog, admin):
    published = await _created(blog, admin, "notes", {"name": "n", "content": []})
    assert published["attributes"]["content"] == []
    draft = await _created(blog, admin, "notes", {"name": "d", "publishedAt": None})
    assert draft["attributes"]["content"] is None


async def test_private_blocks_are_written_but_never_read_nor_queried(blog, admin):
    created = await _created(blog, admin, "posts", {"title": "p", "notes": [PARAGRAPH]})
    assert "notes" not in created["attributes"]
    for query in ("fields[0]=notes", "filters[notes][$null]=true", "sort=notes"):
        response = await blog.client.get(f"/api/posts?{query}", headers=admin)
        assert response.status_code == 400, query
        assert response.json()["error"]["message"] == "Invalid parameter notes"
    async with blog.runtime.database.read() as conn:
        stored = await conn.execute(
            text("SELECT notes FROM posts WHERE id = :id"), {"id": created["id"]}
        )
        value = stored.scalar_one()
    assert (json.loads(value) if isinstance(value, str) else value) == [PARAGRAPH]


async def test_blocks_are_filtered_as_json(blog, admin):
    await _created(blog, admin, "posts", {"title": "with", "body": [PARAGRAPH]})
    await _created(blog, admin, "posts", {"title": "without"})

    async def titles(query: str) -> list[str]:
        response = await blog.client.get(f"/api/posts?{query}&fields[0]=title", headers=admin)
        assert response.status_code == 200, response.text
        return [entry["attributes"]["title"] for entry in response.json()["data"]]

    assert await titles("filters[body][$null]=true") == ["without"]
    assert await titles("filters[body][$notNull]=true") == ["with"]
    # as on the reference: entries without the component match a `$null` through it
    assert await titles("filters[sections][content][$null]=true") == ["with", "without"]
    # as `json` (the reference compares the JSON text of the value and of the column)
    assert await titles("filters[body][$eq]=x") == []
    assert await titles("filters[body][$containsi]=hello") == ["with"]
    assert await titles("sort=body:asc") == ["with", "without"]
    # a case-sensitive LIKE on a jsonb column is a 500 on the reference: 400 here
    response = await blog.client.get("/api/posts?filters[body][$contains]=Hello", headers=admin)
    assert response.status_code == 400


async def test_a_new_localization_copies_non_localized_blocks_only(blog, admin):
    # as the reference: `shared` copied, the localized `body` not (what a later PUT copies is
    # the corpus report's known gap, docs/corpus-report.md)
    source = await _created(
        blog, admin, "posts", {"title": "Hello", "body": [PARAGRAPH], "shared": RICH[:1]}
    )
    french = await blog.client.post(
        f"/api/posts/{source['id']}/localizations",
        json={"locale": "fr", "title": "Bonjour"},
        headers=admin,
    )
    assert french.status_code == 200, french.text
    assert french.json()["shared"] == RICH[:1]
    assert french.json()["body"] is None  # localized: each locale has its own


async def test_updates_keep_required_blocks_unless_the_entry_is_a_draft(blog, admin):
    published = await _created(blog, admin, "notes", {"name": "p", "content": [PARAGRAPH]})
    draft = await _created(blog, admin, "notes", {"name": "d", "publishedAt": None})
    for value, message in (
        (None, f"{NOT_ARRAY}."),
        ("zz", f'{NOT_ARRAY} (cast from the value `"zz"`).'),
    ):
        response = await blog.client.put(
            f"/api/notes/{published['id']}", json={"data": {"content": value}}, headers=admin
        )
        assert response.status_code == 400, response.text
        assert response.json()["error"]["message"] == message
    response = await blog.client.put(
        f"/api/notes/{draft['id']}", json={"data": {"content": None}}, headers=admin
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["attributes"]["content"] is None
