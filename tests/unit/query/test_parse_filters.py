"""``QueryParser.filters`` alone (``query/parse/filters.py`` and its rewrites): operators per
attribute kind, nesting, ``$and``/``$or``/``$not``, relations and components as ``Through``,
and every refusal with the message the API answers."""

from __future__ import annotations

import pytest

from contentapi.errors import ValidationError
from contentapi.query.ast import And, Comparison, Filter, Not, Or, Through
from contentapi.query.coerce import InvalidFilterValue
from contentapi.query.parse.rewrites import push_not

from .library import BOOK, WRITER


def title(value: str, operator: str = "$eq") -> Comparison:
    return Comparison("title", "string", operator, value, None)


def pages(value: object, operator: str = "$eq") -> Comparison:
    return Comparison("pages", "integer", operator, value, None)


def name(value: object, operator: str = "$eq") -> Comparison:
    return Comparison("name", "string", operator, value, None)


def through_author(inner: Filter | None = None, negated: bool = False) -> Through:
    return Through(BOOK, "author", WRITER, inner, negated=negated)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("filters[title]=Dune", title("Dune")),
        ("filters[title]=", title("")),
        ("filters[title][$null]=yes", title(True, "$null")),  # Strapi's lenient booleans
        ("filters[pages][$gt]=100", pages(100, "$gt")),
        ("filters[pages]=", pages(0)),  # JavaScript's Number(""), as the reference answers
        ("filters[pages][$in][0]=1&filters[pages][$in][1]=2", pages((1, 2), "$in")),
        ("filters[pages][$between][0]=1&filters[pages][$between][1]=2", pages((1, 2), "$between")),
        ("filters[inPrint]=true", Comparison("in_print", "boolean", "$eq", True, None)),
        # case-insensitive text operators on numbers match PostgreSQL's text of them
        (
            "filters[price][$containsi]=10",
            Comparison("price", "string", "$containsi", "10", "decimal"),
        ),
        # JSON compares JSON.stringify'd values
        ("filters[metadata][$in][0]=1", Comparison("metadata", "json", "$in", ("1",), None)),
        # system attributes of a localized type
        ("filters[locale]=fr", Comparison("locale", "string", "$eq", "fr", None)),
    ],
)
def test_comparisons_on_each_kind(parse, query, expected):
    assert parse("filters", query) == expected


def test_conditions_side_by_side_and_in_an_array_all_hold(parse):
    both = And((title("Dune"), pages(100, "$gt")))
    assert parse("filters", "filters[title][$eq]=Dune&filters[pages][$gt]=100") == both
    assert parse("filters", "filters[0][title]=Dune&filters[1][pages][$gt]=100") == both


def test_logical_operators_nest(parse):
    query = "filters[$or][0][title]=a&filters[$or][1][$and][0][pages][$lt]=5"
    assert parse("filters", query) == Or((title("a"), And((pages(5, "$lt"),))))


def test_an_array_given_to_a_scalar_operator_is_the_or_of_its_items(parse):
    query = "filters[title][$notContains][0]=a&filters[title][$notContains][1]=b"
    assert parse("filters", query) == Or((title("a", "$notContains"), title("b", "$notContains")))


@pytest.mark.parametrize(
    "query",
    [
        "filters[$not][title][$eq]=x",  # the $not of a condition
        "filters[title][$not][$eq]=x",  # an attribute-level $not
    ],
)
def test_not_around_a_comparison(parse, query):
    assert parse("filters", query) == Not(title("x"))


def test_not_over_or_becomes_and_of_nots(parse):
    query = "filters[$not][$or][0][title]=a&filters[$not][$or][1][pages]=1"
    assert parse("filters", query) == And((Not(title("a")), Not(pages(1))))


@pytest.mark.parametrize(
    "query",
    [
        "filters[title][$eq][a]=1",  # an object of plain keys: Strapi's sanitizer drops it
        "filters[$and][0][$or][0][title][$eq][a]=1",
    ],
)
def test_empty_conditions_are_no_condition(parse, query):
    assert parse("filters", query) is None


# ------------------------------------------------------------ relations and components


