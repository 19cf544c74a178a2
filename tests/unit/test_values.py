"""``values.js_json``: JSON numbers as JavaScript's JSON.parse and JSON.stringify leave them."""

from __future__ import annotations

import math

import pytest

from contentapi.values import js_json

CASES = [
    (3.0, 3),
    (-0.0, 0),
    (3.5, 3.5),
    (10, 10),
    (2**53, 2**53),
    (2**53 + 1, 2**53),
    (1234567890123456789.0, 1234567890123456800),
    (-1234567890123456789.0, -1234567890123456800),
    (10**20, 1e20),
    (18446744073709551616, 1.8446744073709552e19),
    (123456789012345678901234567890, 1.2345678901234568e29),
    (10**400, None),
    (math.inf, None),
    (-math.inf, None),
    (1e21, 1e21),
    (1e-7, 1e-7),
    (True, True),
    (None, None),
    ("3.0", "3.0"),
    ({"a": [1.0, {"b": 2.0}]}, {"a": [1, {"b": 2}]}),
]


@pytest.mark.parametrize(("stored", "answered"), CASES)
def test_js_json_gives_javascript_numbers(stored, answered):
    result = js_json(stored)
    assert result == answered
    assert type(result) is type(answered)
