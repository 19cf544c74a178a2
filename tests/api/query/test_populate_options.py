"""Populate options Strapi 4.25 reads leniently: ``fields`` on a dynamic zone without ``on``
(every component's), and null or empty ``limit``/``start``/``sort``/``fields``/``filters``
(skipped). Each expectation is the reference's answer to the same query."""

from __future__ import annotations

import pytest

from tests.api.query.test_populate import BOB, strip


async def test_fields_on_a_dynamic_zone_without_on_apply_to_every_component(api):
    """The reference answers ``populate[blocks][fields][0]=id`` with only the ids, and a name
    one of the zone's components lacks (``title``: only quotes have one) with a 500."""
    _, body = await api("/api/articles/1?populate[blocks][fields][0]=id")
    assert body["data"]["attributes"]["blocks"] == [
        {"id": 1, "__component": "blocks.quote"},
        {"id": 1, "__component": "blocks.rich-text"},
        {"id": 1, "__component": "blocks.media"},
    ]
    _, body = await api(
        "/api/articles/1?populate[blocks][fields][0]=id&populate[blocks][populate][author]=true"
    )
    assert strip(body["data"]["attributes"]["blocks"])[0] == {
        "id": 1,
        "__component": "blocks.quote",
        "author": {"data": BOB},
    }
    for query in ("populate[blocks][fields][0]=title", "populate[blocks][fields][0]=body"):
        status, body = await api(f"/api/articles/1?{query}")
        assert status == 400, body
        assert body["error"]["name"] == "ValidationError"


@pytest.mark.parametrize(
    "option",
    [
        "populate[categories][limit]",
        "populate[categories][limit]=",
        "populate[categories][start]",
        "populate[categories][start]=",
        "populate[categories][sort]",
        "populate[categories][sort]=",
        "populate[categories][fields]",
        "populate[categories][fields]=",
        "populate[blocks][sort]",
        "populate[blocks][filters]=",
        "populate[blocks][fields]",
        "populate[blocks][fields]=",
    ],
)
async def test_null_or_empty_populate_options_are_skipped(api, option):
    """qs's ``strictNullHandling`` null (no ``=``) and an empty value: the reference answers as
    without the option (a plain populate of the attribute)."""
    name = option.split("[")[1].rstrip("]")
    status, body = await api(f"/api/articles/1?{option}")
    assert status == 200, body
    _, plain = await api(f"/api/articles/1?populate[{name}]=true")
    assert body["data"]["attributes"][name] == plain["data"]["attributes"][name]


async def test_an_empty_populate_start_beside_a_limit_starts_at_the_first(api):
    _, body = await api(
        "/api/articles/3?populate[categories][start]=&populate[categories][limit]=1"
    )
    assert [c["id"] for c in body["data"]["attributes"]["categories"]["data"]] == [3]
