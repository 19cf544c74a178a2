"""Fuzzed GraphQL: generated documents over the example models (nested selections, relation
arguments, fragments on dynamic zones, aliases, unknown fields), random filters, pagination
and sort in variables or inline — right and wrong types — and random mutations.

Invariants: never a 5xx or an internal error; every error Apollo-shaped; a mutation answered
with errors leaves the database exactly as before.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.api.security.conftest import snapshot
from tests.api.security.fuzz import (
    ANY_JSON,
    COLLECTIONS,
    COMPONENTS,
    CONTENT_TYPES,
    FIELD_VALUES,
    OPERATOR_NAMES,
    finite,
    fuzz,
    is_graphql_error_body,
)

ADMIN = {"Authorization": "Bearer test-admin-token"}
_OPERATORS = [name[1:] for name in OPERATOR_NAMES]
_SCALARS = frozenset(FIELD_VALUES) - {"password"}


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", ".").split("."))


def _visible(attributes: dict[str, Any]) -> dict[str, Any]:
    return {n: a for n, a in attributes.items() if not a.get("private") and a["type"] != "password"}


def _target(attribute: dict[str, Any]) -> dict[str, Any] | None:
    if attribute["type"] == "relation" and attribute["target"] in CONTENT_TYPES:
        return CONTENT_TYPES[attribute["target"]]["attributes"]
    if attribute["type"] == "component":
        return COMPONENTS[attribute["component"]]
    return None


# ----------------------------------------------------------------- filters (JSON values)


@st.composite
def filter_value(draw: st.DrawFn, attributes: dict[str, Any], depth: int = 0) -> Any:
    """A ``…FiltersInput`` value: mostly well-typed, sometimes anything at all."""
    if depth > 3 or draw(st.integers(0, 9)) == 0:
        return draw(ANY_JSON.map(finite))
    shown = _visible(attributes)
    names = [*shown, "id", "and", "or", "not"]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    if draw(st.integers(0, 9)) == 0:
        chosen.append(draw(st.sampled_from(["editorNotes", "password", "email", "bogus"])))
    result: dict[str, Any] = {}
    for name in chosen:
        if name in ("and", "or"):
            result[name] = draw(st.lists(filter_value(attributes, depth + 1), max_size=3))
        elif name == "not":
            result[name] = draw(filter_value(attributes, depth + 1))
        elif name in shown and _target(shown[name]) is not None:
            result[name] = draw(filter_value(_target(shown[name]) or {}, depth + 1))
        else:
            kind = (shown.get(name) or {}).get("type", "integer")
            one = FIELD_VALUES.get(kind, ANY_JSON).map(finite)
            operators = st.lists(st.sampled_from([*_OPERATORS, "bogus"]), max_size=2, unique=True)
            result[name] = {
                operator: draw(
                    st.lists(one, max_size=3)
                    if operator in ("in", "notIn", "between", "and", "or")
                    else one
                )
                for operator in draw(operators)
            }
    return result


# ----------------------------------------------------------------- selections (text)


@st.composite
def selection(draw: st.DrawFn, attributes: dict[str, Any], depth: int = 0) -> str:
    """The selection set inside ``attributes { … }``."""
    shown = _visible(attributes)
    names = draw(st.lists(st.sampled_from([*shown, "__typename"]), min_size=1, max_size=5))
    if draw(st.integers(0, 9)) == 0:
        names.append("bogus")
    parts: list[str] = []
    for name in names:
        attribute = shown.get(name)
        alias = f"a{len(parts)}: " if draw(st.integers(0, 4)) == 0 else ""
        if attribute is None or attribute["type"] in _SCALARS or depth > 1:
            parts.append(alias + name)
        elif attribute["type"] == "relation":
            target = _target(attribute)
            inner = draw(selection(target, depth + 1)) if target else "__typename"
            many = attribute["relation"] in ("oneToMany", "manyToMany")
            arguments = draw(relation_arguments()) if many else ""
            parts.append(f"{alias}{name}{arguments} {{ data {{ id attributes {{ {inner} }} }} }}")
        elif attribute["type"] == "media":
            parts.append(f"{alias}{name} {{ data {{ id attributes {{ url name mime }} }} }}")
        elif attribute["type"] == "component":
            inner = draw(selection(COMPONENTS[attribute["component"]], depth + 1))
            parts.append(f"{alias}{name} {{ id {inner} }}")
        elif attribute["type"] == "dynamiczone":
            fragments = " ".join(
                f"... on Component{_pascal(uid)} {{ id }}" for uid in attribute["components"]
            )
            parts.append(f"{alias}{name} {{ __typename {fragments} }}")
        else:
            parts.append(alias + name)
    return " ".join(parts)


@st.composite
def relation_arguments(draw: st.DrawFn) -> str:
    chosen = draw(
        st.lists(st.sampled_from(["pagination", "sort", "publicationState"]), unique=True)
    )
    values = {
        "pagination": draw(
            st.sampled_from(
                [
                    "{limit: 2}",
                    "{page: 1, pageSize: 1}",
                    "{start: -1, limit: 1000}",
                    '{page: "x"}',
                    "{page: 1, limit: 2}",
                    "{pageSize: 99999999999}",
                ]
            )
        ),
        "sort": draw(st.sampled_from(['"id:desc"', '["name:asc", "id"]', '"bogus"', "1"])),
        "publicationState": draw(st.sampled_from(["PREVIEW", "LIVE", "BOGUS", '"LIVE"'])),
    }
    if not chosen:
        return ""
    return "(" + ", ".join(f"{name}: {values[name]}" for name in chosen) + ")"


@st.composite
def query_request(draw: st.DrawFn) -> dict[str, Any]:
    uid = draw(st.sampled_from(COLLECTIONS))
    model = CONTENT_TYPES[uid]
    attributes = model["attributes"]
    plural, singular = model["plural"], model["singular"]
    inner = draw(selection(attributes))
    if draw(st.integers(0, 3)) == 0:
        entry = draw(st.sampled_from(['"1"', "2", '"x"', "null", '"2147483648"', "-1"]))
        document = f"{{ {singular}(id: {entry}) {{ data {{ id attributes {{ {inner} }} }} }} }}"
        return {"query": document}
    filters_type = f"{_pascal(singular)}FiltersInput"
    localized = "locale" in draw(st.just(["locale"])) and uid == "api::article.article"
    declared = f"$f: {filters_type}, $p: PaginationArg, $s: [String]"
    arguments = "filters: $f, pagination: $p, sort: $s"
    if localized:
        declared += ", $ps: PublicationState, $l: I18NLocaleCode"
        arguments += ", publicationState: $ps, locale: $l"
    document = (
        f"query Q({declared}) {{ {plural}({arguments}) {{ data {{ id attributes {{ {inner} }} }}"
        " meta { pagination { total page pageSize pageCount } } } }"
    )
    variables: dict[str, Any] = {
        "f": draw(filter_value(attributes)),
        "p": draw(
            st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        key: st.one_of(st.integers(-5, 200), st.integers(), ANY_JSON)
                        for key in ("page", "pageSize", "start", "limit")
                    },
                ),
                ANY_JSON,
            ).map(finite)
        ),
        "s": draw(
            st.one_of(
                st.lists(
                    st.sampled_from([*attributes, "id:desc", "author.name:asc", "x:sideways"])
                ),
                ANY_JSON,
            ).map(finite)
        ),
    }
    if localized:
        variables["ps"] = draw(st.sampled_from(["LIVE", "PREVIEW", "live", 1, None]))
        variables["l"] = draw(st.sampled_from(["en", "fr", "all", "", None, "\x00", 3]))
    return {"query": document, "variables": variables}


@fuzz(100)
@given(
    payload=st.one_of(
        query_request(),
        query_request(),
        query_request(),
        st.builds(lambda text: {"query": text}, st.text(max_size=60)),
        st.builds(
            lambda q, v: {"query": q, "variables": v},
            st.sampled_from(
                [
                    "{ articles { data { id } } }",
                    "query ($x: ID!) { article(id: $x) { data { id } } }",
                ]
            ),
            ANY_JSON.map(finite),
        ),
    )
)
async def test_fuzzed_graphql_queries_answer_apollo_shaped(blog, backend, payload):
    response = await blog.client.post(
        "/graphql",
        content=json.dumps(payload, ensure_ascii=False).encode(),
        headers={**ADMIN, "content-type": "application/json"},
    )
    is_graphql_error_body(response, backend)


# ----------------------------------------------------------------- mutations


def _input_value(attributes: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    names = st.lists(st.sampled_from([*attributes, "bogus", "id"]), max_size=5, unique=True)

    def values(chosen: list[str]) -> st.SearchStrategy[dict[str, Any]]:
        strategies: dict[str, st.SearchStrategy[Any]] = {}
        for name in chosen:
            attribute = attributes.get(name) or {"type": "json"}
            kind = attribute["type"]
            if kind == "relation":
                strategies[name] = st.one_of(
                    st.sampled_from(["1", "2", "99", "x", None]),
                    st.lists(st.sampled_from(["1", "2", "3", "0", "x"]), max_size=4),
                    ANY_JSON,
                )
            elif kind == "component" and depth < 2:
                item = _input_value(COMPONENTS[attribute["component"]], depth + 1)
                strategies[name] = st.one_of(item, st.lists(item, max_size=2), ANY_JSON)
            elif kind == "dynamiczone":
                strategies[name] = st.lists(
                    st.fixed_dictionaries(
                        {"__typename": st.sampled_from(["ComponentBlocksQuote", "Bogus", ""])},
                        optional={"body": st.text(max_size=10), "title": ANY_JSON},
                    ),
                    max_size=2,
                )
            else:
                typed = FIELD_VALUES.get(kind, ANY_JSON)
                strategies[name] = st.integers(0, 4).flatmap(
                    lambda n, typed=typed: ANY_JSON if n == 0 else typed
                )
        return st.fixed_dictionaries(strategies).map(finite)

    return names.flatmap(values)


@st.composite
def mutation_request(draw: st.DrawFn) -> dict[str, Any]:
    action = draw(st.sampled_from(["create", "update", "delete", "createLocalization"]))
    uid = draw(st.sampled_from(COLLECTIONS))
    if action == "createLocalization":
        uid = "api::article.article"
    model = CONTENT_TYPES[uid]
    name = _pascal(model["singular"])
    entry = draw(st.sampled_from(["1", "2", "3", "0", "x", "2147483648"]))
    data = draw(_input_value(model["attributes"]))
    if draw(st.booleans()):
        required = {"title": "Fuzzed", "name": f"Fuzzed {draw(st.integers(0, 10**6))}"}
        data = {**{k: v for k, v in required.items() if k in model["attributes"]}, **data}
    if action == "create":
        document = f"mutation M($d: {name}Input!) {{ create{name}(data: $d) {{ data {{ id }} }} }}"
        variables: dict[str, Any] = {"d": data}
    elif action == "update":
        document = (
            f"mutation M($i: ID!, $d: {name}Input!) "
            f"{{ update{name}(id: $i, data: $d) {{ data {{ id }} }} }}"
        )
        variables = {"i": entry, "d": data}
    elif action == "delete":
        document = f"mutation M($i: ID!) {{ delete{name}(id: $i) {{ data {{ id }} }} }}"
        variables = {"i": entry}
    else:
        document = (
            "mutation M($i: ID, $d: ArticleInput, $l: I18NLocaleCode) "
            "{ createArticleLocalization(id: $i, data: $d, locale: $l) { data { id } } }"
        )
        locale = draw(st.sampled_from(["fr", "en", "de", None, ""]))
        variables = {"i": entry, "d": data, "l": locale}
    return {"query": document, "variables": variables}


@fuzz(50)
@given(payload=mutation_request())
async def test_fuzzed_graphql_mutations_leave_nothing_on_error(blog, backend, payload):
    before = await snapshot(blog)
    response = await blog.client.post(
        "/graphql",
        content=json.dumps(payload, ensure_ascii=False).encode(),
        headers={**ADMIN, "content-type": "application/json"},
    )
    body = is_graphql_error_body(response, backend)
    if body.get("errors"):
        assert await snapshot(blog) == before, response.text
