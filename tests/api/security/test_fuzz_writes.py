"""Fuzzed REST write bodies: every attribute type, every relation form, components, dynamic
zones, media, broken envelopes — on create, update, the single type and localizations.

Invariants: never a 5xx; every error in the contract's shape; after a 4xx the database and the
uploads folder are exactly as before (``snapshot``).
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
    SINGLE_TYPES,
    SYSTEM_NAMES,
    finite,
    fuzz,
    is_rest_error,
)

ADMIN = {"Authorization": "Bearer test-admin-token"}

#: Ids that exist in the seeded blog (1-3), that do not, and that are not ids at all.
IDS = st.one_of(
    st.integers(1, 4),
    st.sampled_from([0, -1, 2**31, 2**63, 1.5, "1", "x", None, True, [], {}]),
)


@st.composite
def connect_item(draw: st.DrawFn) -> Any:
    entry = draw(IDS)
    form = draw(st.integers(0, 3))
    if form == 0:
        return entry
    if form == 1:
        return {"id": entry}
    position = draw(
        st.one_of(
            st.fixed_dictionaries({draw(st.sampled_from(["before", "after"])): IDS}),
            st.fixed_dictionaries({draw(st.sampled_from(["start", "end"])): st.booleans()}),
            ANY_JSON,
        )
    )
    return {"id": entry, "position": position}


RELATION_VALUES = st.one_of(
    IDS,
    st.lists(IDS, max_size=5),
    st.fixed_dictionaries(
        {},
        optional={
            "connect": st.one_of(st.lists(connect_item(), max_size=5), connect_item()),
            "disconnect": st.one_of(st.lists(connect_item(), max_size=4), IDS),
            "set": st.one_of(st.lists(connect_item(), max_size=4), IDS),
        },
    ),
    ANY_JSON,
)

MEDIA_VALUES = st.one_of(IDS, st.lists(IDS, max_size=4), ANY_JSON)


def _dumps(value: Any) -> bytes:
    """Standard JSON (integers of any size; orjson stops at 64 bits)."""
    return json.dumps(value, ensure_ascii=False).encode()


def _value(attributes: dict[str, Any], name: str, depth: int) -> st.SearchStrategy[Any]:
    attribute = attributes.get(name)
    if attribute is None:
        return ANY_JSON
    kind = attribute["type"]
    if kind == "relation":
        return RELATION_VALUES
    if kind == "media":
        return MEDIA_VALUES
    if kind == "component":
        item = component_value(attribute["component"], depth + 1)
        if attribute.get("repeatable"):
            return st.one_of(st.lists(item, max_size=3), item, ANY_JSON)
        return st.one_of(item, st.lists(item, max_size=2), ANY_JSON)
    if kind == "dynamiczone":
        names = [*attribute["components"], "shared.seo", "bogus.thing", None]
        zone_item = st.sampled_from(names).flatmap(
            lambda uid: (
                component_value(uid, depth + 1).map(lambda data: {**data, "__component": uid})
                if uid in COMPONENTS
                else st.just({"__component": uid})
            )
        )
        return st.one_of(st.lists(zone_item, max_size=3), zone_item, ANY_JSON)
    typed = FIELD_VALUES.get(kind, ANY_JSON).map(finite)
    return st.integers(0, 9).flatmap(lambda n: ANY_JSON if n == 0 else typed)


def component_value(uid: str, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    attributes = COMPONENTS[uid]
    if depth > 2:
        return st.just({})
    return _object(attributes, depth, extra=["id", "__component", "junk"])


def _object(
    attributes: dict[str, Any], depth: int, extra: list[str]
) -> st.SearchStrategy[dict[str, Any]]:
    names = st.lists(st.sampled_from([*attributes, *extra]), max_size=6, unique=True)
    return names.flatmap(
        lambda chosen: st.fixed_dictionaries(
            {name: _value(attributes, name, depth) for name in chosen}
        )
    )


def entry_data(uid: str) -> st.SearchStrategy[dict[str, Any]]:
    return _object(CONTENT_TYPES[uid]["attributes"], 0, extra=[*SYSTEM_NAMES, "junk"])


@st.composite
def write_request(draw: st.DrawFn) -> tuple[str, str, bytes]:
    uid = draw(st.sampled_from([*COLLECTIONS, *SINGLE_TYPES]))
    model = CONTENT_TYPES[uid]
    entry = draw(st.one_of(st.integers(1, 4).map(str), st.sampled_from(["0", "x", "2147483648"])))
    if model["kind"] == "singleType":
        method, path = draw(st.sampled_from(["PUT", "DELETE"])), f"/api/{model['singular']}"
    else:
        method, path = draw(
            st.sampled_from(
                [
                    ("POST", f"/api/{model['plural']}"),
                    ("POST", f"/api/{model['plural']}"),
                    ("PUT", f"/api/{model['plural']}/{entry}"),
                    ("PUT", f"/api/{model['plural']}/{entry}"),
                    ("DELETE", f"/api/{model['plural']}/{entry}"),
                    ("POST", f"/api/{model['plural']}/{entry}/localizations"),
                ]
            )
        )
    if path.endswith("/localizations"):
        data = draw(entry_data(uid))
        body: Any = {**data, "locale": draw(st.sampled_from(["fr", "en", "de", "", None, 1]))}
        return method, path, _dumps(body)
    envelope = draw(st.integers(0, 9))
    if envelope == 0:  # not JSON at all, or not the envelope
        raw = draw(st.one_of(st.binary(max_size=40), st.sampled_from([b"", b"{", b"[]", b"null"])))
        return method, path, raw
    if envelope == 1:
        return method, path, _dumps(draw(ANY_JSON))
    data = draw(entry_data(uid))
    if draw(st.booleans()):  # mostly valid: the required attributes first
        data = {**_required(uid, draw(st.integers(0, 10**6))), **data}
    return method, path, _dumps({"data": data})


def _required(uid: str, n: int) -> dict[str, Any]:
    return {
        "api::article.article": {"title": f"Fuzzed {n}"},
        "api::author.author": {"name": f"Fuzzer {n}", "email": f"fuzz{n}@example.com"},
        "api::category.category": {"name": f"Fuzzed {n}", "slug": f"fuzzed-{n}"},
        "api::global.global": {"siteName": f"Site {n}"},
    }.get(uid, {})


@fuzz(50)
@given(request=write_request())
async def test_fuzzed_writes_answer_in_the_contract_shape_and_leave_nothing_on_4xx(
    blog, backend, request
):
    method, path, body = request
    before = await snapshot(blog)
    response = await blog.client.request(
        method, path, content=body, headers={**ADMIN, "content-type": "application/json"}
    )
    if is_rest_error(response, backend) is not None:
        assert await snapshot(blog) == before, (response.status_code, response.text)
