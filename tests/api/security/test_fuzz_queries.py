"""Fuzzed REST query strings on the list and single routes of the example models.

Filters with every operator (and unknown ones) and values of every kind, paths through
relations and components up to and past ``qs``'s 20 levels, sort, pagination, fields, populate
(with its own filters, sort and fields), locale and publicationState, in both of ``qs``'s
encodings; and the extremes: 1,000 parameters, arrays of 200. Invariant: never a 5xx, and
every error in the contract's shape.
"""

from __future__ import annotations

import string
from typing import Any
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from tests.api.security.fuzz import (
    COLLECTIONS,
    COMPONENTS,
    CONTENT_TYPES,
    FIELD_VALUES,
    LOGICAL_NAMES,
    OPERATOR_NAMES,
    QUERY_VALUES,
    SINGLE_TYPES,
    SYSTEM_NAMES,
    encode_query,
    finite,
    fuzz,
    is_rest_error,
)

Pairs = list[tuple[str, str | None]]

_OPERATORS = st.sampled_from([*OPERATOR_NAMES, *LOGICAL_NAMES, "$bogus", "$EQ", "$", "$in "])
_INDEXES = st.one_of(st.integers(0, 3), st.integers(0, 250)).map(str)
_JUNK_SEGMENT = st.one_of(
    st.text(max_size=6), st.sampled_from(["", "__proto__", "constructor", "[", "]", "a]b"])
)


def _names(attributes: dict[str, Any]) -> list[str]:
    return [*attributes, *SYSTEM_NAMES]


def _next_attributes(attributes: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The attributes a filter path continues into after ``name`` (relation or component)."""
    attribute = attributes.get(name) or {}
    if attribute.get("type") == "relation" and attribute["target"] in CONTENT_TYPES:
        return CONTENT_TYPES[attribute["target"]]["attributes"]
    if attribute.get("type") == "component":
        return COMPONENTS[attribute["component"]]
    return None


@st.composite
def filter_path(draw: st.DrawFn, attributes: dict[str, Any], prefix: str) -> tuple[str, Any]:
    """One ``filters[...]`` key (up to 24 segments, through relations and components) and
    its value; the value may be a list (indexes appended) or null (no ``=``)."""
    segments: list[str] = []
    current: dict[str, Any] | None = attributes
    for _ in range(draw(st.integers(1, 24))):
        choice = draw(st.integers(0, 9))
        if current is not None and choice < 5:
            name = draw(st.sampled_from(_names(current)))
            segments.append(name)
            current = _next_attributes(current, name) or current
        elif choice < 8:
            segments.append(draw(_OPERATORS))
        elif choice < 9:
            segments.append(draw(_INDEXES))
        else:
            segments.append(draw(_JUNK_SEGMENT))
        if draw(st.integers(0, 3)) == 0:
            break
    key = prefix + "".join(f"[{segment}]" for segment in segments)
    value = draw(
        st.one_of(
            QUERY_VALUES,
            st.none(),
            st.lists(QUERY_VALUES, min_size=1, max_size=4),
        )
    )
    return key, value


_SCALAR_KINDS = frozenset(FIELD_VALUES) - {"password"}


@st.composite
def typed_filter(draw: st.DrawFn, attributes: dict[str, Any], prefix: str) -> tuple[str, Any]:
    """A well-formed filter: through up to two relations or components, then an attribute,
    an operator and a value (or values) of about the attribute's type."""
    segments: list[str] = []
    for _ in range(draw(st.integers(0, 2))):
        deeper = [name for name in attributes if _next_attributes(attributes, name)]
        if not deeper:
            break
        name = draw(st.sampled_from(deeper))
        segments.append(name)
        attributes = _next_attributes(attributes, name) or attributes
    scalars = [n for n, a in attributes.items() if a.get("type") in _SCALAR_KINDS] or ["id"]
    name = draw(st.sampled_from([*scalars, "id", "createdAt"]))
    kind = (attributes.get(name) or {}).get("type", "integer")
    operator = draw(st.sampled_from(OPERATOR_NAMES))
    one = FIELD_VALUES.get(kind, QUERY_VALUES).map(lambda value: str(finite(value)))
    if operator in ("$in", "$notIn", "$between"):
        value: Any = draw(st.lists(one, min_size=1, max_size=3))
    elif operator in ("$null", "$notNull"):
        value = draw(st.sampled_from(["true", "false", "1", "0", "x"]))
    else:
        value = draw(one)
    if draw(st.integers(0, 4)) == 0:
        segments.insert(0, draw(st.sampled_from(["$not", "$or][0", "$and][1"])))
    key = prefix + "".join(f"[{segment}]" for segment in [*segments, name, operator])
    return key, value


def _flatten(key: str, value: Any) -> Pairs:
    if isinstance(value, list):
        return [(f"{key}[{index}]", item) for index, item in enumerate(value)]
    return [(key, value)]


@st.composite
def sort_pairs(draw: st.DrawFn, attributes: dict[str, Any]) -> Pairs:
    names = st.one_of(
        st.sampled_from(_names(attributes)),
        st.builds(
            lambda a, b: f"{a}.{b}",
            st.sampled_from(list(attributes)),
            st.sampled_from(["name", "title", "id", "email", "password", "x"]),
        ),
        st.text(max_size=8),
    )
    directions = st.sampled_from(["", ":asc", ":desc", ":ASC", ":sideways", ":", "::asc"])
    items = draw(st.lists(st.builds(str.__add__, names, directions), min_size=1, max_size=4))
    if draw(st.booleans()):
        return [("sort", ",".join(items))]
    return [(f"sort[{i}]", item) for i, item in enumerate(items)]


@st.composite
def pagination_pairs(draw: st.DrawFn) -> Pairs:
    keys = draw(
        st.lists(
            st.sampled_from(["page", "pageSize", "start", "limit", "withCount", "bogus"]),
            max_size=4,
        )
    )
    numbers = st.one_of(st.integers(-5, 200).map(str), QUERY_VALUES)
    return [(f"pagination[{key}]", draw(numbers)) for key in keys]


@st.composite
def fields_pairs(draw: st.DrawFn, attributes: dict[str, Any], prefix: str = "fields") -> Pairs:
    names = draw(
        st.lists(
            st.one_of(st.sampled_from([*_names(attributes), "*"]), st.text(max_size=6)),
            min_size=1,
            max_size=5,
        )
    )
    if draw(st.booleans()):
        return [(prefix, ",".join(names))]
    return [(f"{prefix}[{i}]", name) for i, name in enumerate(names)]


@st.composite
def populate_pairs(draw: st.DrawFn, attributes: dict[str, Any], prefix: str = "populate") -> Pairs:
    """``populate=*``, lists, and the object form with nested filters, sort, fields, ``on``."""
    names = [*attributes, "*", "bogus", "createdBy", "localizations"]
    form = draw(st.integers(0, 3))
    if form == 0:
        return [(prefix, draw(st.one_of(st.sampled_from(names), QUERY_VALUES)))]
    if form == 1:
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4))
        return [(f"{prefix}[{i}]", name) for i, name in enumerate(chosen)]
    if form == 2:
        return [(prefix, ",".join(draw(st.lists(st.sampled_from(names), max_size=4))))]
    pairs: Pairs = []
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)):
        inner = _next_attributes(attributes, name) or {}
        here = f"{prefix}[{name}]"
        part = draw(st.sampled_from(["populate", "filters", "sort", "fields", "on", "*", "x"]))
        if part == "filters":
            key, value = draw(filter_path(inner or attributes, f"{here}[filters]"))
            pairs += _flatten(key, value)
        elif part == "sort":
            sorts = draw(sort_pairs(inner or attributes))
            pairs += [(f"{here}[sort]{key[4:]}", value) for key, value in sorts]
        elif part == "fields":
            pairs += draw(fields_pairs(inner or attributes, f"{here}[fields]"))
        elif part == "on":
            component = draw(st.sampled_from([*COMPONENTS, "bogus.none"]))
            pairs.append((f"{here}[on][{component}][populate]", "*"))
        elif part == "populate" and inner and draw(st.booleans()):
            pairs += draw(populate_pairs(inner, f"{here}[populate]"))
        else:
            pairs.append((here if part == "x" else f"{here}[{part}]", draw(QUERY_VALUES)))
    return pairs


