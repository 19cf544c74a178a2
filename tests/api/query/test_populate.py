"""Populate: one test per rule of the spec, asserting Strapi 4.25's exact response shapes."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

STAMPS = ("createdAt", "updatedAt", "publishedAt")


def strip(value: Any) -> Any:
    """The response without timestamps (their values vary between runs)."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in STAMPS}
    if isinstance(value, list):
        return [strip(item) for item in value]
    return value


ALICE = {
    "id": 1,
    "attributes": {
        "name": "Alice Martin",
        "handle": "alice",
        "bio": None,
        "born": None,
        "age": None,
    },
}
BOB = {
    "id": 2,
    "attributes": {"name": "Bob", "handle": None, "bio": None, "born": None, "age": None},
}
PIC = {
    "id": 1,
    "attributes": {
        "name": "pic.png",
        "alternativeText": None,
        "caption": None,
        "width": 400,
        "height": 300,
        "formats": {"thumbnail": {"ext": ".png", "url": "/uploads/thumbnail_pic.png"}},
        "hash": "pic_1",
        "ext": ".png",
        "mime": "image/png",
        "size": 32.6,
        "url": "/uploads/pic_1.png",
        "previewUrl": None,
        "provider": "local",
        "provider_metadata": None,
    },
}


def category(number: int, name: str) -> dict:
    return {"id": number, "attributes": {"name": name, "slug": name.lower(), "description": None}}


async def test_rule_1_nothing_is_populated_by_default(api):
    _, body = await api("/api/articles/1")
    attributes = body["data"]["attributes"]
    for name in ("author", "categories", "cover", "gallery", "seo", "links", "blocks", "related"):
        assert name not in attributes


async def test_rule_2_star_populates_everything_one_level(api):
    _, body = await api("/api/articles/1?populate=*")
    attributes = strip(body["data"]["attributes"])
    assert attributes["author"] == {"data": ALICE}
    assert attributes["categories"] == {"data": [category(1, "Tech"), category(2, "Science")]}
    assert attributes["related"] == {"data": []}
    assert attributes["cover"] == {"data": PIC}
    assert attributes["gallery"] == {"data": [PIC]}
    assert attributes["seo"] == {"id": 1, "metaTitle": "Hello SEO", "metaDescription": "desc"}
    assert attributes["links"] == [
        {"id": 2, "label": "Home", "url": "/", "newTab": False},
        {"id": 3, "label": "Docs", "url": "/docs", "newTab": False},
    ]
    assert attributes["blocks"] == [
        {"id": 1, "__component": "blocks.quote", "title": "Q1", "body": "To be"},
        {"id": 1, "__component": "blocks.rich-text", "body": "**rich**"},
        {"id": 1, "__component": "blocks.media"},
    ]
    assert attributes["localizations"] == {"data": []}
    assert "profile" not in str(attributes["author"])  # one level only


async def test_rule_2_empty_values_have_strapi_shapes(api):
    _, body = await api("/api/articles/4?populate=*")
    attributes = body["data"]["attributes"]
    assert attributes["cover"] == {"data": None}
    assert attributes["gallery"] == {"data": None}  # empty multiple media: data null
    assert attributes["author"] == {"data": None}
    assert attributes["related"] == {"data": []}
    assert (attributes["seo"], attributes["links"], attributes["blocks"]) == (None, [], [])


async def test_rule_3_array_comma_and_object_forms(api):
    for query in (
        "populate[0]=author&populate[1]=categories",
        "populate=author,categories",
        "populate=author, categories",
        "populate[author]=true&populate[categories]=t",
        "populate[author]=1&populate[categories]=*",
    ):
        _, body = await api(f"/api/articles/1?{query}")
        attributes = strip(body["data"]["attributes"])
        assert attributes["author"] == {"data": ALICE}, query
        assert len(attributes["categories"]["data"]) == 2, query
        assert "cover" not in attributes, query
    for flag in ("false", "f", "0"):
        _, body = await api(f"/api/articles/1?populate[author]={flag}")
        assert "author" not in body["data"]["attributes"]


