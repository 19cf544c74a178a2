"""A small port of yup 0.32's cast-then-validate, for the schemas Strapi writes in yup.

Strapi 4.25 validates a ``blocks`` attribute with a yup schema (``entries/blocks.py`` holds it
as data) and stores what yup *casts*, so both halves matter to a client: ``"text": 5`` is
stored as ``"5"``, ``"bold": "1"`` as ``true``, a ``"level": "2"`` as ``2``, an attribute that
is not an array as ``null``. The nodes here reproduce yup's behaviour for the kinds that schema
uses — string, number, boolean, mixed, object, array and ``lazy`` (choose a schema by the
value's ``type``) — with ``abortEarly: false``: every problem at once, each with yup's path
and Strapi's messages (its ``notType`` override and ``printValue``).

Consumes JSON values (``MISSING`` stands for JavaScript's ``undefined``: an absent key);
produces the cast value and ``FieldError``s. Not reproduced: the order in which yup's
asynchronous tests *complete*, which decides the order of errors of different array items
when they sit at different depths; here they come in document order (the same set).

One concept, kept in one module although it is a little over 400 lines: the schema nodes share
yup's cast and error-collection protocol, and reading them side by side is how their behaviour
is checked against yup's (``tests/vectors/blocks-validator.json``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from contentapi.entries.messages import MESSAGES, print_value
from contentapi.errors import FieldError
from contentapi.js import MISSING, is_number, js_parse_float, js_string, js_to_number

__all__ = [
    "MISSING",
    "ArrayNode",
    "BooleanNode",
    "Choice",
    "Invalid",
    "MixedNode",
    "Node",
    "NumberNode",
    "ObjectNode",
    "StringNode",
]

Path = tuple[str | int, ...]


_REQUIRED = "{path} is a required field"
_ONE_OF = "{path} must be one of the following values: {values}"


def _label(path: Path) -> str:
    """yup's path text: ``body[0].children[1].text``."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def _same(a: Any, b: Any) -> bool:
    """JavaScript's ``a === b`` for JSON values (objects and arrays by identity)."""
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return a is b
    if a is MISSING or b is MISSING or a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    return type(a) is type(b) and a == b


def _child(original: Any, key: str | int) -> Any:
    """``original[key]`` as JavaScript reads it (the "cast from" part of a message uses the
    value as sent, even when the parent was sent as a JSON string)."""
    if isinstance(original, dict) and isinstance(key, str):
        return original.get(key, MISSING)
    if isinstance(original, list | str) and isinstance(key, int):
        return original[key] if key < len(original) else MISSING
    return MISSING


def _parse_json_text(value: Any) -> Any:
    """yup's object and array transforms read a string as JSON (``null`` when it is not)."""
    try:
        return json.loads(value)
    except ValueError:
        return None


# ------------------------------------------------------------------ nodes


class Node:
    """One yup schema: ``cast`` (yup's transforms) then ``validate`` (on the cast value)."""

    type_name = "mixed"
    nullable = False
    required = False
    one_of: tuple[Any, ...] = ()
    #: custom tests: (message without placeholders, predicate on the value)
    checks: tuple[tuple[str, Callable[[Any], bool]], ...] = ()

    def resolve(self, value: Any) -> Node:
        return self

    def default(self) -> Any:
        return MISSING

    def transform(self, value: Any) -> Any:
        return value

    def cast(self, value: Any) -> Any:
        if value is MISSING:
            return self.default()
        return self.transform(value)

    def is_type(self, value: Any) -> bool:
        return (self.nullable and value is None) or self.type_check(value)

    def type_check(self, value: Any) -> bool:
        return True

    def validate(
        self, value: Any, original: Any, path: Path, errors: list[FieldError], start: int = 0
    ) -> int:
        """yup's ``_validate`` with ``strict`` on (the value is cast already): the type and
        whitelist tests first, the other tests only when those pass, then the inner values.

        Returns the microtask tick at which yup's asynchronous run of this schema completes
        (each test takes one tick, started at ``start``): yup collects the errors of array
        items and object fields in the order they complete, so callers sort by it."""
        name = _label(path)
        own: list[FieldError] = []
        if value is not MISSING and not self.is_type(value):
            cast = original is not None and original is not MISSING and not _same(original, value)
            message = MESSAGES["type"].format(
                path=name, type=self.type_name, value=print_value(value)
            )
            if cast:
                message = message[:-1] + f" (cast from the value `{print_value(original)}`)."
            own.append(FieldError(path, message))
        if self.one_of and value is not MISSING and not any(_same(value, v) for v in self.one_of):
            values = ", ".join(js_string(v) for v in self.one_of)
            own.append(FieldError(path, _ONE_OF.format(path=name, values=values)))
        tick = start + 1
        if own:
            errors.extend(own)
            return tick
        if self.has_tests:
            own = self.tests(value, path)
            tick += 1
        nested: list[FieldError] = []
        if self.type_check(value) and value is not None:
            tick = self.validate_inner(value, original, path, nested, tick)
        errors.extend(nested)
        errors.extend(own)  # yup shows a parent's errors after the nested ones
        return tick

    @property
    def has_tests(self) -> bool:
        return self.required or bool(self.checks)

    def present(self, value: Any) -> bool:
        """yup's ``_isPresent``, what ``required`` tests."""
        return value is not None and value is not MISSING

    def tests(self, value: Any, path: Path) -> list[FieldError]:
        found = []
        if self.required and not self.present(value):
            found.append(FieldError(path, _REQUIRED.format(path=_label(path))))
        for message, passes in self.checks:
            if not passes(value):
                found.append(FieldError(path, message))
        return found

    def validate_inner(
        self, value: Any, original: Any, path: Path, errors: list[FieldError], start: int
    ) -> int:
        return start


