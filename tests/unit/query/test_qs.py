"""``parse_query`` against what npm ``qs`` 6.11.1 returns with Strapi v4.25's options.

The shared vectors are the real ``qs.parse`` output; the property tests check that no input
string makes the parser raise, and that what ``qs.stringify`` builds for typical Strapi queries
parses back to the same structure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contentapi.query.qs import parse_query

# A copy of the workplace's shared vectors (real npm qs 6.11.1 output), kept in the repository
# so that a clean checkout tests itself.
VECTORS_PATH = Path(__file__).resolve().parents[2] / "vectors" / "qs-parse.json"
EXPECTED_VECTOR_COUNT = 113

# No example database: it would write a .hypothesis folder into the checkout.
PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, database=None)


def _vector_params() -> list[Any]:
    if not VECTORS_PATH.is_file():
        # Missing vectors must fail the suite, never skip it.
        return [pytest.param(None, id="vectors-missing")]
    document = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    return [
        pytest.param(case, id=f"{index:03d}:{case['query'][:40]}")
        for index, case in enumerate(document["vectors"])
    ]


def test_vector_file_is_complete() -> None:
    assert VECTORS_PATH.is_file(), f"qs test vectors not found at {VECTORS_PATH}"
    document = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    assert document["source"] == "npm qs 6.11.1"
    assert document["options"] == {"strictNullHandling": True, "arrayLimit": 100, "depth": 20}
    assert len(document["vectors"]) == EXPECTED_VECTOR_COUNT


@pytest.mark.parametrize("case", _vector_params())
def test_matches_npm_qs(case: dict[str, Any] | None) -> None:
    assert case is not None, f"qs test vectors not found at {VECTORS_PATH}"
    assert parse_query(case["query"]) == case["parsed"]


# --- behaviours worth spelling out -----------------------------------------------------------


def test_empty_query() -> None:
    assert parse_query("") == {}
    assert parse_query("&") == {}


def test_keys_come_out_in_javascript_enumeration_order() -> None:
    parsed = parse_query("a[b]=1&a[101]=2&a[c]=3&a[5]=4")
    assert list(parsed["a"]) == ["5", "101", "b", "c"]


def test_integer_top_level_keys_are_merged_first_like_object_keys() -> None:
    # Object.keys puts "0" before "[]", so "y" is merged before "x".
    assert parse_query("[]=x&0=y") == {"0": ["y", "x"]}
    assert parse_query("5[x]=1&5=2") == {"5": ["2", {"x": "1"}]}


def test_plain_value_merged_into_object_becomes_true_key() -> None:
    assert parse_query("a[b]=1&a=2") == {"a": {"b": "1", "2": True}}
    assert parse_query("a[b]=1&a=toString") == {"a": {"b": "1"}}


def test_empty_and_null_values_do_not_overwrite() -> None:
    assert parse_query("a[b][c]=1&a[b]") == {"a": {"b": {"c": "1"}}}
    assert parse_query("a[b][c]=1&a[b]=") == {"a": {"b": {"c": "1"}}}
    assert parse_query("a&a[b]=1") == {"a": [None, {"b": "1"}]}


def test_nested_empty_brackets_flatten() -> None:
    assert parse_query("a[][]=x") == {"a": ["x"]}
    assert parse_query("a[0][0]=x") == {"a": [["x"]]}


def _nest(keys: list[str], leaf: Any) -> Any:
    for key in reversed(keys):
        leaf = {key: leaf}
    return leaf


def test_depth_overflow_keeps_the_rest_as_one_segment() -> None:
    key = "a" + "".join(f"[k{index}]" for index in range(22)) + "tail"
    expected = _nest(["a", *(f"k{index}" for index in range(20)), "[k20][k21]tail"], "v")
    assert parse_query(key + "=v") == expected


def test_prototype_names_drop_the_whole_key_only_within_depth() -> None:
    assert parse_query("a[b][valueOf]=1&c=2") == {"c": "2"}
    assert parse_query("a" + "[b]" * 19 + "[__proto__]=1&c=2") == {"c": "2"}
    beyond = parse_query("a" + "[b]" * 20 + "[__proto__]=1")
    assert beyond == _nest(["a", *["b"] * 20, "[__proto__]"], "1")


def test_parameter_limit_counts_empty_parts() -> None:
    query = "&" * 999 + "a=1&b=2"
    assert parse_query(query) == {"a": "1"}


def test_malformed_escape_leaves_the_whole_string_undecoded() -> None:
    assert parse_query("a=%E2%9C%93%zz+x") == {"a": "%E2%9C%93%zz x"}
    assert parse_query("a=%ED%A0%80") == {"a": "%ED%A0%80"}  # UTF-8 encoded surrogate
    assert parse_query("a=%F0%9F%98%80") == {"a": "\U0001f600"}


def test_large_queries_are_fast_enough() -> None:
    # 1,000 parameters of the shapes that grow arrays and objects: must stay linear-ish.
    shapes = [
        "&".join(f"a[]={index}" for index in range(1000)),
        "&".join(f"a[100][b{index}]=1" for index in range(1000)),
        "&".join("a" + "[b]" * 200 + f"={index}" for index in range(1000)),
        "&".join(
            f"a={index}" if index % 2 else f"a[{index % 101}]={index}" for index in range(1000)
        ),
        "[" * 100_000 + "a" + "]" * 100_000,
    ]
    for query in shapes:
        assert isinstance(parse_query(query), dict)


# --- property tests ------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.text())
def test_any_text_parses_to_a_dict(query: str) -> None:
    assert isinstance(parse_query(query), dict)


QUERY_ALPHABET = ["a", "b", "0", "1", "[", "]", "=", "&", "%", "+", "%5B", "%5D", "%E2", "[]"]


@PROPERTY_SETTINGS
@given(st.lists(st.sampled_from(QUERY_ALPHABET), max_size=60).map("".join))
def test_bracket_heavy_text_parses_to_a_dict(query: str) -> None:
    assert isinstance(parse_query(query), dict)


@PROPERTY_SETTINGS
@given(
    st.lists(
        st.text(alphabet="ab01[]=&%+ .$", max_size=12),
        min_size=1,
        max_size=30,
    ).map("&".join)
)
def test_many_short_parameters_parse_to_a_dict(query: str) -> None:
    assert isinstance(parse_query(query), dict)


# --- round trip through a qs.stringify look-alike ----------------------------------------


def _encode(text: str) -> str:
    """qs ``utils.encode`` (RFC 3986): only ``A-Za-z0-9-._~`` stay as they are."""
    return quote(text, safe="-._~")


def _stringify(value: dict[str, Any], *, encode_keys: bool = False) -> str:
    """``qs.stringify(value, {encodeValuesOnly: true})`` (indices arrays), or with
    ``encode_keys`` the default, which percent-encodes the keys and their brackets too."""
    pairs: list[str] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                walk(f"{prefix}[{key}]", child)
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(f"{prefix}[{index}]", child)
        else:
            key = _encode(prefix) if encode_keys else prefix
            pairs.append(f"{key}={_encode(node)}")

    for key, child in value.items():
        walk(key, child)
    return "&".join(pairs)


STRAPI_QUERIES: list[dict[str, Any]] = [
    {"filters": {"title": {"$eq": "Hello World"}}},
    {"filters": {"$or": [{"title": {"$eq": "a"}}, {"title": {"$eq": "b & c = d"}}]}},
    {
        "filters": {
            "$and": [
                {"$or": [{"pages": {"$lt": "5"}}, {"pages": {"$gt": "50"}}]},
                {"genre": {"$in": ["fiction", "poetry"]}},
                {"author": {"name": {"$startsWith": "J"}}},
            ]
        }
    },
    {"filters": {"$not": {"title": {"$containsi": "100% [draft]"}}}},
    {"filters": {"publishedAt": {"$null": "true"}}, "publicationState": "preview"},
    {"filters": {"pages": {"$between": ["10", "20"]}}},
    {"filters": {"t1.password": {"$startsWith": "$"}}},
    {"sort": ["title:asc", "pages:desc"]},
    {"sort": "title:asc"},
    {"fields": ["title", "pages"], "locale": "fr"},
    {"populate": "*"},
    {"populate": ["author", "tags", "seo.shareImage"]},
    {"populate": {"author": {"populate": ["books"]}, "tags": {"fields": ["name"]}}},
    {
        "populate": {
            "blocks": {
                "on": {
                    "shared.quote": {"fields": ["body"]},
                    "shared.media-block": {"populate": "*"},
                }
            }
        }
    },
    {"populate": {"tags": {"sort": ["name:asc"], "filters": {"name": {"$startsWith": "a"}}}}},
    {"pagination": {"page": "2", "pageSize": "10"}},
    {"pagination": {"start": "0", "limit": "5", "withCount": "false"}},
    {"filters": {"title": {"$eq": "naïve ✓ 日本語 😀"}}, "sort": ["title:asc"]},
    {"filters": {"title": {"$eq": ""}}},
    {"filters": {"id": {"$in": [str(index) for index in range(101)]}}},
    {"filters": {"$or": [{"a": {"$eq": "1"}}, ["x", {"b": "2"}]]}},
]


@pytest.mark.parametrize("structure", STRAPI_QUERIES)
def test_round_trip_encode_values_only(structure: dict[str, Any]) -> None:
    assert parse_query(_stringify(structure)) == structure


@pytest.mark.parametrize("structure", STRAPI_QUERIES)
def test_round_trip_fully_encoded(structure: dict[str, Any]) -> None:
    assert parse_query(_stringify(structure, encode_keys=True)) == structure


def test_fully_encoded_brackets_and_spaces() -> None:
    expected = {"filters": {"title": {"$eq": "x y"}}}
    assert parse_query("filters%5Btitle%5D%5B%24eq%5D=x") == {"filters": {"title": {"$eq": "x"}}}
    assert parse_query("filters%5Btitle%5D%5B%24eq%5D=x+y") == expected
    assert parse_query("filters%5Btitle%5D%5B%24eq%5D=x%20y") == expected
    assert parse_query("filters[title][$eq]=x+y") == expected
    assert parse_query("filters[title][$eq]=x%2By") == {"filters": {"title": {"$eq": "x+y"}}}


KEYS = st.sampled_from(
    ["title", "name", "pages", "$eq", "$in", "$or", "$and", "$not", "$containsi", "shared.quote"]
)
VALUES = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)


def _nested(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, min_size=1, max_size=4) | st.dictionaries(
        KEYS, children, min_size=1, max_size=3
    )


STRUCTURES = st.dictionaries(
    KEYS, st.recursive(VALUES, _nested, max_leaves=12), min_size=1, max_size=3
)


@PROPERTY_SETTINGS
@given(STRUCTURES)
def test_round_trip_generated_structures(structure: dict[str, Any]) -> None:
    assert parse_query(_stringify(structure)) == structure
    assert parse_query(_stringify(structure, encode_keys=True)) == structure
