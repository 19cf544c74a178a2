"""Invalid queries: 400 in the contract's error shape; no query string produces a 500."""

from __future__ import annotations

import string
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INVALID = [
    ("filters[nope][$eq]=1", "Invalid parameter nope"),
    ("filters[nope]=1", "Invalid parameter nope"),
    ("filters[editorNotes][$eq]=x", "Invalid parameter editorNotes"),
    ("filters[author][password][$eq]=x", "Invalid parameter password"),
    ("filters[author][email][$eq]=x", "Invalid parameter email"),
    ("filters[$or][0][nope]=1", "Invalid parameter nope"),
    ("filters[title][$bogus]=1", "Invalid parameter $bogus"),
    ("filters[id][$bogus]=1", "Invalid parameter $bogus"),
    ("filters[title][$EQ]=1", None),
    # Strapi 4.25: a 500 ("Undefined attribute level operator $or"); $not is supported
    ("filters[title][$or][0]=x", "Undefined attribute level operator $or"),
    ("filters[title][$and][0][$eq]=x", "Undefined attribute level operator $and"),
    ("filters[author][name][$or][0][$eq]=x", "Undefined attribute level operator $or"),
    ("filters[$foo]=1", "Invalid parameter $foo"),
    ("filters[blocks][body]=x", "Invalid parameter blocks"),
    ("filters[cover][name]=x", "Invalid parameter cover"),
    ("filters[readingTime][$eq]=abc", None),
    ("filters[eventDate][$eq]=notadate", None),
    ("filters[eventDate][$contains]=2", None),
    # Strapi 4.25 on PostgreSQL: a 500 (LIKE on a number column); the `…i` forms match digits
    (
        "filters[readingTime][$contains]=1",
        "Operator $contains does not apply to integer at filters.readingTime",
    ),
    (
        "filters[views][$endsWith]=12",
        "Operator $endsWith does not apply to biginteger at filters.views",
    ),
    ("filters[price][$startsWith]=8", None),
    ("filters[rating][$notContains]=5", None),
    ("filters[featured][$contains]=t", None),
    (
        "filters[metadata][$contains]=x",
        "Operator $contains does not apply to json at filters.metadata.$contains",
    ),
    ("filters[readingTime][$between]=5", None),
    (
        "filters[readingTime][$between][0]=1&filters[readingTime][$between][1]=2"
        "&filters[readingTime][$between][2]=3",
        None,
    ),
    ("filters=abc", None),
    ("filters[id][$in][0]=abc", None),
    ("sort=nope", "Invalid parameter nope"),
    ("sort=nope:desc", "Invalid parameter nope"),
    ("sort=editorNotes", "Invalid parameter editorNotes"),
    ("sort=title:sideways", None),
    ("sort=author", "Invalid parameter author"),
    ("sort=author.password", "Invalid parameter password"),
    ("sort=:desc", None),
    ("sort=blocks", "Invalid parameter blocks"),
    ("sort=metadata.a", "Invalid parameter metadata"),
    ("sort[title]=up", None),
    # The reference Strapi 4.25's answer to an array mixing strings and objects
    ("sort[0]=title&sort[1][views]=desc", "Invalid parameter 0"),
    ("sort[0][views]=desc&sort[1]=title", "Invalid parameter 0"),
    ("sort[0]=title&sort[1][author][name]=desc", "Invalid parameter 0"),
    ("sort[0]=nope&sort[1][views]=desc", "Invalid parameter 0"),
    ("fields[0]=nope", "Invalid parameter nope"),
    ("fields[0]=author", "Invalid parameter author"),
    ("fields[0]=seo", "Invalid parameter seo"),
    ("fields[0]=editorNotes", "Invalid parameter editorNotes"),
    # beside `*` and in the comma form (differences-from-strapi; Strapi: 400 too)
    ("fields[0]=*&fields[1]=bogus", "Invalid parameter bogus"),
    ("fields[0]=*&fields[1]=editorNotes", "Invalid parameter editorNotes"),
    ("fields=*,editorNotes", "Invalid parameter editorNotes"),
    ("fields=title,editorNotes", "Invalid parameter editorNotes"),
    ("fields=title,bogus", "Invalid parameter bogus"),
    ("fields[0]=title,author", "Invalid parameter author"),
    ("populate[author][fields]=*,email", "Invalid parameter email"),
    ("populate[seo][fields][0]=*&populate[seo][fields][1]=nope", "Invalid parameter nope"),
    # (unknown populate keys are ignored: test_populate.py)
    ("populate[author][fields][0]=password", "Invalid parameter password"),
    ("populate[author][fields][0]=nope", "Invalid parameter nope"),
    ("populate[categories][filters][nope]=1", "Invalid parameter nope"),
    ("populate[0][author]=true", None),
    ("pagination[page]=abc", None),
    ("pagination[pageSize]=1.5", None),
    ("pagination[limit]=abc", None),
    ("pagination[start]=abc", None),
    (
        "pagination[page]=1&pagination[start]=0",
        "Invalid pagination parameters. Expected either start/limit or page/pageSize",
    ),
    (
        "pagination[withCount]=abc",
        'Invalid withCount parameter. Expected "t","1","true","false","0","f"',
    ),
    ("publicationState=bogus", "Invalid publicationState. Expected one of 'preview','live'"),
    ("publicationState=LIVE", None),
]


