"""graphql-js's wording where graphql-core writes its messages the Python way.

Strapi 4.25 answers with graphql-js's messages; graphql-core 3.2 ports them word for word but
quotes names with ``'`` (``Cannot query field 'nope' on type 'Book'.``) where graphql-js writes
``"``, and prints values as Python does (``{'a': None}``) where graphql-js's ``inspect`` writes
``{ a: null }``. graphql-core 3.3 keeps the ``'`` (and follows graphql-js 17's new wording), so
the rewording is done here (docs/graphql.md, "graphql-core 3.2 and the messages").

- ``requote``: graphql-core's quoted names, types and tokens in graphql-js's quotes; text inside
  a double-quoted value (a printed string literal) is never touched;
- ``js_inspect``: graphql-js's ``inspect`` (what ``Variable "$f" got invalid value …`` prints);
- ``js_stringify``: JavaScript's ``JSON.stringify`` (what graphql-scalars' messages print);
- ``js_number``: JavaScript's ``String(number)``.
"""

from __future__ import annotations

import re
from typing import Any

from graphql import GraphQLSyntaxError, Lexer, Source, TokenKind

from contentapi.js import js_number_text as js_number

__all__ = [
    "control_character_15",
    "js_inspect",
    "js_number",
    "js_stringify",
    "requote",
    "syntax_15",
]

#: A quoted name, ``$variable``, ``@directive``, ``Type.field``, ``[Type!]!``, ``field(arg:)``,
#: ``value.path[0]``, a punctuator, an escape sequence — never whitespace nor a quote — or the
#: selection hint ``'field { ... }'``.
_QUOTED = re.compile(r"'([^'\"\s]*(?: \{ \.\.\. \})?)'")
_DOUBLE_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Python words graphql-core's ``coerce_input_value`` uses where graphql-js has its own.
_PYTHONISMS = ((" to be a mapping.", " to be an object."), (" not to be None.", " not to be null."))


#: graphql-core names a directive location by its value (``fragment spread``), graphql-js by
#: its name (``FRAGMENT_SPREAD``).
_LOCATION = re.compile(r"( may not be used on )([a-z ]+)\.$")


def requote(message: str) -> str:
    """``Cannot query field 'x' on type 'Book'.`` → ``Cannot query field "x" on type "Book".``"""
    if "'" not in message and " to be " not in message:
        return message
    location = _LOCATION.search(message)
    if location is not None:
        name = location.group(2).upper().replace(" ", "_")
        message = f"{message[: location.start()]}{location.group(1)}{name}."
    for python, javascript in _PYTHONISMS:
        message = message.replace(python, javascript)
    out: list[str] = []
    position = 0
    length = len(message)
    while position < length:
        char = message[position]
        if char == "'":
            if message.startswith("'\"'", position):  # the lexer's '"' (graphql-js prints it so)
                out.append("'\"'")
                position += 3
                continue
            if message.startswith("'''", position):  # the lexer's quote character
                out.append('"\'"')
                position += 3
                continue
            quoted = _QUOTED.match(message, position)
            if quoted is not None:
                out.append(f'"{quoted.group(1)}"')
                position = quoted.end()
                continue
        elif char == '"':
            literal = _DOUBLE_QUOTED.match(message, position)
            if literal is not None:
                out.append(literal.group())
                position = literal.end()
                continue
        out.append(char)
        position += 1
    return "".join(out)


_MAX_ARRAY_LENGTH = 10
_MAX_RECURSIVE_DEPTH = 2


def js_inspect(value: Any) -> str:
    """graphql-js's ``inspect`` of a JSON value: ``{ a: [1, "x"], b: null }``; objects and
    arrays deeper than two levels are ``[Object]``/``[Array]``, arrays show ten items."""
    return _inspect(value, 0)


def _inspect(value: Any, depth: int) -> str:
    if value is None or isinstance(value, str | bool):
        return js_stringify(value)  # as JSON writes them; numbers differ (``NaN``, not ``null``)
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        if depth + 1 > _MAX_RECURSIVE_DEPTH:
            return "[Array]"
        items = [_inspect(item, depth + 1) for item in value[:_MAX_ARRAY_LENGTH]]
        remaining = len(value) - _MAX_ARRAY_LENGTH
        if remaining == 1:
            items.append("... 1 more item")
        elif remaining > 1:
            items.append(f"... {remaining} more items")
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        if depth + 1 > _MAX_RECURSIVE_DEPTH:
            return "[Object]"
        entries = (f"{key}: {_inspect(item, depth + 1)}" for key, item in value.items())
        return "{ " + ", ".join(entries) + " }"
    return str(value)


