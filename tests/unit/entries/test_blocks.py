"""``parse_blocks`` against Strapi 4.25's own blocks validator.

``tests/vectors/blocks-validator.json`` holds what the real validator (run by
``tests/vectors/blocks-validator.js`` in the reference Strapi's ``node_modules``) answered for
hand-picked and seeded random values: the value it stores, or its message and every error
with its path, in its order. Its 500s (``null`` among the nodes) are not in the vectors: they
are 400s here, tested below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contentapi.entries.blocks import parse_blocks, valid_link
from contentapi.js import js_number_text, js_string
from contentapi.values import js_json

VECTORS_PATH = Path(__file__).resolve().parents[2] / "vectors" / "blocks-validator.json"
EXPECTED_VECTOR_COUNT = 686


def _vectors() -> list[Any]:
    if not VECTORS_PATH.is_file():
        return [pytest.param(None, id="vectors-missing")]  # missing vectors fail, never skip
    document = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    return [pytest.param(case, id=f"{index:03d}") for index, case in enumerate(document["vectors"])]


def test_every_vector_is_there():
    assert len(json.loads(VECTORS_PATH.read_text())["vectors"]) == EXPECTED_VECTOR_COUNT


@pytest.mark.parametrize("case", _vectors())
def test_blocks_answer_as_strapis_validator(case):
    assert case is not None, f"missing {VECTORS_PATH}"
    value, errors = parse_blocks(case["value"], ("body",), nullable=not case["required"])
    found = [[[str(key) for key in error.path], error.message] for error in errors]
    if "stored" in case:
        assert found == []
        assert js_json(value) == case["stored"]
    else:
        assert found == case["errors"]
        message = found[0][1] if len(found) == 1 else f"{len(found)} errors occurred"
        assert message == case["message"]


def test_casts_keep_yups_key_order_and_leave_untouched_values_as_sent():
    sent = [{"type": "paragraph", "children": [{"type": "text", "text": 5, "bold": "true"}]}]
    value, errors = parse_blocks(sent, ("body",), nullable=True)
    assert errors == []
    # what Strapi's JSON.stringify writes (yup builds a cast object in its reversed key order)
    assert json.dumps(value) == (
        '[{"children": [{"bold": true, "text": "5", "type": "text"}], "type": "paragraph"}]'
    )
    untouched = [{"type": "quote", "children": [{"type": "text", "text": "q"}]}]
    assert parse_blocks(untouched, ("body",), nullable=True)[0] is untouched


@pytest.mark.parametrize(
    "nodes", [[None], [{"type": "list", "format": "ordered", "children": [None]}]]
)
def test_null_among_nodes_is_an_invalid_node_not_a_crash(nodes):
    _, errors = parse_blocks(nodes, ("body",), nullable=True)
    assert [error.message for error in errors] in (
        ["Block node is of invalid type"],
        ["Inline node must be list-item or list"],
    )


@pytest.mark.parametrize(
    ("link", "valid"),
    [
        ("https://strapi.io", True),
        ("/about", True),
        ("//cdn.example.com/x", True),
        ("mailto:a@b.c", True),
        ("javascript:alert(1)", True),
        ("http://localhost:1337/api", True),
        ("https://[::1]/", True),
        ("ftp://files.example.com:21/a", True),
        ("", False),
        ("not a url", False),
        ("#top", False),
        ("example.com", False),
        ("https://", False),
        ("http://exa mple.com", False),
        ("http://example.com:99999", False),
    ],
)
def test_links_are_valid_as_the_url_constructor_says(link, valid):
    assert valid_link(link) is valid


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5, "5"),
        (2.5, "2.5"),
        (3.0, "3"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (2**60, "1152921504606847000"),
        (-0.0, "0"),
        (float("inf"), "Infinity"),
    ],
)
def test_numbers_print_as_javascript_prints_them(value, text):
    assert js_number_text(value) == text


def test_string_of_json_values_is_javascripts():
    assert [js_string(v) for v in (None, True, [1, [2, None]], {"a": 1})] == [
        "null",
        "true",
        "1,2,",
        "[object Object]",
    ]
