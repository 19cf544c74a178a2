"""``query/parse/cost.py``: the entries and components a REST answer can hold, from the parsed
query alone (the example models; no database)."""

from __future__ import annotations

from typing import Any

import pytest

from contentapi.errors import ValidationError
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.query.parse.cost import UNBOUNDED_ITEMS, query_cost
from contentapi.query.qs import parse_query
from contentapi.schema import load_registry
from contentapi.schema.registry import Registry
from tests.conftest import MODELS

ARTICLE = "api::article.article"


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load_registry(MODELS)


def cost(registry: Registry, query_string: str, *, list_route: bool = True) -> int:
    parser = QueryParser(registry, QueryLimits())
    article = registry.content_types[ARTICLE]
    params: dict[str, Any] = parse_query(query_string)
    read = parser.read_query if list_route else parser.entry_query
    return query_cost(registry, article, read(article, params), list_route=list_route)


@pytest.mark.parametrize(
    ("query_string", "expected"),
    [
        ("", 25),  # the default page
        ("pagination[pageSize]=100", 100),
        ("pagination[limit]=7", 7),
        ("pagination[pageSize]=1000", 100),  # clamped to maxLimit
        ("populate=author", 25 * 2),  # a to-one relation: one entry each
        ("populate=seo", 25 * 2),  # a single component
        ("populate=categories", 25 * (1 + UNBOUNDED_ITEMS)),  # no limit: the estimate
        ("populate[categories][limit]=3", 25 * (1 + 3)),
        ("populate[categories][count]=true", 25 * 2),
        ("populate=links", 25 * (1 + UNBOUNDED_ITEMS)),  # a repeatable component
        ("populate=gallery", 25 * (1 + UNBOUNDED_ITEMS)),  # a media list
        ("populate=cover", 25 * 2),
        ("populate=localizations", 25 * (1 + UNBOUNDED_ITEMS)),
        # nested: 25 x (1 + 4 categories x (1 + 5 articles x (1 + their author)))
        (
            "populate[categories][limit]=4&populate[categories][populate][articles][limit]=5"
            "&populate[categories][populate][articles][populate]=author",
            25 * (1 + 4 * (1 + 5 * 2)),
        ),
        # a zone item costs its most costly component: the quote with its author
        ("populate[blocks][populate]=*", 25 * (1 + UNBOUNDED_ITEMS * 2)),
    ],
)
def test_the_cost_multiplies_down_the_populate_tree(registry, query_string, expected):
    assert cost(registry, query_string) == expected


def test_a_single_entry_counts_one(registry):
    assert cost(registry, "populate[categories][limit]=3", list_route=False) == 1 + 3


def test_a_query_over_the_limit_is_a_validation_error(registry):
    parser = QueryParser(registry, QueryLimits(cost_limit=1000))
    article = registry.content_types[ARTICLE]
    params = parse_query("pagination[pageSize]=100&populate[categories][limit]=10")
    with pytest.raises(ValidationError) as refused:
        parser.read_query(article, params)
    assert refused.value.details == {"cost": 1100, "limit": 1000}
    assert refused.value.message.startswith("The query costs 1100, more than the limit of 1000")
    params = parse_query("pagination[pageSize]=100&populate[categories][limit]=9")
    assert parser.read_query(article, params).pagination.page_size == 100  # 1,000: admitted
    with pytest.raises(ValidationError):
        parser.entry_query(
            article,
            parse_query(
                "populate[categories][limit]=1000&populate[categories][populate][articles][limit]=100"
            ),
        )


def test_no_limit_when_zero(registry):
    parser = QueryParser(registry, QueryLimits(cost_limit=0))
    article = registry.content_types[ARTICLE]
    deep = "pagination[pageSize]=100&populate[categories][limit]=100"
    deep += "&populate[categories][populate][articles][limit]=100"
    assert parser.read_query(article, parse_query(deep)).populate
