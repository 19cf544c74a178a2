"""PostgreSQL's ``jsonb`` order and text output, in Python, for SQLite's JSON columns.

Strapi's reference runs on PostgreSQL, where a ``json`` (or ``blocks``) attribute is a ``jsonb``
column: a filter such as ``$lt`` compares ``jsonb`` values, a sort orders by them, and the
case-insensitive operators read the column cast to text (``jsonb``'s own output format). SQLite
stores JSON as text; these two functions, registered on every SQLite connection by
``db.dialect``, give it the same answers:

- ``jsonb_key(text)``: a byte string whose byte-wise order is ``jsonb``'s order (PostgreSQL's
  documentation, "jsonb Indexing": Object > Array > Boolean > Number > String > Null; arrays by
  length, then element by element; objects by number of pairs, then key, value, key, … in
  storage order, shorter keys first; numbers by value, so ``2.50`` equals ``2.5``; strings
  byte-wise, as the reference's database collates them; an empty top-level array below every
  other value). SQLite compares and sorts BLOBs byte-wise, ``MIN``/``MAX`` included.
- ``jsonb_out(text)``: the text ``CAST(column AS VARCHAR)`` gives on PostgreSQL
  (``{"a": 1, "b": [1, 2.5]}``: a space after ``:`` and ``,``, keys in storage order).
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache
from typing import Any

from contentapi.caching import JSON_TEXTS

__all__ = ["SQLITE_JSONB_KEY", "SQLITE_JSONB_OUT", "json_text", "jsonb_key", "jsonb_out"]

SQLITE_JSONB_KEY = "jsonb_key"
SQLITE_JSONB_OUT = "jsonb_out"


def json_text(value: Any) -> str:
    """``JSON.stringify(value)``: how Strapi turns a filter value into a ``jsonb`` operand
    (``$eq=text`` compares with the JSON string ``"text"``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=JSON_TEXTS)
def _parse(text: str) -> Any:
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def _storage_order(obj: dict[str, Any]) -> list[str]:
    """``jsonb`` stores an object's keys shorter first, then byte-wise."""
    return sorted(obj, key=lambda k: (len(k.encode("utf-8", "surrogatepass")), _utf8(k)))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _string(text: str) -> bytes:
    # NUL escaped, then a terminator below every content byte: prefixes sort first
    return _utf8(text).replace(b"\x00", b"\x00\x01") + b"\x00\x00"


def _number(value: Decimal) -> bytes:
    if value.is_zero():
        return b"\x02"
    normal = value.normalize()
    digits = bytes(48 + d for d in normal.as_tuple().digits)
    exponent = normal.adjusted()
    if value > 0:
        return b"\x03" + (exponent + 2**31).to_bytes(4, "big") + digits + b"\x00"
    inverted = bytes(105 - d for d in digits)  # '9' - (d - '0') + '0'
    return b"\x01" + (2**31 - exponent).to_bytes(4, "big") + inverted + b"\xff"


def _nested(value: Any) -> bytes:
    """An element's key; self-delimiting, so a concatenation sorts element by element."""
    if value is None:
        return b"\x01"
    if isinstance(value, str):
        return b"\x02" + _string(value)
    if isinstance(value, bool):
        return b"\x04" + (b"\x01" if value else b"\x00")
    if isinstance(value, Decimal | int | float):
        return b"\x03" + _number(Decimal(value))
    if isinstance(value, list):
        return b"\x05" + len(value).to_bytes(8, "big") + b"".join(_nested(v) for v in value)
    body = b"".join(_string(k) + _nested(value[k]) for k in _storage_order(value))
    return b"\x06" + len(value).to_bytes(8, "big") + body


def _stored(value: str | float | None) -> str | None:
    """The JSON text SQLite hands over: a column declared ``JSON`` has numeric affinity, so a
    stored ``3`` or ``2.5`` comes back as a number."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def jsonb_key(text: str | float | None) -> bytes | None:
    """The sort key of a stored JSON text (``None`` for SQL ``NULL`` or unreadable text).

    At the top level PostgreSQL stores a scalar as a one-element array and compares the
    element counts first: ``[]`` sorts below any scalar, scalars below other arrays."""
    text = _stored(text)
    if text is None:
        return None
    try:
        value = _parse(text)
    except ValueError:
        return None
    if isinstance(value, list):
        if not value:
            return b"\x00"
        return b"\x02" + _nested(value)
    if isinstance(value, dict):
        return b"\x03" + _nested(value)
    return b"\x01" + _nested(value)


def _out(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f") if "E" in str(value) else str(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ", ".join(_out(v) for v in value) + "]"
    return "{" + ", ".join(f"{_quote(k)}: {_out(value[k])}" for k in _storage_order(value)) + "}"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_ESCAPES["\t"] = "\\t"


def _quote(text: str) -> str:
    """PostgreSQL's ``escape_json``: quotes, backslashes and control characters only."""
    out = []
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is None and char < " ":
            escaped = f"\\u{ord(char):04x}"
        out.append(escaped or char)
    return '"' + "".join(out) + '"'


def jsonb_out(text: str | float | None) -> str | None:
    """The stored JSON text as PostgreSQL prints the ``jsonb`` value."""
    text = _stored(text)
    if text is None:
        return None
    try:
        return _out(_parse(text))
    except ValueError:
        return text
