"""graphql-js's wording helpers (messages.py): quotes, ``inspect``, numbers, the 15.11 lexer."""

from __future__ import annotations

import pytest

from contentapi.graphql.messages import (
    control_character_15,
    js_inspect,
    js_number,
    js_stringify,
    requote,
    syntax_15,
)


@pytest.mark.parametrize(
    ("core", "js"),
    [
        ("Cannot query field 'x' on type 'Book'.", 'Cannot query field "x" on type "Book".'),
        (
            "Field 'data' of type '[A!]!' must have a selection of subfields."
            " Did you mean 'data { ... }'?",
            'Field "data" of type "[A!]!" must have a selection of subfields.'
            ' Did you mean "data { ... }"?',
        ),
        ("Argument 'Book.n(x:)' is required.", 'Argument "Book.n(x:)" is required.'),
        ("Unknown directive '@nope'.", 'Unknown directive "@nope".'),
        ("Variable '$a' is never used.", 'Variable "$a" is never used.'),
        # a printed string literal is never touched, quotes inside included
        (
            "Enum 'E' cannot represent non-enum value: \"it's 'A'\". Did you mean 'A'?",
            'Enum "E" cannot represent non-enum value: "it\'s \'A\'". Did you mean "A"?',
        ),
        ("Expected type 'F' to be a mapping.", 'Expected type "F" to be an object.'),
        (
            "Expected non-nullable type 'S!' not to be None.",
            'Expected non-nullable type "S!" not to be null.',
        ),
        ("Syntax Error: Unexpected '}'.", 'Syntax Error: Unexpected "}".'),
        ("Syntax Error: Unexpected character: '\"'.", "Syntax Error: Unexpected character: '\"'."),
        ("Syntax Error: Unexpected character: '''.", 'Syntax Error: Unexpected character: "\'".'),
        ("'Deep' exceeds", '"Deep" exceeds'),
        ("no quotes at all", "no quotes at all"),
    ],
)
def test_requote(core, js):
    assert requote(core) == js


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        ({"nosuch": {"eq": "x"}}, '{ nosuch: { eq: "x" } }'),
        ({"a": [1, {"b": {"c": 1}}]}, "{ a: [1, [Object]] }"),
        ({"n": [[[[1]]]], "t": {"in": [1]}}, "{ n: [[Array]], t: { in: [Array] } }"),
        ({"n": {}, "m": []}, "{ n: {}, m: [] }"),
        (list(range(11)), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... 1 more item]"),
        (list(range(13)), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... 3 more items]"),
        ({"a b": None, "": True}, "{ a b: null, : true }"),
        ('x"y\n\u00e9', '"x\\"y\\n\u00e9"'),
    ],
)
def test_js_inspect(value, printed):
    assert js_inspect(value) == printed


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1.5e-6, "0.0000015"),
        (123456789012345678901, "123456789012345680000"),
        (99999999999999999999999, "1e+23"),
        (2**53 + 1, "9007199254740992"),
        (0.1, "0.1"),
        (-1234.5, "-1234.5"),
        (1e300 * 1e10, "Infinity"),
    ],
)
def test_js_number(number, text):
    assert js_number(number) == text


def test_js_stringify():
    assert js_stringify({"a": [1.0, None, True, "x"], "b": {}}) == '{"a":[1,null,true,"x"],"b":{}}'


@pytest.mark.parametrize(
    ("core", "js15", "shift"),
    [
        (
            'Syntax Error: Unexpected character: "%".',
            'Syntax Error: Cannot parse the unexpected character "%".',
            0,
        ),
        (
            "Syntax Error: Unexpected character: U+00E9.",
            'Syntax Error: Cannot parse the unexpected character "\\u00E9".',
            0,
        ),
        (
            "Syntax Error: Unexpected character: U+0007.",
            'Syntax Error: Cannot contain the invalid character "\\u0007".',
            0,
        ),
        (
            "Syntax Error: Unexpected character: U+1F600.",
            'Syntax Error: Cannot parse the unexpected character "\\uD83D".',
            0,
        ),
        (
            'Syntax Error: Invalid character escape sequence: "\\x".',
            "Syntax Error: Invalid character escape sequence: \\x.",
            1,
        ),
        (
            'Syntax Error: Invalid Unicode escape sequence: "\\u12zz".',
            "Syntax Error: Invalid character escape sequence: \\u12zz.",
            1,
        ),
        (
            "Syntax Error: Expected Name, found <EOF>.",
            "Syntax Error: Expected Name, found <EOF>.",
            0,
        ),
    ],
)
def test_syntax_15(core, js15, shift):
    assert syntax_15(core) == (js15, shift)


@pytest.mark.parametrize(
    ("query", "message", "column"),
    [
        ('{ a(s: "x\u0007") }', 'Syntax Error: Invalid character within String: "\\u0007".', 10),
        (
            '{ a(s: """x\u001f""") }',
            'Syntax Error: Invalid character within String: "\\u001f".',
            12,
        ),
        (
            "{ a } # note \u0002",
            'Syntax Error: Cannot contain the invalid character "\\u0002".',
            14,
        ),
    ],
)
def test_control_character_15(query, message, column):
    error = control_character_15(query)
    assert error.message == message
    assert error.locations[0].column == column


def test_no_control_character():
    assert control_character_15('{ a(s: "x\ty") }\r\n') is None


def test_directive_locations_by_name():
    assert requote("Directive '@skip' may not be used on fragment definition.") == (
        'Directive "@skip" may not be used on FRAGMENT_DEFINITION.'
    )
