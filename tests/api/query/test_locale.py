"""The ``locale`` parameter is a filter value, as Strapi's i18n makes it:
the reference Strapi 4.25 answered ``locale=de`` (not configured) and ``locale[0]=de`` with
200 and an empty list, ``locale[0]=de&locale[1]=en`` with the ``en`` entries, and a bare
``locale`` (null) with an empty list."""

from __future__ import annotations

import pytest

from tests.api.query.conftest import LIVE

LOCALES = [
    ("locale=de", []),
    ("locale=xx", []),
    ("locale=", []),
    ("locale", []),
    ("locale[0]=de", []),
    ("locale=en", LIVE),
    ("locale=all", LIVE),
    ("locale[0]=de&locale[1]=en", LIVE),
]


@pytest.mark.parametrize(("query", "expected"), LOCALES, ids=[c[0] for c in LOCALES])
async def test_locale_filters_entries_and_an_unknown_one_finds_none(api, query, expected):
    status, body = await api(f"/api/articles?{query}")
    assert status == 200, body
    assert [entry["id"] for entry in body["data"]] == expected
    assert body["meta"]["pagination"]["total"] == len(expected)


async def test_unknown_locale_combines_with_filters(ids):
    assert await ids("locale=de&filters[title][$eq]=Hello World") == []
    assert await ids("locale[0]=en&filters[title][$eq]=Hello World") == [1]


async def test_locale_on_a_content_type_without_i18n_is_ignored(ids):
    assert await ids("locale=de", "authors") == [1, 2, 3]