async def test_rule_4_nested_populate(api):
    for query in (
        "populate[author][populate][0]=profile",
        "populate[author][populate]=profile",
        "populate=author.profile",
    ):
        _, body = await api(f"/api/articles/1?{query}")
        author = strip(body["data"]["attributes"]["author"])
        assert author["data"]["attributes"]["profile"] == {
            "data": {"id": 1, "attributes": {"headline": "Writer", "website": None}}
        }, query
    _, body = await api("/api/articles/1?populate[author][populate]=*")
    nested = body["data"]["attributes"]["author"]["data"]["attributes"]
    assert set(nested) >= {"avatar", "articles", "profile", "socials"}
    assert [a["id"] for a in nested["articles"]["data"]] == [1, 3, 6]
    _, body = await api("/api/articles/1?populate[0]=author.profile&populate[1]=categories.parent")
    parents = [c["attributes"]["parent"] for c in body["data"]["attributes"]["categories"]["data"]]
    assert parents[0] == {"data": None}
    assert parents[1]["data"]["id"] == 1


async def test_rule_5_dotted_component_paths(api):
    _, body = await api(
        "/api/articles/1?populate[0]=seo&populate[1]=seo.shareImage&populate[2]=seo.keywords"
    )
    seo = strip(body["data"]["attributes"]["seo"])
    assert seo == {
        "id": 1,
        "metaTitle": "Hello SEO",
        "metaDescription": "desc",
        "shareImage": {"data": PIC},
        "keywords": [{"id": 1, "label": "k1", "url": "/k1", "newTab": False}],
    }
    _, body = await api("/api/articles/1?populate=seo.shareImage")
    assert strip(body["data"]["attributes"]["seo"]["shareImage"]) == {"data": PIC}
    _, body = await api("/api/articles/1?populate[seo][fields][0]=metaTitle")
    assert body["data"]["attributes"]["seo"] == {"id": 1, "metaTitle": "Hello SEO"}


async def test_rule_6_dynamic_zone_shared_strategy(api):
    _, body = await api("/api/articles/1?populate[blocks][populate]=*")
    blocks = strip(body["data"]["attributes"]["blocks"])
    assert blocks == [
        {
            "id": 1,
            "__component": "blocks.quote",
            "title": "Q1",
            "body": "To be",
            "author": {"data": BOB},
        },
        {"id": 1, "__component": "blocks.rich-text", "body": "**rich**"},
        {"id": 1, "__component": "blocks.media", "file": {"data": PIC}},
    ]
    _, body = await api("/api/articles/1?populate[0]=blocks.author")
    blocks = strip(body["data"]["attributes"]["blocks"])
    assert blocks[0]["author"] == {"data": BOB} and len(blocks) == 3


async def test_rule_7_dynamic_zone_detailed_strategy(api):
    _, body = await api("/api/articles/1?populate[blocks][on][blocks.quote][populate][author]=true")
    assert strip(body["data"]["attributes"]["blocks"]) == [
        {
            "id": 1,
            "__component": "blocks.quote",
            "title": "Q1",
            "body": "To be",
            "author": {"data": BOB},
        },
    ]
    _, body = await api("/api/articles/1?populate[blocks][on][blocks.quote][fields][0]=title")
    assert body["data"]["attributes"]["blocks"] == [
        {"id": 1, "__component": "blocks.quote", "title": "Q1"}
    ]


async def test_rule_8_fields_filters_sort_and_limits_inside_a_relation(api):
    _, body = await api("/api/articles/1?populate[categories][fields][0]=name")
    assert body["data"]["attributes"]["categories"] == {
        "data": [
            {"id": 1, "attributes": {"name": "Tech"}},
            {"id": 2, "attributes": {"name": "Science"}},
        ]
    }
    _, body = await api(
        "/api/articles/3?populate[categories][sort][0]=name:desc&populate[categories][fields]=name"
    )
    names = [c["attributes"]["name"] for c in body["data"]["attributes"]["categories"]["data"]]
    assert names == ["Tech", "Science", "Life"]
    _, body = await api("/api/articles/3?populate[categories][filters][name][$eq]=Life")
    assert [c["id"] for c in body["data"]["attributes"]["categories"]["data"]] == [3]
    _, body = await api("/api/articles/1?populate[categories][filters][name][$eq]=None")
    assert body["data"]["attributes"]["categories"] == {"data": []}
    _, body = await api(
        "/api/articles?populate[categories][limit]=1&populate[categories][start]=1&fields[0]=title"
    )
    firsts = {
        e["id"]: [c["id"] for c in e["attributes"]["categories"]["data"]] for e in body["data"]
    }
    assert firsts == {1: [2], 2: [3], 3: [2], 4: [1], 6: []}  # the second in each entry's order
    _, body = await api("/api/articles/3?populate[categories][count]=true")
    assert body["data"]["attributes"]["categories"] == {"data": {"attributes": {"count": 3}}}