def test_deep_filters_go_through_relations_and_components(parse):
    assert parse("filters", "filters[author][name][$eq]=Frank") == through_author(name("Frank"))
    seo = parse("filters", "filters[seo][metaTitle][$contains]=x")
    meta_title = Comparison("meta_title", "string", "$contains", "x", None)
    assert seo == Through(BOOK, "seo", "shared.meta", meta_title)
    localized = parse("filters", "filters[localizations][title]=a")
    assert localized == Through(BOOK, "localizations", BOOK, title("a"))


def test_a_bare_value_or_operator_on_a_relation_reads_the_related_ids(parse):
    by_id = through_author(Comparison("id", "integer", "$eq", 3, None))
    assert parse("filters", "filters[author]=3") == by_id
    assert parse("filters", "filters[author][$eq]=3") == by_id


@pytest.mark.parametrize(
    ("query", "negated"),
    [
        ("filters[author][$null]=true", True),  # no related entry
        ("filters[author][id][$notNull]=true", False),  # some related entry
        ("filters[$not][author][$null]=true", False),
    ],
)
def test_null_ids_ask_whether_a_related_entry_exists(parse, query, negated):
    assert parse("filters", query) == through_author(None, negated)


def test_not_is_pushed_inside_the_exists(parse):
    # Strapi negates per joined row: "some related entry does not match"
    expected = through_author(Not(name("Frank")))
    assert parse("filters", "filters[$not][author][name][$eq]=Frank") == expected


def test_a_pushed_not_that_holds_on_the_missing_row_also_matches_entries_without_one(parse):
    # Strapi's LEFT JOIN gives an entry without author one all-NULL row, where `name` is null
    expected = Or((through_author(Not(name(True, "$notNull"))), through_author(None, negated=True)))
    assert parse("filters", "filters[$not][author][name][$notNull]=true") == expected


def test_push_not_twice_is_no_negation():
    assert push_not(Not(Not(title("a")))) == title("a")


# ------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("filters[nope]=x", "Invalid parameter nope"),
        ("filters[secret]=x", "Invalid parameter secret"),  # private: as if unknown
        ("filters[code]=x", "Invalid parameter code"),  # password: as if unknown
        ("filters[title][$bogus]=x", "Invalid parameter $bogus"),
        ("filters[$bogus]=x", "Invalid parameter $bogus"),
        ("filters[cover][id]=1", "Invalid parameter cover"),  # no filters through media
        ("filters[parts][text]=1", "Invalid parameter parts"),  # nor dynamic zones
        ("filters[vault][label]=x", "Invalid parameter vault"),  # a type the caller cannot find
        ("filters[hiddenSeo][metaTitle]=x", "Invalid parameter hiddenSeo"),
        ("filters[author][nope]=x", "Invalid parameter nope"),
        ("filters[title][$or][0]=x", "Undefined attribute level operator $or"),
        ("filters=x", "Invalid filters parameter: expected an object"),
        ("filters[pages][$between][0]=1", "filters.pages.$between takes an array of two values"),
        (
            "filters[pages][$contains]=1",
            "Operator $contains does not apply to integer at filters.pages",
        ),
        # case-sensitive LIKE on a number: 500 on the reference, a 400 here
        (
            "filters[price][$contains]=1",
            "Operator $contains does not apply to decimal at filters.price",
        ),
        ("filters[title][$gt]", "filters.title.$gt needs a value"),
        (
            "filters[title][$startsWith]=ab%00",
            "Invalid value for filters.title.$startsWith: NUL characters are not allowed",
        ),
        (
            "filters[metadata][$contains]=1",
            "Operator $contains does not apply to json at filters.metadata.$contains",
        ),
    ],
)
def test_refusals_and_their_messages(parse, query, message):
    with pytest.raises(ValidationError) as caught:
        parse("filters", query)
    assert caught.value.message == message
    assert not isinstance(caught.value, InvalidFilterValue)


def test_a_value_the_type_cannot_hold_is_an_invalid_filter_value(parse):
    # its own class: the facade orders it after the other 400s, as Strapi does
    with pytest.raises(InvalidFilterValue) as caught:
        parse("filters", "filters[pages]=abc")
    assert caught.value.message == "Invalid format, expected an integer"