@dataclass(frozen=True, eq=False)
class MixedNode(Node):
    """``yup.mixed()``: any value (``nullable`` or not)."""

    nullable: bool = False


@dataclass(frozen=True, eq=False)
class Invalid(Node):
    """The ``lazy`` fallback of Strapi's blocks schema: a mixed schema whose test always fails
    with ``message`` (no path in it, as Strapi wrote it)."""

    message: str = ""

    @property
    def has_tests(self) -> bool:
        return True

    def tests(self, value: Any, path: Path) -> list[FieldError]:
        return [FieldError(path, self.message)]


@dataclass(frozen=True, eq=False)
class StringNode(Node):
    """``yup.string()``: numbers and booleans cast to their JavaScript text."""

    required: bool = False
    nullable: bool = False
    one_of: tuple[Any, ...] = ()
    checks: tuple[tuple[str, Callable[[Any], bool]], ...] = ()
    type_name = "string"

    def type_check(self, value: Any) -> bool:
        return isinstance(value, str)

    def present(self, value: Any) -> bool:
        # yup's string: an empty string is not present (`"createdAt": ""` is "required")
        return super().present(value) and value != ""

    def transform(self, value: Any) -> Any:
        if isinstance(value, str | list | dict) or value is None:
            return value  # an object's text is "[object Object]": yup keeps the object
        return js_string(value)


@dataclass(frozen=True, eq=False)
class NumberNode(Node):
    """``yup.number()``: strings read as JavaScript's ``Number``, else ``parseFloat``."""

    required: bool = False
    one_of: tuple[Any, ...] = ()
    type_name = "number"

    def type_check(self, value: Any) -> bool:
        return is_number(value) and not (isinstance(value, float) and math.isnan(value))

    def transform(self, value: Any) -> Any:
        parsed: Any = value
        if isinstance(parsed, str):
            parsed = re.sub(r"\s", "", parsed)
            if parsed == "":
                return math.nan
            parsed = js_to_number(parsed)
        if self.is_type(parsed):
            return parsed
        if isinstance(parsed, float) and math.isnan(parsed):
            return parsed
        return js_parse_float(parsed)