def js_string_of(value: Any) -> str:
    """JavaScript's ``String(value)`` of a JSON value (an array joins its items with ``,``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ",".join(js_string_of(item) for item in value)
    return "[object Object]"


def js_stringify(value: Any) -> str:
    """JavaScript's ``JSON.stringify`` of a JSON value (no spaces, numbers as JS writes them)."""
    if isinstance(value, str):
        return _js_string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        text = js_number(value)
        return text if text not in ("NaN", "Infinity", "-Infinity") else "null"
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{_js_string(str(k))}:{js_stringify(v)}" for k, v in value.items())
            + "}"
        )
    return _js_string(str(value))


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _js_string(text: str) -> str:
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " " or "\ud800" <= char <= "\udfff":  # controls, lone surrogates
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_CHARACTER = re.compile(r"Unexpected character: (?:U\+([0-9A-F]{4,6})|'(.)'|\"(.)\")\.")
_IN_STRING = re.compile(r"Invalid character within String: U\+([0-9A-F]{4,6})\.")
_ESCAPE = re.compile(r'Invalid (?:character|Unicode) escape sequence: "(\\[^"]*)"\.')


def _char_code(point: int) -> str:
    """graphql-js 15's ``printCharCode``: JSON for ASCII, else ``"\\uXXXX"`` of the UTF-16 unit
    (a character beyond the BMP shows its high surrogate)."""
    if point > 0xFFFF:
        point = 0xD800 + ((point - 0x10000) >> 10)
    if point < 0x7F:
        return _js_string(chr(point))
    return f'"\\u{point:04X}"'


def syntax_15(message: str) -> tuple[str, int]:
    """A syntax error's message (already requoted) as graphql-js 15.11 — the version Strapi 4.25
    runs — words its lexer's errors, and how many columns further it points:
    ``Unexpected character: "%".`` → ``Cannot parse the unexpected character "%".``,
    ``Invalid character escape sequence: "\\x".`` → ``… sequence: \\x.`` one column on."""
    matched = _CHARACTER.search(message)
    if matched is not None:
        hexa, single, double = matched.groups()
        point = int(hexa, 16) if hexa else ord(single or double)
        if point < 0x20:
            text = f"Cannot contain the invalid character {_char_code(point)}."
        else:
            text = f"Cannot parse the unexpected character {_char_code(point)}."
        return message[: matched.start()] + text + message[matched.end() :], 0
    matched = _IN_STRING.search(message)
    if matched is not None:
        text = f"Invalid character within String: {_char_code(int(matched.group(1), 16))}."
        return message[: matched.start()] + text + message[matched.end() :], 0
    matched = _ESCAPE.search(message)
    if matched is not None:
        text = f"Invalid character escape sequence: {matched.group(1)}."
        return message[: matched.start()] + text + message[matched.end() :], 1
    return message, 0


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def control_character_15(query: str) -> GraphQLSyntaxError | None:
    """graphql-js 15 refuses a control character (but tab, line feed, carriage return) anywhere
    in a document; graphql-core, as graphql-js 16, reads one inside a string or a comment. The
    first such character is 15's error unless its parser failed before (``execute.py`` keeps the
    earlier of the two) —
    ``Invalid character within String: "\\u0007".`` in a string, else (it ends a comment)
    ``Cannot contain the invalid character "\\u0007".``"""
    found = _CONTROL.search(query)
    if found is None:
        return None
    position = found.start()
    printed = _char_code(ord(found.group()))
    source = Source(query)
    lexer = Lexer(source)
    try:
        token = lexer.advance()
        while token.kind is not TokenKind.EOF and token.start <= position:
            if token.kind in (TokenKind.STRING, TokenKind.BLOCK_STRING) and position < token.end:
                return GraphQLSyntaxError(
                    source, position, f"Invalid character within String: {printed}."
                )
            token = lexer.advance()
    except GraphQLSyntaxError:  # graphql-core's lexer stops at it (or before: parse() says so)
        pass
    return GraphQLSyntaxError(source, position, f"Cannot contain the invalid character {printed}.")