@st.composite
def read_query(draw: st.DrawFn, attributes: dict[str, Any]) -> Pairs:
    pairs: Pairs = []
    filters = st.one_of(typed_filter(attributes, "filters"), filter_path(attributes, "filters"))
    for key, value in draw(st.lists(filters, max_size=5)):
        pairs += _flatten(key, value)
    if draw(st.booleans()):
        pairs += draw(sort_pairs(attributes))
    if draw(st.booleans()):
        pairs += draw(pagination_pairs())
    if draw(st.booleans()):
        pairs += draw(fields_pairs(attributes))
    if draw(st.booleans()):
        pairs += draw(populate_pairs(attributes))
    if draw(st.integers(0, 3)) == 0:
        pairs.append(
            ("locale", draw(st.one_of(st.sampled_from(["en", "fr", "all"]), QUERY_VALUES)))
        )
    if draw(st.integers(0, 3)) == 0:
        state = st.one_of(st.sampled_from(["live", "preview"]), QUERY_VALUES)
        pairs.append(("publicationState", draw(state)))
    return draw(st.permutations(pairs))


@st.composite
def clean_query(draw: st.DrawFn, attributes: dict[str, Any]) -> Pairs:
    """Well-formed parts only (values still of every kind): most of these reach the SQL."""
    pairs: Pairs = []
    for key, value in draw(st.lists(typed_filter(attributes, "filters"), max_size=3)):
        pairs += _flatten(key, value)
    scalars = [n for n, a in attributes.items() if a.get("type") in _SCALAR_KINDS]
    relations = [n for n in attributes if _next_attributes(attributes, n)]
    if scalars and draw(st.booleans()):
        names = draw(st.lists(st.sampled_from([*scalars, "id"]), min_size=1, max_size=3))
        directions = st.sampled_from(["", ":asc", ":desc"])
        pairs += [(f"sort[{i}]", name + draw(directions)) for i, name in enumerate(names)]
    if relations and draw(st.booleans()):
        name = draw(st.sampled_from(relations))
        target = _next_attributes(attributes, name) or {}
        deep = [n for n, a in target.items() if a.get("type") in _SCALAR_KINDS]
        if deep:
            pairs.append(("sort", f"{name}.{draw(st.sampled_from(deep))}:desc"))
    if draw(st.booleans()):
        style = draw(st.sampled_from([("page", "pageSize"), ("start", "limit")]))
        pairs += [(f"pagination[{key}]", str(draw(st.integers(-2, 120)))) for key in style]
    if scalars and draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(scalars), min_size=1, max_size=3, unique=True))
        pairs += [(f"fields[{i}]", name) for i, name in enumerate(chosen)]
    if draw(st.booleans()):
        names = [
            n for n, a in attributes.items() if a["type"] != "password" and not a.get("private")
        ]
        populated = [
            n
            for n in names
            if attributes[n]["type"] in ("relation", "media", "component", "dynamiczone")
        ]
        if populated:
            for name in draw(st.lists(st.sampled_from(populated), max_size=3, unique=True)):
                target = _next_attributes(attributes, name)
                if target and draw(st.booleans()) and attributes[name]["type"] == "relation":
                    key, value = draw(typed_filter(target, f"populate[{name}][filters]"))
                    pairs += _flatten(key, value)
                else:
                    pairs.append((f"populate[{name}]", "*" if draw(st.booleans()) else "true"))
        else:
            pairs.append(("populate", "*"))
    if draw(st.booleans()):
        pairs.append(("locale", draw(st.sampled_from(["en", "fr", "all", "de"]))))
    if draw(st.booleans()):
        pairs.append(("publicationState", draw(st.sampled_from(["live", "preview"]))))
    return pairs