@dataclass(frozen=True, eq=False)
class BooleanNode(Node):
    """``yup.boolean()``: ``"true"``, ``"1"``, ``1`` are true; ``"false"``, ``"0"``, ``0``
    false (any case); anything else stays and fails the type test."""

    type_name = "boolean"

    def type_check(self, value: Any) -> bool:
        return isinstance(value, bool)

    def transform(self, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        text = js_string(value).lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        return value


@dataclass(frozen=True, eq=False)
class ObjectNode(Node):
    """``yup.object().shape(fields)``: fields cast in yup's node order (the declared order
    reversed), unknown keys kept; errors of the fields sorted by their keys' declared order."""

    fields: tuple[tuple[str, Node], ...] = ()
    required: bool = False
    type_name = "object"

    def type_check(self, value: Any) -> bool:
        return isinstance(value, dict)

    def default(self) -> Any:
        # yup builds the default from the shape (none without fields): only nested objects
        # with fields have one
        if not self.fields:
            return MISSING
        found = {}
        for key, node in self.fields:
            value = node.default()
            if value is not MISSING:
                found[key] = value
        return found

    def transform(self, value: Any) -> Any:
        if isinstance(value, str):
            value = _parse_json_text(value)
        if not isinstance(value, dict):
            return None
        known = dict(self.fields)
        order = [key for key, _ in reversed(self.fields)]
        order += [key for key in value if key not in known]
        cast: dict[str, Any] = {}
        changed = False
        for key in order:
            node = known.get(key)
            given = value.get(key, MISSING)
            if node is not None:
                result = node.resolve(given).cast(given)
                if result is not MISSING:
                    cast[key] = result
            elif given is not MISSING:
                cast[key] = given
            if not _same(cast.get(key, MISSING), given):
                changed = True
        return cast if changed else value

    def validate_inner(
        self, value: Any, original: Any, path: Path, errors: list[FieldError], start: int
    ) -> int:
        keys = [key for key, _ in self.fields]
        done: list[tuple[int, float, list[FieldError]]] = []
        for key, node in reversed(self.fields):  # yup starts the fields in node order
            found: list[FieldError] = []
            given = value.get(key, MISSING)
            at = (*path, key)
            tick = node.resolve(given).validate(given, _child(original, key), at, found, start)
            done.append((tick, _key_rank(keys, _label(at)), found))
        done.sort(key=lambda item: item[0])  # as they complete, then by the keys' order
        done.sort(key=lambda item: item[1])
        for _, _, found in done:
            errors.extend(found)
        return max((tick for tick, _, _ in done), default=start)


def _key_rank(keys: list[str], path_text: str) -> float:
    """yup's ``sortByKeyOrder``: the first declared key found anywhere in the error's path
    text (a substring test, as yup does it)."""
    for index, key in enumerate(keys):
        if key in path_text:
            return index
    return math.inf


@dataclass(frozen=True, eq=False)
class ArrayNode(Node):
    """``yup.array().of(items)``: a string read as JSON, anything not an array cast to
    ``null``; ``min`` is (count, message)."""

    items: Node = field(default_factory=MixedNode)
    min: tuple[int, str] | None = None
    required: bool = False
    nullable: bool = False
    type_name = "array"

    def type_check(self, value: Any) -> bool:
        return isinstance(value, list)

    def transform(self, value: Any) -> Any:
        if isinstance(value, str):
            value = _parse_json_text(value)
        if not isinstance(value, list):
            return None
        cast = [self.items.resolve(item).cast(item) for item in value]
        changed = any(not _same(a, b) for a, b in zip(cast, value, strict=True))
        return cast if changed else value

    @property
    def has_tests(self) -> bool:
        return self.min is not None or self.required

    def tests(self, value: Any, path: Path) -> list[FieldError]:
        found = []
        if self.min is not None and isinstance(value, list) and len(value) < self.min[0]:
            found.append(FieldError(path, self.min[1]))
        return found + super().tests(value, path)

    def validate_inner(
        self, value: Any, original: Any, path: Path, errors: list[FieldError], start: int
    ) -> int:
        done: list[tuple[int, list[FieldError]]] = []
        for index, item in enumerate(value):
            found: list[FieldError] = []
            node = self.items.resolve(item)
            tick = node.validate(item, _child(original, index), (*path, index), found, start)
            done.append((tick, found))
        done.sort(key=lambda item: item[0])  # yup lists the items' errors as they complete
        for _, found in done:
            errors.extend(found)
        return max((tick for tick, _ in done), default=start)


@dataclass(frozen=True, eq=False)
class Choice(Node):
    """``yup.lazy``: the schema for the value's ``type`` (an exact string match, as Strapi's
    ``switch``), else an ``Invalid`` node with ``message``. Strapi's own lazy functions read
    ``value.type`` of ``null`` and answer 500; here ``null`` is invalid like any other value.
    ``options`` is filled after creation, so a schema can hold itself (nested lists)."""

    message: str = ""
    options: dict[str, Node] = field(default_factory=dict)

    def resolve(self, value: Any) -> Node:
        kind = value.get("type") if isinstance(value, Mapping) else None
        if isinstance(kind, str) and kind in self.options:
            return self.options[kind]
        return Invalid(message=self.message)