async def test_rule_9_relation_id_only_gives_an_empty_attributes_object(api):
    _, body = await api("/api/articles/1?populate[author][fields][0]=id")
    assert body["data"]["attributes"]["author"] == {"data": {"id": 1, "attributes": {}}}


async def test_rule_11_creator_fields_never_appear(api):
    _, body = await api("/api/articles?populate=*")
    assert "createdBy" not in str(body) and "updatedBy" not in str(body)


async def test_drafts_are_left_out_of_populated_relations_unless_preview(api):
    _, body = await api("/api/authors/2?populate[articles][fields][0]=title")
    assert [a["id"] for a in body["data"]["attributes"]["articles"]["data"]] == [2]
    _, body = await api(
        "/api/authors/2?populate[articles][fields][0]=title&publicationState=preview"
    )
    assert [a["id"] for a in body["data"]["attributes"]["articles"]["data"]] == [2, 5]
    _, body = await api("/api/categories/1?populate[articles][count]=true")
    assert body["data"]["attributes"]["articles"] == {"data": {"attributes": {"count": 4}}}


async def test_a_count_asks_nothing_of_the_related_entries_reads_the_links_alone(
    seeded, statements
):
    """Categories have no drafts: counting them needs only the link rows (counts.py)."""
    async with statements.recording() as recorded:
        response = await seeded.client.get(
            "/api/articles/3?populate[categories][count]=true",
            headers={"Authorization": "Bearer test-admin-token"},
        )
    assert response.status_code == 200
    assert response.json()["data"]["attributes"]["categories"] == {
        "data": {"attributes": {"count": 3}}
    }
    (counted,) = [s for s in recorded if "count(" in s.lower() and "group by" in s.lower()]
    assert "categories." not in counted and "articles_categories_links" in counted
    async with statements.recording() as recorded:  # a filter reads the entries: joined
        response = await seeded.client.get(
            "/api/articles/3?populate[categories][count]=true"
            "&populate[categories][filters][name][$eq]=Life",
            headers={"Authorization": "Bearer test-admin-token"},
        )
    assert response.json()["data"]["attributes"]["categories"] == {
        "data": {"attributes": {"count": 1}}
    }
    (counted,) = [s for s in recorded if "count(" in s.lower() and "group by" in s.lower()]
    assert "categories.name" in counted


async def test_list_populate_shapes_match_single(api):
    _, listed = await api("/api/articles?populate=*&filters[id]=1")
    _, single = await api("/api/articles/1?populate=*")
    assert listed["data"] == [single["data"]]


async def test_rule_10_relations_the_caller_may_not_find_are_left_out(seeded):
    from contentapi.auth.tokens import create_token

    runtime = seeded.runtime
    async with runtime.database.write() as conn:
        token = await create_token(
            conn,
            runtime.token_hasher,
            name="articles only",
            token_type="custom",
            actions=[
                "api::article.article.find",
                "api::article.article.findOne",
                "api::category.category.find",
            ],
        )
    headers = {"Authorization": f"Bearer {token.secret}"}
    body = (await seeded.client.get("/api/articles/1?populate=*", headers=headers)).json()
    attributes = body["data"]["attributes"]
    assert "author" not in attributes  # authors may not be found by this token
    assert len(attributes["categories"]["data"]) == 2
    body = (await seeded.client.get("/api/articles?populate[author]=true", headers=headers)).json()
    assert all("author" not in entry["attributes"] for entry in body["data"])
    # Filtering or sorting through the hidden relation is refused, never silently dropped.
    for query in (
        "filters[author][name][$eq]=Bob",
        "sort=author.name",
        "filters[categories][articles][author][name]=Bob",
    ):
        response = await seeded.client.get(f"/api/articles?{query}", headers=headers)
        assert response.status_code == 400, query
        assert response.json()["error"]["name"] == "ValidationError"


