"""JSON and JSONB values are read by orjson where it reads them exactly as the standard library
does, and by the standard library everywhere else (db/engine.py ``json_loads``)."""

from __future__ import annotations

import json

import pytest

from contentapi.db.engine import json_loads

SAME_AS_THE_STANDARD_LIBRARY = [
    '{"a": 1, "b": [1, 2.5, "x", null, true], "c": {"d": -0.0}}',
    "9223372036854775807",
    "18446744073709551616",  # beyond 64 bits: orjson would read a float
    "-9223372036854775809",
    "[123456789012345678901234567890]",
    "1e400",  # orjson refuses; the standard library reads inf
    '"\\ud800"',  # a lone surrogate escape (SQLite's JSON text may hold one)
    "NaN",
    '{"a": 1, "a": 2}',
    "5e-324",
    "1.7976931348623157e308",
    '"\\u0000 é 😀"',
]


@pytest.mark.parametrize("text", SAME_AS_THE_STANDARD_LIBRARY)
def test_reads_what_the_standard_library_reads(text):
    assert repr(json_loads(text)) == repr(json.loads(text))


def test_malformed_text_still_raises():
    with pytest.raises(json.JSONDecodeError):
        json_loads("{")


def test_nested_huge_integers_are_exact():
    text = '{"a": [1, {"b": 123456789012345678901234567890}], "c": -99999999999999999999}'
    value = json_loads(text)
    assert value == {"a": [1, {"b": 123456789012345678901234567890}], "c": -99999999999999999999}
    assert type(value["c"]) is int
