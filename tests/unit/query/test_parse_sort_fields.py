"""``QueryParser.sort`` and ``QueryParser.fields`` alone (``query/parse/sort.py`` and
``query/parse/fields.py``): every form Strapi takes, and the refusals with their messages."""

from __future__ import annotations

import pytest

from contentapi.errors import ValidationError
from contentapi.query.ast import SortKey

TITLE_ASC = SortKey((), "title", "string", False)
TITLE_DESC = SortKey((), "title", "string", True)
PAGES_ASC = SortKey((), "pages", "integer", False)
PAGES_DESC = SortKey((), "pages", "integer", True)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("sort=title", (TITLE_ASC,)),
        ("sort=title:desc,pages:asc", (TITLE_DESC, PAGES_ASC)),
        ("sort[0]=title:desc&sort[1]=pages", (TITLE_DESC, PAGES_ASC)),
        ("sort[title]=desc", (TITLE_DESC,)),
        ("sort[0][title]=asc&sort[1][pages]=desc", (TITLE_ASC, PAGES_DESC)),
        ("sort=title: DESC ", (TITLE_DESC,)),  # the direction's case and spaces are free
        # a repeated key keeps its first direction
        ("sort[0]=title:asc&sort[1]=title:desc", (TITLE_ASC,)),
        ("sort=createdAt:desc", (SortKey((), "created_at", "datetime", True),)),
        ("sort=locale", (SortKey((), "locale", "string", False),)),
    ],
)
def test_sort_forms(parse, query, expected):
    assert parse("sort", query) == expected


@pytest.mark.parametrize(
    "query", ["sort=author.name:desc", "sort[author][name]=desc", "sort[0][author][name]=desc"]
)
def test_sort_through_a_relation(parse, query):
    assert parse("sort", query) == (SortKey(("author",), "name", "string", True),)


def test_sort_through_a_component(parse):
    assert parse("sort", "sort=seo.metaTitle") == (
        SortKey(("seo",), "meta_title", "string", False),
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("sort=nope", "Invalid parameter nope"),
        ("sort=secret", "Invalid parameter secret"),
        ("sort=code:asc", "Invalid parameter code"),
        ("sort=vault.label", "Invalid parameter vault"),  # the caller may not find vaults
        ("sort=cover.name", "Invalid parameter cover"),  # not through media
        ("sort=hiddenSeo.metaTitle", "Invalid parameter hiddenSeo"),
        ("sort=author.nope", "Invalid parameter nope"),
        ("sort=title:up", "Invalid sort direction 'up': use asc or desc"),
        # strings and objects mixed: Strapi reads an object whose first key, "0", is no name
        ("sort[0]=title&sort[1][pages]=desc", "Invalid parameter 0"),
        ("sort[title][0]=asc", "Invalid sort parameter"),
    ],
)
def test_sort_refusals(parse, query, message):
    with pytest.raises(ValidationError) as caught:
        parse("sort", query)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("fields=title,pages", ("title", "pages")),
        ("fields[0]=title&fields[1]=pages,title", ("title", "pages")),  # once each, in order
        ("fields[0]=id&fields[1]=createdAt", ("id", "createdAt")),
        ("fields=*", None),
        ("fields[0]=*&fields[1]=title", None),
        ("fields=", None),
    ],
)
def test_fields_forms(parse, query, expected):
    assert parse("fields", query) == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("fields=nope", "Invalid parameter nope"),
        ("fields[0]=*&fields[1]=nope", "Invalid parameter nope"),  # beside `*` too
        ("fields=author", "Invalid parameter author"),  # relations are populated, not fields
        ("fields=secret", "Invalid parameter secret"),
        ("fields=code", "Invalid parameter code"),
        ("fields[0][a]=b", "Invalid fields parameter"),
    ],
)
def test_fields_refusals(parse, query, message):
    with pytest.raises(ValidationError) as caught:
        parse("fields", query)
    assert caught.value.message == message
