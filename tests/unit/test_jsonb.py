"""``db/jsonb.py``: PostgreSQL's jsonb order and text output, which SQLite uses for JSON filters
and sorts. The order is the one the reference Strapi (PostgreSQL) gave for ``sort=metadata``."""

from __future__ import annotations

from contentapi.db.jsonb import json_text, jsonb_key, jsonb_out


def test_keys_sort_as_jsonb_on_the_reference():
    stored = [
        "[]",
        '"Zeta"',
        '"apple"',
        '"te%t"',
        '"text"',
        "2.5",
        "3",
        "false",
        "true",
        "[1, 2]",
        "[1, 3]",
        "[0, 5, 6]",
        '{"b": 1}',
        '{"float": 3}',
        '{"a": 1, "b": [1, 2.5, "x"]}',
        '{"zz": 1, "a": 2}',
    ]
    assert sorted(reversed(stored), key=jsonb_key) == stored


def test_numbers_compare_by_value():
    values = ["-100", "-2.51", "-2.5", "-0", "0.001", "1", "1e3", "1001.5"]
    keys = [jsonb_key(v) for v in values]
    assert keys == sorted(keys)
    assert jsonb_key("2.50") == jsonb_key("2.5") and jsonb_key("0") == jsonb_key("-0")
    # SQLite's numeric affinity hands a stored number over as a number
    assert jsonb_key(3) == jsonb_key("3") and jsonb_key(2.5) == jsonb_key("2.5")


def test_null_and_unreadable_text_have_no_key():
    assert jsonb_key(None) is None and jsonb_key("{nope") is None


def test_text_is_postgresql_jsonb_output():
    assert jsonb_out('{"zz":1,"a":[1,2.5,"x"],"b":{"c":null}}') == (
        '{"a": [1, 2.5, "x"], "b": {"c": null}, "zz": 1}'
    )
    assert jsonb_out('"é\\u00e9\\n\\u0001\\"\\\\"') == '"éé\\n\\u0001\\"\\\\"'
    assert jsonb_out("true") == "true" and jsonb_out(None) is None


def test_filter_values_are_stringified_as_javascript_does():
    assert json_text("text") == '"text"'
    assert json_text(3) == "3" and json_text(True) == "true"
    assert json_text("é") == '"é"'