async def _socials(api, query: str) -> dict[int, list[str]]:
    status, body = await api(f"/api/authors?fields[0]=name&{query}")
    assert status == 200, body
    return {e["id"]: [link["label"] for link in e["attributes"]["socials"]] for e in body["data"]}


# The reference Strapi 4.25 applies `sort` and `filters` inside a component populate, per
# entry (`populate[links][sort]=url:desc` gave /docs, /a, /; `[filters][label][$eq]=Docs` only
# Docs, and [] for the entries without one).
COMPONENT_POPULATES = [
    ("populate[socials]=true", {1: ["Mastodon", "Blog", "GitHub"], 2: ["Web", "Blog"], 3: []}),
    (
        "populate[socials][sort]=label",
        {1: ["Blog", "GitHub", "Mastodon"], 2: ["Blog", "Web"], 3: []},
    ),
    (
        "populate[socials][sort][0]=label:desc",
        {1: ["Mastodon", "GitHub", "Blog"], 2: ["Web", "Blog"], 3: []},
    ),
    ("populate[socials][filters][newTab]=true", {1: ["Mastodon", "GitHub"], 2: [], 3: []}),
    (
        "populate[socials][filters][label][$ne]=Blog&populate[socials][sort]=url:desc",
        {1: ["Mastodon", "GitHub"], 2: ["Web"], 3: []},
    ),
    (
        "populate[socials][filters][$or][0][label]=Blog&populate[socials][filters][$or][1][url]=/w"
        "&populate[socials][sort][0]=newTab:desc&populate[socials][sort][1]=url",
        {1: ["Blog"], 2: ["Blog", "Web"], 3: []},
    ),
]


@pytest.mark.parametrize(
    ("query", "expected"), COMPONENT_POPULATES, ids=[c[0] for c in COMPONENT_POPULATES]
)
async def test_filters_and_sort_apply_inside_a_repeatable_component_populate(api, query, expected):
    assert await _socials(api, query) == expected


async def test_filters_inside_a_component_populate_keep_fields(api):
    _, body = await api(
        "/api/articles/1?populate[links][filters][label][$eq]=Docs&populate[links][fields][0]=url"
    )
    assert body["data"]["attributes"]["links"] == [{"id": 3, "url": "/docs"}]


async def test_filters_on_a_single_component_leave_null_when_it_does_not_match(api):
    # The reference answered `seo: null` for `populate[seo][filters][metaTitle][$eq]=nope`.
    _, body = await api("/api/articles/1?populate[seo][filters][metaTitle][$eq]=nope")
    assert body["data"]["attributes"]["seo"] is None
    _, body = await api("/api/articles/1?populate[seo][filters][metaTitle][$eq]=Hello SEO")
    assert body["data"]["attributes"]["seo"]["metaTitle"] == "Hello SEO"
    _, body = await api(
        "/api/articles/1?populate[seo][populate][keywords][filters][label][$eq]=nope"
    )
    assert body["data"]["attributes"]["seo"]["keywords"] == []


async def test_filters_apply_inside_a_dynamic_zone_on_component(api):
    # The reference kept only the quotes matching `on[blocks.quote][filters]`.
    base = "/api/articles/1?populate[blocks][on][blocks.rich-text]=true"
    _, body = await api(f"{base}&populate[blocks][on][blocks.quote][filters][title][$eq]=Q2")
    assert [b["__component"] for b in body["data"]["attributes"]["blocks"]] == ["blocks.rich-text"]
    _, body = await api(f"{base}&populate[blocks][on][blocks.quote][filters][title][$eq]=Q1")
    assert [b["__component"] for b in body["data"]["attributes"]["blocks"]] == [
        "blocks.quote",
        "blocks.rich-text",
    ]
    _, body = await api(f"{base}&populate[blocks][on][blocks.quote][filters][author][name]=Bob")
    assert len(body["data"]["attributes"]["blocks"]) == 2
    _, body = await api(f"{base}&populate[blocks][on][blocks.quote][filters][author][name]=x")
    assert len(body["data"]["attributes"]["blocks"]) == 1


