"""sort, pagination and fields, with Strapi 4.25's answers (order is identical on both backends)."""

from __future__ import annotations

import pytest

SORTS = [
    ("sort=title", [3, 1, 6, 2, 4]),
    ("sort=title:desc", [4, 2, 6, 1, 3]),
    ("sort=title:DESC", [4, 2, 6, 1, 3]),
    ("sort=title:Desc", [4, 2, 6, 1, 3]),
    ("sort[0]=readingTime:desc&sort[1]=title", [6, 2, 4, 1, 3]),
    ("sort=readingTime:desc,title:asc", [6, 2, 4, 1, 3]),
    ("sort=readingTime:desc, title:asc", [6, 2, 4, 1, 3]),
    ("sort[0][title]=desc", [4, 2, 6, 1, 3]),
    ("sort[0][readingTime]=desc&sort[1][title]=asc", [6, 2, 4, 1, 3]),
    ("sort[0]=readingTime:desc&sort[1]=title:asc", [6, 2, 4, 1, 3]),
    ("sort[title]=desc", [4, 2, 6, 1, 3]),
    ("sort[0]=title:asc&sort[1]=title:desc", [3, 1, 6, 2, 4]),
    ("sort=readingTime", [3, 1, 4, 2, 6]),  # NULLS LAST ascending
    ("sort=readingTime:desc", [6, 2, 4, 1, 3]),  # NULLS FIRST descending
    ("sort=rating", [3, 2, 1, 6, 4]),
    ("sort=summary:desc", [4, 3, 6, 2, 1]),
    ("sort=summary:asc", [1, 2, 6, 3, 4]),
    ("sort=author.name:asc", [1, 3, 6, 2, 4]),
    ("sort=author.name:desc", [4, 2, 1, 3, 6]),
    ("sort[author][name]=desc", [4, 2, 1, 3, 6]),
    ("sort=author.profile.headline:asc&sort=title", [3, 1, 6, 2, 4]),
    ("sort=seo.metaTitle:asc", [1, 2, 3, 4, 6]),
    ("sort=", [1, 2, 3, 4, 6]),
    ("", [1, 2, 3, 4, 6]),  # no sort: id ascending (docs/differences-from-strapi.md)
    # to-many: each parent once, by its smallest (asc) / largest (desc) value
    ("sort=categories.name:asc", [2, 3, 1, 4, 6]),  # Life, Life, Science, Science, none
    ("sort=categories.name:desc", [6, 1, 2, 3, 4]),  # none first, then Tech x4 by id
]


@pytest.mark.parametrize(("query", "expected"), SORTS, ids=[c[0] or "none" for c in SORTS])
async def test_sort_orders_entries(ids, query, expected):
    assert await ids(query) == expected


# Through a relation onto a boolean: false before true ascending, as the reference Strapi 4.25
# answered `categories?sort=featured.featured` (false, true, then the one without: NULLS LAST)
# and `:desc` (the one without first, then true, false).
RELATION_BOOLEAN_SORTS = [
    ("sort=articles.featured", [1, 2, 3]),  # Alice min false, Bob false, carol none
    ("sort=articles.featured:desc", [3, 1, 2]),  # carol none first, Alice max true, Bob false
]


@pytest.mark.parametrize(
    ("query", "expected"), RELATION_BOOLEAN_SORTS, ids=[c[0] for c in RELATION_BOOLEAN_SORTS]
)
async def test_sort_through_a_relation_onto_a_boolean(ids, query, expected):
    assert await ids(query, "authors") == expected


ARTICLE_SCALARS = [
    "title",
    "slug",
    "summary",
    "body",
    "kind",
    "readingTime",
    "views",
    "rating",
    "price",
    "featured",
    "eventDate",
    "eventTime",
    "scheduledAt",
    "reviewedAt",
    "contactEmail",
    "createdAt",
    "publishedAt",
    "locale",
]


@pytest.mark.parametrize("direction", ["asc", "desc"])
@pytest.mark.parametrize("name", ARTICLE_SCALARS)
async def test_every_attribute_type_sorts_through_relations(ids, name, direction):
    assert sorted(await ids(f"sort=articles.{name}:{direction}", "authors")) == [1, 2, 3]
    assert sorted(await ids(f"sort=featured.{name}:{direction}", "categories")) == [1, 2, 3, 4]


@pytest.mark.parametrize("query", ["sort=links.newTab", "sort=seo.keywords.label:desc"])
async def test_sort_through_components(ids, query):
    assert sorted(await ids(query)) == [1, 2, 3, 4, 6]


