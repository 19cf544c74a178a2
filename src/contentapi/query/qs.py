"""A faithful pure-Python port of ``qs.parse`` (npm ``qs`` 6.11.1) as Strapi v4.25 calls it.

Consumes: the raw query string of a request (without the leading ``?``), exactly as it arrived.
Produces: a ``dict[str, Any]`` shaped like the object ``qs.parse`` returns. JavaScript objects
become dicts with string keys (in JavaScript's enumeration order: array-index keys ascending,
then the other keys in insertion order), JavaScript arrays become lists. Leaves are ``str``,
``None`` (a bare key such as ``a`` or ``a[]``, from ``strictNullHandling``) or ``True`` (what
``qs`` stores when a plain value is merged into an object: ``a[b]=1&a=2`` gives
``{"a": {"b": "1", "2": True}}``).

Why it exists: Strapi clients build their query strings with ``qs.stringify`` and the Strapi
query middleware reads them back with ``qs.parse(query, {strictNullHandling: true,
arrayLimit: 100, depth: 20})``. Every later stage (filters, sort, fields, populate,
pagination) works on that parsed object, so to accept the very same requests and reject the
very same oddities, this module reproduces ``qs.parse`` rule for rule rather than
approximating it: the 1,000-parameter limit, ``+`` as a space and the all-or-nothing
``decodeURIComponent`` fallback, the bracket-segment regex and the depth overflow segment,
the array limit (larger indexes make object keys), sparse arrays and their compaction, the
``utils.merge``/``utils.combine`` rules for repeated and conflicting keys, and the
``allowPrototypes: false`` rule that drops any key naming an ``Object.prototype`` property.

The other options keep their ``qs`` defaults (``allowDots``, ``comma``, ``plainObjects``,
``ignoreQueryPrefix``, ``charsetSentinel``, ``interpretNumericEntities`` off; ``parseArrays``
on; ``delimiter`` ``&``; charset UTF-8), so the code paths for them are not ported.

The function is pure, never raises on any ``str``, and runs in time roughly linear in the
input: repeated keys are appended in place and sparse arrays are bounded by the array limit.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["parse_query"]

_PARAMETER_LIMIT: Final = 1000
_ARRAY_LIMIT: Final = 100
_DEPTH: Final = 20

# Object.getOwnPropertyNames(Object.prototype): with allowPrototypes false, qs drops any key
# whose parent or (within depth) bracket segment is one of these, and never stores a merged
# plain value under one of these names.
_PROTOTYPE_NAMES: Final = frozenset(
    {
        "constructor",
        "__defineGetter__",
        "__defineSetter__",
        "hasOwnProperty",
        "__lookupGetter__",
        "__lookupSetter__",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toString",
        "valueOf",
        "__proto__",
        "toLocaleString",
    }
)

# qs makes an array for a bracket segment `[n]` when String(parseInt(n, 10)) === n, n >= 0 and
# n <= arrayLimit: that is exactly the canonical decimals 0..100.
_ARRAY_INDEX_SEGMENTS: Final = frozenset(str(index) for index in range(_ARRAY_LIMIT + 1))

# qs: /(\[[^[\]]*])/ — a bracket pair with no bracket inside.
_SEGMENT: Final = re.compile(r"\[[^\[\]]*\]")

# A run of well-formed percent escapes, captured so that re.split keeps it.
_ESCAPE_RUN: Final = re.compile(r"((?:%[0-9A-Fa-f]{2})+)")

# The largest JavaScript array index is 2**32 - 2; larger numeric keys are ordinary names.
_MAX_ARRAY_INDEX: Final = 2**32 - 2


class _Hole:
    """An empty slot of a JavaScript sparse array (``[, 'x']``); never in the final result."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<hole>"


_HOLE: Final = _Hole()


def parse_query(query: str) -> dict[str, Any]:
    """Parse ``query`` exactly as ``qs.parse(query, strapiOptions)`` does in qs 6.11.1."""
    if not query:
        return {}
    flat = _parse_values(query)
    result: dict[str, Any] = {}
    for key in _enumeration_order(flat):
        parsed = _parse_keys(key, flat[key])
        if parsed is not None:
            result = _merge(result, parsed)
    compacted: dict[str, Any] = _compact(result)
    return compacted


def _decode(text: str) -> str:
    """qs ``utils.decode``: ``+`` is a space, then ``decodeURIComponent`` or, if it throws,
    the whole string with only ``+`` replaced."""
    text = text.replace("+", " ")
    if "%" not in text:
        return text
    decoded: list[str] = []
    for position, piece in enumerate(_ESCAPE_RUN.split(text)):
        if position % 2:
            # decodeURIComponent throws on any escape sequence that is not well-formed
            # UTF-8 (truncated, overlong, surrogate, above U+10FFFF): so does strict UTF-8.
            try:
                decoded.append(bytes.fromhex(piece.replace("%", "")).decode("utf-8"))
            except ValueError:
                return text
        elif "%" in piece:
            return text  # a '%' not followed by two hex digits: URIError
        else:
            decoded.append(piece)
    return "".join(decoded)