async def test_sort_inside_a_dynamic_zone_on_component_keeps_the_stored_order(api):
    # The reference answered `on[blocks.quote][sort]=title:desc` with Q1 then Q2, as stored.
    status, body = await api(
        "/api/articles/1?populate[blocks][on][blocks.quote][sort]=title:desc"
        "&populate[blocks][on][blocks.rich-text]=true"
    )
    assert status == 200
    assert [b["__component"] for b in body["data"]["attributes"]["blocks"]] == [
        "blocks.quote",
        "blocks.rich-text",
    ]


INVALID_COMPONENT_POPULATES = [
    ("populate[links][filters][nope]=x", "Invalid parameter nope"),
    ("populate[links][sort]=nope", "Invalid parameter nope"),
    ("populate[blocks][on][blocks.quote][filters][nope]=x", "Invalid parameter nope"),
    ("populate[blocks][on][blocks.quote][sort]=nope", "Invalid parameter nope"),
    # Strapi 4.25 answers 500 for filters or sort on a dynamic zone outside `on`.
    ("populate[blocks][filters][title]=Q1", "Invalid key filters"),
    ("populate[blocks][sort]=title", "Invalid key sort"),
]


@pytest.mark.parametrize(
    ("query", "message"),
    INVALID_COMPONENT_POPULATES,
    ids=[c[0] for c in INVALID_COMPONENT_POPULATES],
)
async def test_invalid_filters_or_sort_inside_a_component_populate_are_400(api, query, message):
    status, body = await api(f"/api/articles?{query}")
    assert status == 400, body
    assert body["error"]["message"] == message


async def test_dotted_paths_through_a_dynamic_zone_reach_any_depth(api):
    # The reference Strapi 4.25 populates `blocks.author.profile` (and more segments) in every
    # component of the zone that has `author`, as `populate[blocks][populate][author][populate]`
    # does; FoodAdvisor's `populate=…,blocks.articles.image` is this form.
    _, body = await api("/api/articles/1?populate=blocks.author.socials")
    blocks = strip(body["data"]["attributes"]["blocks"])
    assert blocks == [
        {
            "id": 1,
            "__component": "blocks.quote",
            "title": "Q1",
            "body": "To be",
            "author": {
                "data": {
                    "id": 2,
                    "attributes": {
                        **BOB["attributes"],
                        "socials": [
                            {"id": 7, "label": "Web", "url": "/w", "newTab": False},
                            {"id": 8, "label": "Blog", "url": "/bob", "newTab": False},
                        ],
                    },
                }
            },
        },
        {"id": 1, "__component": "blocks.rich-text", "body": "**rich**"},
        {"id": 1, "__component": "blocks.media"},
    ]
    same = [
        (
            "populate=localizations,cover,author.profile,blocks.author.profile",
            "populate[localizations]=true&populate[cover]=true"
            "&populate[author][populate]=profile"
            "&populate[blocks][populate][author][populate]=profile",
        ),
        (
            "populate[0]=blocks.author.profile&populate[1]=blocks.author.socials",
            "populate[blocks][populate][author][populate][0]=profile"
            "&populate[blocks][populate][author][populate][1]=socials",
        ),
        (
            "populate=blocks.author,blocks.author.profile,blocks.file",
            "populate[blocks][populate][author][populate]=profile&populate[blocks][populate][file]=*",
        ),
        ("populate=blocks.author.profile", "populate[blocks][populate]=author.profile"),
    ]
    for dotted, objects in same:
        first, second = await api(f"/api/articles?{dotted}"), await api(f"/api/articles?{objects}")
        assert first == second and first[0] == 200, dotted
    _, body = await api("/api/articles/1?populate=blocks.author.profile")
    assert body["data"]["attributes"]["blocks"][0]["author"]["data"]["attributes"]["profile"] == {
        "data": None
    }