async def test_to_many_sort_pages_never_repeat_an_entry(api):
    seen: list[int] = []
    for page in (1, 2, 3):
        status, body = await api(
            f"/api/articles?sort=categories.name&pagination[page]={page}&pagination[pageSize]=2"
        )
        assert status == 200
        seen += [e["id"] for e in body["data"]]
        assert body["meta"]["pagination"]["total"] == 5
    assert sorted(seen) == [1, 2, 3, 4, 6]


PAGINATIONS = [
    (
        "pagination[page]=2&pagination[pageSize]=2",
        [3, 4],
        {"page": 2, "pageSize": 2, "pageCount": 3, "total": 5},
    ),
    ("pagination[page]=10", [], {"page": 10, "pageSize": 25, "pageCount": 1, "total": 5}),
    ("pagination[pageSize]=0", [1], {"page": 1, "pageSize": 1, "pageCount": 5, "total": 5}),
    ("pagination[pageSize]=-1", [1], {"page": 1, "pageSize": 1, "pageCount": 5, "total": 5}),
    (
        "pagination[page]=0&pagination[pageSize]=2",
        [1, 2],
        {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5},
    ),
    (
        "pagination[page]=-1&pagination[pageSize]=2",
        [1, 2],
        {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5},
    ),
    (
        "pagination[pageSize]=1000",
        [1, 2, 3, 4, 6],
        {"page": 1, "pageSize": 100, "pageCount": 1, "total": 5},
    ),
    ("pagination[pageSize]=2.0", [1, 2], {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5}),
    (
        "pagination[page]=1e0&pagination[pageSize]=2",
        [1, 2],
        {"page": 1, "pageSize": 2, "pageCount": 3, "total": 5},
    ),
    ("pagination[start]=1&pagination[limit]=2", [2, 3], {"start": 1, "limit": 2, "total": 5}),
    ("pagination[start]=2", [3, 4, 6], {"start": 2, "limit": 25, "total": 5}),
    ("pagination[limit]=2", [1, 2], {"start": 0, "limit": 2, "total": 5}),
    ("pagination[limit]=-1", [1, 2, 3, 4, 6], {"start": 0, "limit": 100, "total": 5}),
    ("pagination[limit]=0", [1], {"start": 0, "limit": 1, "total": 5}),
    ("pagination[limit]=-2", [1], {"start": 0, "limit": 1, "total": 5}),
    ("pagination[start]=-5&pagination[limit]=1", [1], {"start": 0, "limit": 1, "total": 5}),
    ("pagination[limit]=1000", [1, 2, 3, 4, 6], {"start": 0, "limit": 100, "total": 5}),
    ("pagination[pageSize]=2&pagination[withCount]=false", [1, 2], {"page": 1, "pageSize": 2}),
    ("pagination[limit]=2&pagination[withCount]=0", [1, 2], {"start": 0, "limit": 2}),
    ("pagination[withCount]=f", [1, 2, 3, 4, 6], {"page": 1, "pageSize": 25}),
    (
        "pagination[withCount]=true",
        [1, 2, 3, 4, 6],
        {"page": 1, "pageSize": 25, "pageCount": 1, "total": 5},
    ),
    (
        "withCount=false&foo=bar&foo[bar]=baz",
        [1, 2, 3, 4, 6],
        {"page": 1, "pageSize": 25, "pageCount": 1, "total": 5},
    ),
]


@pytest.mark.parametrize(
    ("query", "expected", "meta"), PAGINATIONS, ids=[c[0] for c in PAGINATIONS]
)
async def test_pagination_pages_and_meta(api, query, expected, meta):
    status, body = await api(f"/api/articles?{query}")
    assert status == 200, body
    assert [e["id"] for e in body["data"]] == expected
    assert body["meta"] == {"pagination": meta}


async def test_with_count_false_skips_the_count_query(seeded, statements):
    async with statements.recording() as recorded:
        response = await seeded.client.get(
            "/api/articles?pagination[withCount]=false",
            headers={"Authorization": "Bearer test-admin-token"},
        )
    assert response.status_code == 200
    assert not any("count(" in statement.lower() for statement in recorded)


FIELDS = [
    ("fields[0]=title", {"title"}),
    ("fields=title", {"title"}),
    ("fields=title,summary", {"title", "summary"}),
    ("fields[0]=title&fields[1]=readingTime&fields[2]=title", {"title", "readingTime"}),
    ("fields=*", None),
    ("fields[0]=*", None),
    ("fields[0]=*&fields[1]=title", None),
    ("fields=*,title", None),
    ("fields[0]=id", set()),
    ("fields[0]=createdAt&fields[1]=locale", {"createdAt", "locale"}),
]