@pytest.mark.parametrize(("query", "message"), INVALID, ids=[c[0] for c in INVALID])
async def test_invalid_query_is_400_in_error_shape(api, query, message):
    status, body = await api(f"/api/articles?{query}")
    assert status == 400, body
    assert body["data"] is None
    assert body["error"]["status"] == 400
    assert body["error"]["name"] == "ValidationError"
    assert set(body["error"]) == {"status", "name", "message", "details"}
    if message is not None:
        assert body["error"]["message"] == message


DATE = "Invalid format, expected yyyy-MM-dd"
TIME = "Invalid time format, expected HH:mm:ss.SSS"
DATETIME = "Invalid format, expected a timestamp or an ISO date"

# The reference Strapi 4.25's exact answers (400 ValidationError, details {}); numbers are a
# 500 there, a 400 saying what was expected here.
INVALID_VALUES = [
    ("filters[eventDate][$eq]=notadate", DATE),
    ("filters[eventDate][$eq]=2024-13-01", DATE),
    ("filters[eventDate][$eq]=2024-1-5", DATE),
    ("filters[eventDate][$eq]=", DATE),
    ("filters[eventDate][$eq]=2024-01-32", DATE),
    ("filters[eventDate][$eq]=2024-00-10", DATE),
    ("filters[eventDate][$eq]=2024-13-01T00:00:00Z", DATE),
    ("filters[eventDate][$gt]=2024-02-30", "Invalid date"),
    ("filters[eventDate][$gt]=2024-02-31", "Invalid date"),
    ("filters[eventDate][$in][0]=abc", DATE),
    ("filters[eventDate][$between][0]=x&filters[eventDate][$between][1]=2024-01-01", DATE),
    ("filters[author][born][$eq]=abc", DATE),
    ("filters[eventTime][$eq]=abc", TIME),
    ("filters[eventTime][$eq]=10:00", TIME),
    ("filters[eventTime][$eq]=1:00:00", TIME),
    ("filters[eventTime][$eq]=", TIME),
    ("filters[scheduledAt][$eq]=abc", DATETIME),
    ("filters[scheduledAt][$eq]=", DATETIME),
    ("filters[reviewedAt][$eq]=abc", DATETIME),
    ("filters[createdAt][$eq]=abc", DATETIME),
    ("filters[readingTime][$eq]=abc", "Invalid format, expected an integer"),
    ("filters[readingTime][$eq]=1.5", "Invalid format, expected an integer"),
    ("filters[views][$eq]=abc", "Invalid format, expected an integer"),
    ("filters[id][$eq]=abc", "Invalid format, expected an integer"),
    ("filters[rating][$eq]=abc", "Invalid format, expected a number"),
    ("filters[price][$eq]=abc", "Invalid format, expected a number"),
]


@pytest.mark.parametrize(("query", "message"), INVALID_VALUES, ids=[c[0] for c in INVALID_VALUES])
async def test_invalid_filter_value_has_strapis_bare_message(api, query, message):
    status, body = await api(f"/api/articles?{query}")
    assert (status, body) == (
        400,
        {
            "data": None,
            "error": {"status": 400, "name": "ValidationError", "message": message, "details": {}},
        },
    )


@pytest.mark.parametrize(
    ("path", "query", "message"),
    [
        ("/api/articles", "filters[reviewedAt][$ne]=a&fields[0]=nosuchfield", "nosuchfield"),
        ("/api/articles", "filters[views][$eq]=x&sort=nosuch:asc", "nosuch"),
        ("/api/articles/1", "filters[reviewedAt][$ne]=a&fields[0]=nosuchfield", "nosuchfield"),
    ],
)
async def test_unknown_keys_are_reported_before_bad_filter_values(api, path, query, message):
    """Strapi checks the keys of filters, sort and fields first and casts filter values
    afterwards (found by ``make diff``)."""
    status, body = await api(f"{path}?{query}")
    assert status == 400
    error = body["error"]["message"]
    assert not error.startswith("Invalid format"), error
    if message is not None:
        assert error == f"Invalid parameter {message}"


