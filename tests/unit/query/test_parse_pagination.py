"""Pagination rules and meta (``query/pagination.py``), for REST (through
``QueryParser.pagination`` and populate objects) and for GraphQL (its window)."""

from __future__ import annotations

import pytest

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import OffsetPagination, PagePagination
from contentapi.query.pagination import (
    Window,
    check_populate_pages,
    graphql_window,
    page_meta,
    pagination_meta,
)
from contentapi.query.parse import QueryLimits, QueryParser

# ------------------------------------------------------------ REST


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", PagePagination(1, 25, True)),  # api.rest.defaultLimit
        ("pagination[page]=2&pagination[pageSize]=10", PagePagination(2, 10, True)),
        ("pagination[page]=3", PagePagination(3, 25, True)),
        ("pagination[start]=5", OffsetPagination(5, 25, True)),
        ("pagination[start]=5&pagination[limit]=-1", OffsetPagination(5, 100, True)),  # "all"
        # out of range values are clamped, as Strapi does
        ("pagination[start]=-5&pagination[limit]=1000", OffsetPagination(0, 100, True)),
        ("pagination[limit]=0", OffsetPagination(0, 1, True)),
        ("pagination[page]=0&pagination[pageSize]=0", PagePagination(1, 1, True)),
        ("pagination[pageSize]=500", PagePagination(1, 100, True)),
        # integers as JavaScript's Number() reads them
        ("pagination[pageSize]=2.0", PagePagination(1, 2, True)),
        ("pagination[limit]=1e1", OffsetPagination(0, 10, True)),
        ("pagination[withCount]=false", PagePagination(1, 25, False)),
        ("pagination[withCount]=T&pagination[limit]=3", OffsetPagination(0, 3, True)),
        ("pagination[withCount]=0&pagination[page]=2", PagePagination(2, 25, False)),
    ],
)
def test_rest_rules(parse, query, expected):
    assert parse("pagination", query) == expected


def test_rest_rules_follow_the_configured_limits(library):
    parser = QueryParser(library, QueryLimits(default_limit=7, max_limit=9, with_count=False))
    assert parser.pagination(None) == PagePagination(1, 7, False)
    assert parser.pagination({"limit": "-1"}) == OffsetPagination(0, 9, False)
    assert parser.pagination({"pageSize": "50"}) == PagePagination(1, 9, False)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "pagination[page]=1&pagination[limit]=3",
            "Invalid pagination parameters. Expected either start/limit or page/pageSize",
        ),
        ("pagination[page]=abc", "Invalid page parameter. Expected an integer"),
        ("pagination[page]=", "Invalid page parameter. Expected an integer"),
        ("pagination[limit]=1.5", "Invalid limit parameter. Expected an integer"),
        ("pagination[start]=1e400", "Invalid start parameter. Expected an integer"),
        (
            "pagination[withCount]=no",
            'Invalid withCount parameter. Expected "t","1","true","false","0","f"',
        ),
        ("pagination=3", "Invalid pagination parameter"),
    ],
)
def test_rest_refusals(parse, query, message):
    with pytest.raises(ValidationError) as caught:
        parse("pagination", query)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"page": "1", "limit": "2"},
            "Invalid pagination attributes. You cannot use page and offset pagination in the "
            "same query",
        ),
        ({"page": "0"}, "Invalid 'page' parameter. Expected an integer > 0, received: 0"),
        ({"page": "abc"}, "Invalid 'page' parameter. Expected an integer > 0, received: abc"),
        ({"page": ["1", "x"]}, "Invalid 'page' parameter. Expected an integer > 0, received: 1,x"),
        # Strapi's pageSize message shows the page (its own slip), kept as it is
        (
            {"pageSize": "x", "page": "2"},
            "Invalid 'pageSize' parameter. Expected an integer > 0, received: 2",
        ),
        (
            {"pageSize": "-1"},
            "Invalid 'pageSize' parameter. Expected an integer > 0, received: undefined",
        ),
    ],
)
def test_page_inside_a_populate_is_checked_as_strapi_checks_it(spec, message):
    with pytest.raises(PaginationError) as caught:
        check_populate_pages(spec)
    assert caught.value.message == message


def test_a_valid_page_inside_a_populate_passes():
    check_populate_pages({"page": "2", "pageSize": "5"})
    check_populate_pages({"start": "2", "limit": "5", "page": None})


# ------------------------------------------------------------ GraphQL


@pytest.mark.parametrize(
    ("pagination", "expected"),
    [
        (None, Window(0, 10)),  # Strapi's GraphQL default page size
        ({}, Window(0, 10)),
        ({"page": 2, "pageSize": 5}, Window(5, 5)),
        ({"page": 3}, Window(2, 1)),  # Strapi: `page` alone gives a size of 1
        ({"start": 4}, Window(4, 10)),
        ({"start": -3, "limit": -1}, Window(0, 100)),  # -1: all, up to amountLimit
        ({"limit": 1000}, Window(0, 100)),
        ({"limit": 0}, Window(0, 1)),
        ({"page": None, "start": 2, "limit": None}, Window(2, 10)),  # nulls are not given
    ],
)
def test_graphql_window(pagination, expected):
    assert graphql_window(pagination, 100) == expected


def test_graphql_refuses_both_styles_with_its_own_message():
    with pytest.raises(PaginationError) as caught:
        graphql_window({"page": 1, "limit": 2}, 100)
    assert caught.value.message == "Cannot use both page & offset pagination in the same query"


# ------------------------------------------------------------ meta


def test_rest_meta_in_strapis_key_order():
    paged = pagination_meta(PagePagination(2, 10, True), 35)
    assert list(paged.items()) == [("page", 2), ("pageSize", 10), ("pageCount", 4), ("total", 35)]
    assert pagination_meta(PagePagination(2, 10, False), None) == {"page": 2, "pageSize": 10}
    offset = pagination_meta(OffsetPagination(5, 10, True), 35)
    assert list(offset.items()) == [("start", 5), ("limit", 10), ("total", 35)]
    assert pagination_meta(OffsetPagination(5, 10, False), None) == {"start": 5, "limit": 10}


def test_graphql_meta_counts_pages_as_rest_does():
    assert Window(5, 5).meta(12) == {"page": 2, "pageSize": 5, "pageCount": 3, "total": 12}
    assert Window(3, 5).meta(0) == {"page": 1, "pageSize": 5, "pageCount": 0, "total": 0}
    assert Window(5, 5).meta(12) == page_meta(2, 5, 12)