@pytest.mark.parametrize(("query", "expected"), FIELDS, ids=[c[0] for c in FIELDS])
async def test_fields_select_attributes_and_id_is_always_there(api, query, expected):
    status, body = await api(f"/api/articles?{query}")
    assert status == 200, body
    for entry in body["data"]:
        assert "id" in entry
        if expected is None:
            assert {"title", "summary", "createdAt", "publishedAt", "locale"} <= set(
                entry["attributes"]
            )
            assert "editorNotes" not in entry["attributes"]
        else:
            assert set(entry["attributes"]) == expected
    status, one = await api(f"/api/articles/1?{query}")
    assert status == 200
    if expected is not None:
        assert set(one["data"]["attributes"]) == expected


async def test_sorting_is_byte_order_on_both_backends(ids):
    # '1' < 'H' < 'Z' < 'h' < 's': the same on SQLite and PostgreSQL (COLLATE "C").
    assert await ids("sort=title&fields[0]=title") == [3, 1, 6, 2, 4]


async def _page_statement(seeded, statements, query: str) -> str:
    async with statements.recording() as recorded:
        response = await seeded.client.get(
            f"/api/articles?{query}", headers={"Authorization": "Bearer test-admin-token"}
        )
    assert response.status_code == 200
    (page,) = [s for s in recorded if s.lstrip().upper().startswith("SELECT ARTICLES.ID")]
    return " ".join(page.split())


@pytest.mark.parametrize(
    ("query", "ids_first"),
    [
        ("sort=summary:desc&pagination[start]=1&pagination[limit]=2", True),  # no index
        ("sort=createdAt&filters[title][$contains]=o", True),
        ("sort=slug", False),  # a uid: its unique index serves the order
        ("sort=id:desc", False),
        ("sort=author.name", False),  # through a relation: joined, not narrowed
        ("", False),
    ],
)
async def test_a_page_sorted_on_no_index_is_found_on_its_ids_first(
    seeded, statements, ids, query, ids_first
):
    """entries/reads.py: the ids and sort keys are sorted, then the page's rows are read."""
    page = await _page_statement(seeded, statements, query)
    assert ("articles.id IN (SELECT articles_1.id" in page) is ids_first, page
    if ids_first:  # the same rows, in the same order, as the whole list's slice
        start = 1 if "start" in query else 0
        whole = query.replace("&pagination[start]=1&pagination[limit]=2", "")
        expected = await ids(whole)
        assert await ids(query) == (expected[1:3] if start else expected)


#: (query on categories, whether its page is found walking the ids alone on PostgreSQL)
WALKS = [
    ("filters[articles][title][$containsi]=a", True),  # to-many, an attribute of the targets
    ("filters[parent][name][$eq]=Tech", True),  # to-one
    (
        "filters[articles][author][name][$startsWith]=Ali&pagination[start]=1&pagination[limit]=9",
        True,
    ),
    ("filters[$or][0][parent][name][$eq]=Tech&filters[$or][1][children][name][$eq]=Science", True),
    ("filters[$not][articles][title][$containsi]=zz&sort=id:desc", True),
    ("filters[featured][id][$null]=true&pagination[page]=2&pagination[pageSize]=1", True),
    ("filters[name][$ne]=Life&filters[articles][title][$containsi]=a", False),  # own column
    ("filters[articles][title][$containsi]=a&sort=name", False),  # sorted on another column
    ("filters[name][$startsWith]=T", False),  # no relation
]


@pytest.mark.parametrize(("query", "walks"), WALKS, ids=[c[0] for c in WALKS])
async def test_a_page_filtered_through_relations_alone_walks_the_ids_first(
    seeded, statements, ids, backend, query, walks
):
    """entries/reads.py: on PostgreSQL such a page's ids are found first (the primary key's
    index walked alone), then its rows by id; the answer is the plain statement's, which the
    same query with a condition on the row's own column that every row meets still uses."""
    async with statements.recording() as recorded:
        found = await ids(query, "categories")
    assert found, "a query that matches nothing reads no page"
    (page,) = [
        " ".join(s.split())
        for s in recorded
        if s.lstrip().upper().startswith("SELECT CATEGORIES.ID")
    ]
    walked = "categories.id = ANY (array((SELECT categories_1.id" in page
    assert walked is (walks and backend == "postgres"), page
    plain = f"{query}&filters[$and][9][id][$notNull]=true"
    async with statements.recording() as recorded:
        assert found == await ids(plain, "categories")
    assert not any("= ANY (array((SELECT" in s for s in recorded)