# Each query names what Strapi 4.25 ignores (checked on the reference: a name the model lacks,
# a scalar or private attribute, a wrong case, an option it does not read, a component type
# the zone lacks), at any depth and in every form; the answer is the one without it.
IGNORED = [
    ("populate=nope", ""),
    ("populate=author,nope,Author,title,editorNotes", "populate=author"),
    ("populate[0]=title&populate[1]=categories", "populate[0]=categories"),
    ("populate[nope]=true&populate[author]=true", "populate[author]=true"),
    ("populate[editorNotes]=true&populate[title]=true", ""),
    ("populate[title][populate]=x&populate[nope][populate][x]=true", ""),
    ("populate[nope][page]=abc", ""),
    ("populate=author.nope,author.name", "populate=author"),
    ("populate=author.*", "populate=author"),
    ("populate=author.profile.nope", "populate=author.profile"),
    ("populate=blocks.nope.x,blocks.body.x,blocks.author.nope", "populate=blocks.author"),
    ("populate[author][nope]=1", "populate[author]=true"),
    ("populate[author][populate][nope]=true", "populate[author]=true"),
    ("populate[author][populate]=nope,profile", "populate[author][populate]=profile"),
    ("populate[categories][pagination][limit]=1", "populate[categories]=true"),
    ("populate[categories][page]=2&populate[categories][pageSize]=1", "populate[categories]=true"),
    ("populate[categories][ordering]=x", "populate[categories]=true"),
    ("populate[seo][nope]=true", "populate[seo]=true"),
    ("populate[seo][populate][nope]=true", "populate[seo]=true"),
    ("populate[seo][populate][metaTitle]=true", "populate[seo]=true"),
    ("populate[blocks][populate]=nope,author", "populate[blocks][populate]=author"),
    ("populate[blocks][populate][author][nope]=1", "populate[blocks][populate][author]=true"),
    (
        "populate[blocks][on][blocks.quote][populate][nope]=true"
        "&populate[blocks][on][blocks.quote][populate][author]=true",
        "populate[blocks][on][blocks.quote][populate][author]=true",
    ),
    (
        "populate[blocks][on][shared.link][populate]=*&populate[blocks][on][blocks.quote]=true",
        "populate[blocks][on][blocks.quote]=true",
    ),
    (
        "populate[blocks][sort]=title&populate[blocks][on][blocks.quote][fields][0]=title",
        "populate[blocks][on][blocks.quote][fields][0]=title",
    ),
    ("populate[blocks][on]", "populate[blocks]=true"),
]


@pytest.mark.parametrize(("query", "without"), IGNORED, ids=[c[0] for c in IGNORED])
async def test_unknown_populate_keys_are_ignored(api, query, without):
    answer = await api(f"/api/articles?{query}&publicationState=preview")
    assert answer[0] == 200, answer[1]
    assert answer == await api(f"/api/articles?{without}&publicationState=preview")


async def test_an_on_naming_no_component_of_the_zone_empties_it(api):
    # The reference answered `blocks: []` (it reads only the types `on` names).
    for query in ("populate[blocks][on][shared.link][populate]=*", "populate[blocks][on]=x"):
        status, body = await api(f"/api/articles/1?{query}")
        assert status == 200, body
        assert body["data"]["attributes"]["blocks"] == [], query


# Strapi 4.25 checks `page`/`pageSize` inside a populate object (then does not apply them).
POPULATE_PAGES = [
    (
        "populate[categories][page]=abc",
        "Invalid 'page' parameter. Expected an integer > 0, received: abc",
    ),
    ("populate[seo][page]=0", "Invalid 'page' parameter. Expected an integer > 0, received: 0"),
    (
        "populate[cover][page]=1.5",
        "Invalid 'page' parameter. Expected an integer > 0, received: 1.5",
    ),
    (
        "populate[categories][pageSize]=0",
        "Invalid 'pageSize' parameter. Expected an integer > 0, received: undefined",
    ),
    (
        "populate[categories][pageSize]=x&populate[categories][page]=2",
        "Invalid 'pageSize' parameter. Expected an integer > 0, received: 2",
    ),
    (
        "populate[blocks][page]=abc",
        "Invalid 'page' parameter. Expected an integer > 0, received: abc",
    ),
    (
        "populate[blocks][on][shared.link][page]=abc",
        "Invalid 'page' parameter. Expected an integer > 0, received: abc",
    ),
    (
        "populate[categories][page]=abc&populate[categories][limit]=1",
        "Invalid pagination attributes. You cannot use page and offset pagination in the same "
        "query",
    ),
]


