"""Shared parts of the fuzz suites (``test_fuzz_*.py``): settings, value strategies, invariants.

Every property runs with a fixed seed and ``derandomize``, so ``make test`` sends the same
requests each time. ``CONTENTAPI_FUZZ_EXAMPLES`` multiplies the examples of every property
(``make fuzz`` sets it); :data:`STATS` counts the requests sent and the 5xx answers seen per
backend, printed at the end of the session.
"""

from __future__ import annotations

import json
import math
import os
import string
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st

from contentapi.query.operators import LOGICAL, OPERATORS

__all__ = [
    "ANY_JSON",
    "COLLECTIONS",
    "COMPONENTS",
    "CONTENT_TYPES",
    "FIELD_VALUES",
    "LOGICAL_NAMES",
    "OPERATOR_NAMES",
    "QUERY_VALUES",
    "SINGLE_TYPES",
    "STATS",
    "SYSTEM_NAMES",
    "count_response",
    "encode_query",
    "finite",
    "fuzz",
    "is_graphql_error_body",
    "is_rest_error",
]

SEED = 14
#: ``make fuzz`` sets it (24 by default): every property runs that many times more examples
#: than in ``make test``, whose counts are kept small for the suite's time.
SCALE = max(1, int(os.environ.get("CONTENTAPI_FUZZ_EXAMPLES", "1")))

#: ``STATS["sqlite requests"]``, ``STATS["postgres 4xx"]``, … for the session summary.
STATS: Counter[str] = Counter()


def fuzz(examples: int):
    """The decorators of one property: ``examples`` (times ``SCALE``), fixed and derandomized."""

    def wrap(test):
        configured = settings(
            max_examples=examples * SCALE,
            derandomize=True,
            database=None,
            deadline=None,
            print_blob=True,
            suppress_health_check=list(HealthCheck),
        )(test)
        return seed(SEED)(configured)

    return wrap


def count_response(backend: str, response: httpx.Response) -> None:
    STATS[f"{backend} requests"] += 1
    STATS[f"{backend} {response.status_code // 100}xx"] += 1


def is_rest_error(response: httpx.Response, backend: str) -> dict[str, Any] | None:
    """Asserts the REST invariants: never a 5xx, and any error in the contract's shape.
    Returns the error object (None for a 2xx)."""
    count_response(backend, response)
    assert response.status_code < 500, (response.status_code, response.text[:2000])
    if response.status_code < 400:
        return None
    body = response.json()
    assert set(body) == {"data", "error"}, body
    assert body["data"] is None, body
    error = body["error"]
    assert set(error) == {"status", "name", "message", "details"}, error
    assert error["status"] == response.status_code, error
    assert isinstance(error["name"], str) and error["name"].endswith("Error"), error
    assert isinstance(error["message"], str), error
    assert isinstance(error["details"], dict), error
    return error


_APOLLO_INTERNAL = {
    "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.",
    "Variables must be provided as an Object where each property is a variable value. "
    "Perhaps look to see if an unparsed JSON string was provided.",
    "Schema is not configured for subscriptions.",
    "Must provide operation name if query contains multiple operations.",
    "Must provide an operation.",
}


def _apollo_internal(message: str, status: int) -> bool:
    if message == "GET supports only query operation":
        return status == 405
    # 400 alone, 200 inside a batch
    return message in _APOLLO_INTERNAL or message.startswith("Unknown operation named ")


def is_graphql_error_body(response: httpx.Response, backend: str) -> dict[str, Any]:
    """Asserts the GraphQL invariants: never a 5xx, never an internal error, every error
    Apollo-shaped (``message`` and ``extensions.code``; ours also ``extensions.error``)."""
    count_response(backend, response)
    assert response.status_code < 500, (response.status_code, response.text[:2000])
    body = response.json()
    if response.status_code == 401:  # a bad credential: the REST error body
        is_rest_error(response, backend="-")
        return body
    bodies = body if isinstance(body, list) else [body]
    for one in bodies:
        assert isinstance(one, dict), body
        for error in one.get("errors") or []:
            assert isinstance(error["message"], str), error
            code = error["extensions"]["code"]
            # Apollo's own answers with this code: a mutation over GET (405), a request without
            # a query or with unusable variables, an operation that cannot be chosen or run (as
            # the reference Strapi answers).
            if not _apollo_internal(error["message"], response.status_code):
                assert code != "INTERNAL_SERVER_ERROR", error
            assert "Internal Server Error" not in error["message"], error
            if "error" in error["extensions"]:
                assert set(error["extensions"]["error"]) == {"name", "message", "details"}
    return body