def _parse_values(query: str) -> dict[str, Any]:
    """qs ``parseQueryStringValues``: split on ``&`` (at most 1000 parts), decode each key and
    value, and combine repeated keys into lists."""
    flat: dict[str, Any] = {}
    for part in query.split("&", _PARAMETER_LIMIT)[:_PARAMETER_LIMIT]:
        bracket_equals = part.find("]=")
        position = part.find("=") if bracket_equals == -1 else bracket_equals + 1
        value: str | None
        if position == -1:
            key = _decode(part)
            value = None  # strictNullHandling
        else:
            key = _decode(part[:position])
            value = _decode(part[position + 1 :])
        if key in flat:
            # utils.combine: [].concat(existing, value); values are never lists here (comma
            # is off), so appending to a list made by an earlier combine is equivalent.
            existing = flat[key]
            if isinstance(existing, list):
                existing.append(value)
            else:
                flat[key] = [existing, value]
        else:
            flat[key] = value
    return flat


def _is_array_index(key: str) -> bool:
    """Whether JavaScript treats ``key`` as an array index (enumerated first, ascending)."""
    return (
        0 < len(key) <= 10
        and key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and int(key) <= _MAX_ARRAY_INDEX
    )


def _enumeration_order(obj: dict[str, Any]) -> list[str]:
    """``Object.keys`` order: array-index keys ascending, then the rest in insertion order."""
    indexes = sorted((key for key in obj if _is_array_index(key)), key=int)
    if not indexes:
        return list(obj)
    return indexes + [key for key in obj if not _is_array_index(key)]


def _parse_keys(key: str, value: Any) -> Any:
    """qs ``parseQueryStringKeys``: split ``key`` into its parent and bracket segments and
    build the nested value. Returns ``None`` where qs returns ``undefined`` (key skipped)."""
    if not key:
        return None
    # Up to depth + 1 segments: the one past the depth starts the literal remainder.
    segments: list[re.Match[str]] = []
    for match in _SEGMENT.finditer(key):
        segments.append(match)
        if len(segments) > _DEPTH:
            break
    parent = key[: segments[0].start()] if segments else key
    chain: list[str] = []
    if parent:
        if parent in _PROTOTYPE_NAMES:
            return None
        chain.append(parent)
    for match in segments[:_DEPTH]:
        segment = match.group()
        if segment[1:-1] in _PROTOTYPE_NAMES:
            return None
        chain.append(segment)
    if len(segments) > _DEPTH:
        chain.append("[" + key[segments[_DEPTH].start() :] + "]")
    return _parse_object(chain, value)


def _parse_object(chain: list[str], value: Any) -> Any:
    """qs ``parseObject``: wrap ``value`` from the innermost segment outwards."""
    leaf = value
    for root in reversed(chain):
        node: Any
        if root == "[]":
            node = list(leaf) if isinstance(leaf, list) else [leaf]  # [].concat(leaf)
        else:
            bracketed = root.startswith("[") and root.endswith("]")
            clean = root[1:-1] if bracketed else root
            if bracketed and clean in _ARRAY_INDEX_SEGMENTS:
                node = [_HOLE] * int(clean)
                node.append(leaf)
            elif clean != "__proto__":
                node = {clean: leaf}
            else:
                node = {}
        leaf = node
    return leaf


def _is_js_falsy(value: Any) -> bool:
    """JavaScript falsiness for the values a parse can hold (lists and dicts are truthy)."""
    return value is None or value is _HOLE or value is False or value == ""


def _array_to_object(array: list[Any]) -> dict[str, Any]:
    """qs ``utils.arrayToObject``: the present slots of ``array`` under string indexes."""
    return {str(index): item for index, item in enumerate(array) if item is not _HOLE}


def _present_items(source: dict[str, Any] | list[Any]) -> list[tuple[str, Any]]:
    """``Object.keys(source)`` with the values, for an object or a sparse array."""
    if isinstance(source, list):
        return list(_array_to_object(source).items())
    return list(source.items())


def _merge(target: Any, source: Any) -> Any:
    """qs ``utils.merge`` with ``plainObjects`` and ``allowPrototypes`` off. Like the
    original, it may mutate ``target`` and returns the merged value."""
    if _is_js_falsy(source):
        return target

    if not isinstance(source, dict | list):
        if isinstance(target, list):
            target.append(source)
        elif isinstance(target, dict):
            if source not in _PROTOTYPE_NAMES:
                target[source] = True
        else:
            return [target, source]
        return target

    if not isinstance(target, dict | list):
        # [target].concat(source): an array source is spread, holes included.
        if isinstance(source, list):
            return [target, *source]
        return [target, source]

    if isinstance(target, list) and isinstance(source, list):
        # source.forEach skips holes; `target` grows while the loop runs, as in qs.
        for index, item in enumerate(source):
            if item is _HOLE:
                continue
            if index < len(target) and target[index] is not _HOLE:
                current = target[index]
                if isinstance(current, dict | list) and isinstance(item, dict | list):
                    target[index] = _merge(current, item)
                else:
                    target.append(item)
            elif index < len(target):
                target[index] = item
            else:
                target.extend([_HOLE] * (index - len(target)))
                target.append(item)
        return target

    merge_target: dict[str, Any] = _array_to_object(target) if isinstance(target, list) else target
    for key, value in _present_items(source):
        if key in merge_target:
            merge_target[key] = _merge(merge_target[key], value)
        else:
            merge_target[key] = value
    return merge_target


def _compact(value: Any) -> Any:
    """qs ``utils.compact`` (drop the holes of every array), also putting each object's keys
    in JavaScript's enumeration order."""
    if isinstance(value, list):
        return [_compact(item) for item in value if item is not _HOLE]
    if isinstance(value, dict):
        return {key: _compact(value[key]) for key in _enumeration_order(value)}
    return value
