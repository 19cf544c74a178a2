"""``QueryParser.populate`` in every form of the spec (``query/parse/populate.py``): ``*``,
lists, dotted paths, objects with their options, media, components, dynamic zones (shared or
per component with ``on``), and the refusals of a populate's own options.
(``test_populate_parse.py`` checks the keys it ignores.)"""

from __future__ import annotations

import pytest

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import (
    Comparison,
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    RelationPopulate,
    SortKey,
)

BY = {"by": RelationPopulate()}
QUOTE_BY = ComponentPopulate(populate=BY)


def test_star_populates_every_readable_attribute_one_level_deep(parse):
    assert parse("populate", "populate=*") == {
        "author": RelationPopulate(),
        "cover": MediaPopulate(),
        "seo": ComponentPopulate(),
        "parts": DynamicZonePopulate(),
        "localizations": RelationPopulate(),  # a localized type's other locales
    }  # not `vault` (the caller may not find vaults) nor the private `hiddenSeo`


@pytest.mark.parametrize(
    "query",
    ["populate=author,cover", "populate[0]=author&populate[1]=cover", "populate=*,author,cover"],
)
def test_lists_of_names(parse, query):
    assert parse("populate", query) == {"author": RelationPopulate(), "cover": MediaPopulate()}


def test_dotted_paths_nest(parse):
    assert parse("populate", "populate[0]=author.books&populate[1]=seo.image") == {
        "author": RelationPopulate(populate={"books": RelationPopulate()}),
        "seo": ComponentPopulate(populate={"image": MediaPopulate()}),
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("populate[author]=true", {"author": RelationPopulate()}),
        ("populate[author]=false", {}),  # Strapi: false/f/0/empty skip
        ("populate[author]=", {}),
        ("populate=3", {}),  # no such attribute: ignored
    ],
)
def test_flags(parse, query, expected):
    assert parse("populate", query) == expected


def test_a_relation_object_reads_the_query_rules(parse):
    query = (
        "populate[author][fields][0]=name&populate[author][sort]=name:desc"
        "&populate[author][filters][name][$eq]=x&populate[author][populate]=books,vault"
        "&populate[author][start]=2&populate[author][limit]=3&populate[author][count]=true"
    )
    assert parse("populate", query) == {
        "author": RelationPopulate(
            fields=("name",),
            filters=Comparison("name", "string", "$eq", "x", None),
            sort=(SortKey((), "name", "string", True),),
            populate={"books": RelationPopulate()},  # not `vault`: the caller may not find it
            limit=3,
            offset=2,
            count=True,
        )
    }


def test_page_options_of_a_relation_are_checked_then_ignored(parse):
    assert parse("populate", "populate[author][page]=2&populate[author][pageSize]=5") == {
        "author": RelationPopulate()
    }


def test_media_filters_and_sort_apply_to_the_files(parse):
    query = "populate[cover][fields][0]=name&populate[cover][filters][name][$eq]=a.png"
    assert parse("populate", query) == {
        "cover": MediaPopulate(("name",), Comparison("name", "string", "$eq", "a.png", None))
    }


def test_component_object(parse):
    query = (
        "populate[seo][populate]=image&populate[seo][fields]=metaTitle"
        "&populate[seo][sort]=metaTitle"
    )
    assert parse("populate", query) == {
        "seo": ComponentPopulate(
            fields=("metaTitle",),
            populate={"image": MediaPopulate()},
            sort=(SortKey((), "meta_title", "string", False),),
        )
    }


@pytest.mark.parametrize(
    "query", ["populate[parts][populate]=by", "populate=parts.by", "populate[parts][populate]=*"]
)
def test_a_shared_zone_populate_is_read_against_each_component(parse, query):
    # `text` of parts.text is no relation: nothing to populate there
    assert parse("populate", query) == {
        "parts": DynamicZonePopulate(
            on={"parts.quote": QUOTE_BY, "parts.text": ComponentPopulate()}
        )
    }


def test_on_names_the_zone_components_to_populate(parse):
    query = "populate[parts][on][parts.quote][populate]=by&populate[parts][on][nope.x]=true"
    assert parse("populate", query) == {"parts": DynamicZonePopulate(on={"parts.quote": QUOTE_BY})}


def test_zone_fields_go_to_every_component(parse):
    assert parse("populate", "populate[parts][fields][0]=id") == {
        "parts": DynamicZonePopulate(
            on={
                "parts.quote": ComponentPopulate(fields=("id",)),
                "parts.text": ComponentPopulate(fields=("id",)),
            }
        )
    }


@pytest.mark.parametrize(
    ("query", "error", "message"),
    [
        ("populate[author][fields][0]=nope", ValidationError, "Invalid parameter nope"),
        ("populate[author][filters][vault][label]=x", ValidationError, "Invalid parameter vault"),
        (
            "populate[author][limit]=abc",
            ValidationError,
            "Invalid limit parameter. Expected an integer",
        ),
        ("populate[parts][filters][text]=x", ValidationError, "Invalid key filters"),
        ("populate[parts][sort]=text", ValidationError, "Invalid key sort"),
        ("populate[0][a]=b", ValidationError, "Invalid populate parameter"),
        (
            "populate[author][page]=0",
            PaginationError,
            "Invalid 'page' parameter. Expected an integer > 0, received: 0",
        ),
        (
            "populate[parts][on][parts.quote][page]=1&populate[parts][on][parts.quote][start]=1",
            PaginationError,
            "Invalid pagination attributes. You cannot use page and offset pagination in the "
            "same query",
        ),
    ],
)
def test_refusals(parse, query, error, message):
    with pytest.raises(error) as caught:
        parse("populate", query)
    assert caught.value.message == message