def encode_query(pairs: list[tuple[str, str | None]], raw_brackets: bool) -> str:
    """``qs``'s two encodings: brackets kept (``encodeValuesOnly``) or all percent-encoded;
    ``None`` is a key without ``=`` (``strictNullHandling``)."""
    safe = "[]$" if raw_brackets else ""
    parts = []
    for key, value in pairs:
        encoded = quote(key, safe=safe)
        parts.append(encoded if value is None else f"{encoded}={quote(value, safe='')}")
    return "&".join(parts)


OPERATOR_NAMES = sorted(OPERATORS)
LOGICAL_NAMES = sorted(LOGICAL)

_WEIRD_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40
)
_NUMBERS_AS_TEXT = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "0x10", "1_000", " 1 "]),
)
#: A query-string value: numbers of every size, dates, booleans, unicode, NUL bytes, empty.
QUERY_VALUES = st.one_of(
    _NUMBERS_AS_TEXT,
    _WEIRD_TEXT,
    st.sampled_from(
        [
            "",
            "true",
            "false",
            "null",
            "\x00",
            "a\x00b",
            "%",
            "_",
            "2024-01-10",
            "2024-13-45",
            "2024-01-10T04:00:00.000Z",
            "10:20:30",
            "25:61:61",
            "news",
            "Hello World",
            "*",
            "[object Object]",
            "😀" * 50,
            "x" * 5000,
        ]
    ),
)

_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    _WEIRD_TEXT,
)
#: Any JSON value (orjson refuses NaN, so they come as text).
ANY_JSON = st.recursive(
    _JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)


def _digits(size: int) -> st.SearchStrategy[str]:
    return st.text(string.digits, min_size=size, max_size=size)


#: Values aimed at each attribute type (plus anything at all, some of the time).
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": st.one_of(_WEIRD_TEXT, st.text(min_size=100, max_size=300)),
    "text": _WEIRD_TEXT,
    "richtext": _WEIRD_TEXT,
    "email": st.one_of(st.emails(), _WEIRD_TEXT),
    "uid": st.one_of(st.from_regex(r"\A[A-Za-z0-9\-_.~]{1,20}\Z"), _WEIRD_TEXT),
    "enumeration": st.one_of(st.sampled_from(["news", "opinion", "tutorial"]), _WEIRD_TEXT),
    "integer": st.one_of(
        st.integers(min_value=-(2**64), max_value=2**64), st.just(2**31), _NUMBERS_AS_TEXT
    ),
    "biginteger": st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70), _NUMBERS_AS_TEXT, _digits(30)
    ),
    "float": st.one_of(st.floats(allow_nan=False, allow_infinity=False), _NUMBERS_AS_TEXT),
    "decimal": st.one_of(
        st.floats(allow_nan=False, allow_infinity=False), st.decimals(places=3).map(str)
    ),
    "boolean": st.one_of(st.booleans(), st.sampled_from(["true", "0", "1", "t", "yes", 2])),
    "date": st.one_of(st.dates().map(str), st.sampled_from(["2024-02-30", "99999-01-01"])),
    "time": st.one_of(st.times().map(str), st.sampled_from(["24:00:00", "10:20", "1:2:3.45"])),
    "datetime": st.one_of(
        st.datetimes().map(lambda d: d.isoformat() + "Z"),
        st.sampled_from(["2024-01-10T04:00:00.000Z", "0000-00-00T00:00:00Z", "+275760-09-13"]),
    ),
    "timestamp": st.one_of(
        st.integers(min_value=-(2**60), max_value=2**60), st.datetimes().map(str)
    ),
    "json": ANY_JSON,
    "password": _WEIRD_TEXT,
}


def finite(value: Any) -> Any:
    """A JSON body cannot carry NaN; keep the number otherwise."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


# --- The example models, read from content-types/ (the strategies are built at import) ---

_ROOT = Path(__file__).resolve().parents[3] / "content-types"


def _load_models() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    types: dict[str, dict[str, Any]] = {}
    for path in sorted(_ROOT.glob("*.json")):
        document = json.loads(path.read_text())
        info = document["info"]
        types[f"api::{info['singularName']}.{info['singularName']}"] = {
            "kind": document["kind"],
            "plural": info["pluralName"],
            "singular": info["singularName"],
            "attributes": document["attributes"],
        }
    components: dict[str, dict[str, Any]] = {}
    for path in sorted(_ROOT.glob("components/*/*.json")):
        components[f"{path.parent.name}.{path.stem}"] = json.loads(path.read_text())["attributes"]
    return types, components


CONTENT_TYPES, COMPONENTS = _load_models()
COLLECTIONS = [uid for uid, model in CONTENT_TYPES.items() if model["kind"] == "collectionType"]
SINGLE_TYPES = [uid for uid, model in CONTENT_TYPES.items() if model["kind"] == "singleType"]
#: Names every content type answers to besides its attributes.
SYSTEM_NAMES = ["id", "createdAt", "updatedAt", "publishedAt", "locale", "localizations"]
