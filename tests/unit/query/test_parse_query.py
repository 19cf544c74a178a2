"""The facade, ``QueryParser.read_query`` and ``entry_query`` (``query/parse/__init__.py``):
the small parameters it reads itself, and the order of errors when several parameters are bad,
which is Strapi's (keys of filters, sort and fields; then a populate's page; then a bad filter
value; then the populate 400s that are ours alone)."""

from __future__ import annotations

from typing import Any

import pytest

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import And, Comparison, Or, PagePagination, ReadQuery
from contentapi.query.coerce import InvalidFilterValue
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.query.qs import parse_query

from .library import BOOK, WRITER


def read(parser: QueryParser, query: str, uid: str = BOOK) -> ReadQuery:
    return parser.read_query(parser.registry.content_types[uid], parse_query(query))


def entry(parser: QueryParser, query: str) -> ReadQuery:
    return parser.entry_query(parser.registry.content_types[BOOK], parse_query(query))


def locale_is(value: str) -> Comparison:
    return Comparison("locale", "string", "$eq", value, None)


def test_defaults(parser):
    assert read(parser, "") == ReadQuery(
        pagination=PagePagination(1, 25, True), publication_state="live", locale=None
    )


def test_publication_state_and_locale(parser):
    query = read(parser, "locale=fr&publicationState=preview")
    assert (query.publication_state, query.locale) == ("preview", "fr")
    # an unlocalized type has no locale to choose
    assert read(parser, "locale=fr", WRITER).locale is None


def test_a_list_of_locales_is_a_filter_on_all_locales(parser):
    # Strapi's i18n adds `{locale: <value>}` to the filters
    query = read(parser, "locale[0]=en&locale[1]=fr&filters[title]=a")
    assert query.locale == "all"
    title = Comparison("title", "string", "$eq", "a", None)
    assert query.filters == And((Or((locale_is("en"), locale_is("fr"))), title))


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("publicationState=draft", "Invalid publicationState. Expected one of 'preview','live'"),
        ("locale=a%00", "Invalid locale parameter: NUL characters are not allowed"),
    ],
)
def test_small_parameter_refusals(parser, query, message):
    with pytest.raises(ValidationError) as caught:
        read(parser, query)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("query", "error", "message"),
    [
        # a bad key in fields comes before a bad filter value
        ("filters[pages]=abc&fields[0]=nope", ValidationError, "Invalid parameter nope"),
        # a populate's page before it
        (
            "filters[pages]=abc&populate[author][page]=abc",
            PaginationError,
            "Invalid 'page' parameter. Expected an integer > 0, received: abc",
        ),
        # the populate 400s that are ours alone after it
        (
            "filters[pages]=abc&populate[author][fields]=nope",
            InvalidFilterValue,
            "Invalid format, expected an integer",
        ),
        ("populate[author][fields]=nope", ValidationError, "Invalid parameter nope"),
    ],
)
def test_errors_come_in_strapis_order(parser, query, error, message):
    with pytest.raises(error) as caught:
        read(parser, query)
    assert type(caught.value) is error
    assert caught.value.message == message


def test_entry_query_checks_filters_and_sort_then_ignores_them(parser):
    ignored: Any = entry(parser, "filters[title]=x&sort=title:up&pagination[page]=abc")
    assert (ignored.filters, ignored.sort) == (None, ())
    for query, message in (
        ("filters[nope]=1", "Invalid parameter nope"),
        ("sort=nope:asc", "Invalid parameter nope"),
        ("filters[pages]=abc", "Invalid format, expected an integer"),
    ):
        with pytest.raises(ValidationError) as caught:
            entry(parser, query)
        assert caught.value.message == message


def test_for_caller_restricts_what_may_be_read(library):
    everyone = QueryParser(library, QueryLimits())
    assert "vault" in everyone.populate(library.content_types[BOOK], "*")
    denied = everyone.for_caller(lambda uid: uid != "api::vault.vault")
    assert "vault" not in denied.populate(library.content_types[BOOK], "*")
    with pytest.raises(ValidationError):
        denied.sort(library.content_types[BOOK], "vault.label")