@st.composite
def read_request(draw: st.DrawFn) -> tuple[str, str]:
    uid = draw(st.sampled_from([*COLLECTIONS, *SINGLE_TYPES]))
    model = CONTENT_TYPES[uid]
    query_pairs = st.one_of(read_query(model["attributes"]), clean_query(model["attributes"]))
    query = encode_query(draw(query_pairs), raw_brackets=draw(st.booleans()))
    if model["kind"] == "singleType":
        return f"/api/{model['singular']}", query
    if draw(st.booleans()):
        return f"/api/{model['plural']}", query
    entry = draw(
        st.one_of(
            st.integers(1, 6).map(str),
            st.sampled_from(["0", "-1", "2147483648", "99999999999999999999", "1.5", "1e3"]),
            st.text(min_size=1, max_size=6).map(lambda text: quote(text, safe="")),
        )
    )
    return f"/api/{model['plural']}/{entry}", query


@fuzz(200)
@given(request=read_request(), anonymous=st.integers(0, 9))
async def test_fuzzed_read_queries_answer_in_the_contract_shape(blog, backend, request, anonymous):
    path, query = request
    headers = {} if anonymous == 0 else {"Authorization": "Bearer test-admin-token"}
    response = await blog.client.get(f"{path}?{query}", headers=headers)
    is_rest_error(response, backend)


_WIDE_VALUES = st.one_of(
    st.sampled_from(["1", "a", "", "\x00", "NaN", "1e400", "%", "😀", "-0"]),
    st.text(string.ascii_letters + string.digits + "%_-.", max_size=6),
)


@fuzz(8)
@given(
    uid=st.sampled_from(COLLECTIONS),
    shape=st.sampled_from(["params", "array", "or", "nested"]),
    value=_WIDE_VALUES,
    operator=st.sampled_from(OPERATOR_NAMES),
)
async def test_extreme_query_shapes_answer_in_the_contract_shape(
    blog, backend, uid, shape, value, operator
):
    """1,000 parameters (and 1,001), arrays of 200 (past ``arrayLimit``), 200 ``$or`` branches,
    20 and 21 levels of nesting."""
    model = CONTENT_TYPES[uid]
    name = next(iter(model["attributes"]))
    if shape == "params":
        pairs: Pairs = [(f"filters[{name}][{operator}][{i}]", value) for i in range(1001)]
    elif shape == "array":
        pairs = [(f"filters[{name}][{operator}][{i}]", value) for i in range(200)]
    elif shape == "or":
        pairs = [(f"filters[$or][{i}][{name}][{operator}]", value) for i in range(200)]
    else:
        pairs = [("filters" + "[$and][0]" * 10 + f"[{name}][{operator}]", value)]
        pairs.append(("filters" + "[$not]" * 19 + f"[{name}][{operator}]", value))
        pairs.append(("filters" + "[$not]" * 21 + f"[{name}][{operator}]", value))
    response = await blog.client.get(
        f"/api/{model['plural']}?{encode_query(pairs, raw_brackets=True)}",
        headers={"Authorization": "Bearer test-admin-token"},
    )
    is_rest_error(response, backend)