@pytest.mark.parametrize(("query", "message"), POPULATE_PAGES, ids=[c[0] for c in POPULATE_PAGES])
async def test_page_inside_a_populate_is_checked_as_strapi_does(api, query, message):
    status, body = await api(f"/api/articles?filters[title][$eq]=none&{query}")
    assert status == 400, body
    assert body["error"] == {
        "status": 400,
        "name": "PaginationError",
        "message": message,
        "details": {},
    }


async def test_component_sort_ties_keep_the_stored_order(app, admin):
    """Strapi's join orders by the sort, then by the components' stored order: the reference
    answered ids 4, 2, 1, 3 for `sort=label` with the links stored as 4, 3, 2, 1 (labels a, c,
    a, b) — not 2, 4 for the tie, as their ids would order them."""
    links = [
        {"label": "b", "url": "/2"},
        {"label": "a", "url": "/1"},
        {"label": "c", "url": "/3"},
        {"label": "a", "url": "/0"},
    ]
    await app.runtime.entries.create("api::article.article", {"title": "Alpha", "links": links})
    reordered = [{"id": n, **links[n - 1]} for n in (4, 3, 2, 1)]
    await app.runtime.entries.update("api::article.article", 1, {"links": reordered})
    for sort, expected in (("label", [4, 2, 1, 3]), ("label:desc", [3, 1, 4, 2])):
        response = await app.client.get(
            f"/api/articles/1?populate[links][sort]={sort}", headers=admin
        )
        assert [link["id"] for link in response.json()["data"]["attributes"]["links"]] == expected


async def test_filters_and_sort_apply_inside_a_media_populate(app, admin):
    """Strapi reads media as a relation to files: `populate[gallery][sort]`/`[filters]` apply
    (ties in the order attached), and a single medium that does not match is null. Expected
    ids as the reference answered for the same files (sizes 30, 10, 20, 10; attached 3, 1, 4,
    2)."""
    files = []
    for name, size in (("zeta.png", 30), ("alpha.png", 10), ("mid.png", 20), ("alpha2.png", 10)):
        buffer = io.BytesIO()
        Image.new("RGB", (size, size), (9, 9, 9)).save(buffer, format="PNG")
        response = await app.client.post(
            "/api/upload", files=[("files", (name, buffer.getvalue(), "image/png"))], headers=admin
        )
        files.append(response.json()[0]["id"])
    await app.runtime.entries.create(
        "api::article.article",
        {"title": "Alpha", "gallery": [files[n] for n in (2, 0, 3, 1)], "cover": files[1]},
    )
    cases = {
        "populate[gallery]=true": [3, 1, 4, 2],
        "populate[gallery][sort]=name": [2, 4, 3, 1],
        "populate[gallery][sort]=width": [4, 2, 3, 1],
        "populate[gallery][sort][0]=width:desc": [1, 3, 4, 2],
        "populate[gallery][filters][width][$lt]=25": [3, 4, 2],
        "populate[gallery][filters][width][$lt]=25&populate[gallery][sort]=name:desc": [3, 4, 2],
    }
    for query, expected in cases.items():
        response = await app.client.get(f"/api/articles/1?{query}", headers=admin)
        gallery = response.json()["data"]["attributes"]["gallery"]["data"]
        assert [item["id"] for item in gallery] == expected, query
    for width, expected in (("$gt", None), ("$lt", 2)):
        response = await app.client.get(
            f"/api/articles/1?populate[cover][filters][width][{width}]=25", headers=admin
        )
        cover = response.json()["data"]["attributes"]["cover"]["data"]
        assert (cover and cover["id"]) == expected