@pytest.mark.parametrize("path", ["/api/articles", "/api/articles/1"])
async def test_bad_filter_values_are_reported_after_populate_pages_before_its_fields(api, path):
    """…then a bad ``page`` inside a populate (Strapi converts populate before it casts
    filter values; checked on the reference), then the values, then populate's other 400s."""
    status, body = await api(f"{path}?filters[reviewedAt][$eq]=a&populate[author][fields]=nope")
    assert status == 400
    assert body["error"]["message"] == "Invalid format, expected a timestamp or an ISO date"
    status, body = await api(f"{path}?filters[reviewedAt][$eq]=a&populate[categories][page]=x")
    assert (status, body["error"]["name"]) == (400, "PaginationError")
    status, body = await api(f"{path}?fields[0]=nope&populate[categories][page]=x")
    assert body["error"]["message"] == "Invalid parameter nope"


@pytest.mark.parametrize(
    "query",
    [
        "fields[0]=nope",
        "populate[author][fields][0]=nope",
        "publicationState=x",
        "filters[nosuchfield][$eq]=x",
        "filters[id][$bogus]=1",
        "sort=nosuch",
    ],
)
async def test_single_entry_routes_validate_their_parameters(api, query):
    status, body = await api(f"/api/articles/1?{query}")
    assert status == 400 and body["error"]["name"] == "ValidationError"


@pytest.mark.parametrize(
    "query", ["filters[title][$eq]=nomatch", "sort=title:desc", "sort=id:sideways"]
)
async def test_single_entry_routes_ignore_valid_filters_and_sort(api, query):
    """As Strapi 4.25: checked, then ignored (the entry is answered even if it does not match)."""
    status, body = await api(f"/api/articles/1?{query}")
    assert status == 200 and body["data"]["id"] == 1


URL_SAFE = "[]$*.:,%=&+-_~!'()"
KEYS = [
    "filters",
    "sort",
    "fields",
    "populate",
    "pagination",
    "publicationState",
    "locale",
    "title",
    "author",
    "categories",
    "seo",
    "blocks",
    "id",
    "name",
    "page",
    "pageSize",
    "start",
    "limit",
    "withCount",
    "$eq",
    "$in",
    "$or",
    "$and",
    "$not",
    "$null",
    "$between",
    "$containsi",
    "on",
    "blocks.quote",
    "0",
    "1",
    "101",
    "*",
    "readingTime",
    "createdAt",
]
VALUES = [
    "",
    "1",
    "-1",
    "abc",
    "true",
    "*",
    "title:desc",
    "author.name",
    "2024-01-10",
    "%25",
    "%",
    "%zz",
    "null",
    "1e9",
    "Hello World",
]


@st.composite
def query_strings(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        root = draw(st.sampled_from(KEYS))
        path = draw(st.lists(st.sampled_from(KEYS), max_size=4))
        key = root + "".join(f"[{segment}]" for segment in path)
        if draw(st.booleans()):
            key = draw(st.text(alphabet=string.printable, max_size=12))
        value = draw(st.one_of(st.sampled_from(VALUES), st.text(max_size=8)))
        parts.append(f"{key}={value}" if draw(st.integers(0, 5)) else key)
    return "&".join(parts)


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    derandomize=True,  # the same queries every run: make test may not pass by chance
)
@given(query=query_strings())
async def test_no_query_string_produces_a_server_error(api, query):
    # Control characters cannot travel raw in a URL; everything else is sent as generated.
    status, body = await api(f"/api/articles?{quote(query, safe=URL_SAFE)}")
    assert status in (200, 400), (query, body)
    if status == 400:
        # a bad page inside a populate (`populate[author][page]=x`) is Strapi's PaginationError
        assert body["data"] is None
        assert body["error"]["name"] in ("ValidationError", "PaginationError"), body


async def test_a_bad_page_inside_a_populate_is_strapis_pagination_error(api):
    # found by the property above when it still drew new queries each run
    status, body = await api("/api/articles?populate[author][page][filters]")
    assert status == 400
    assert body["error"]["name"] == "PaginationError"
