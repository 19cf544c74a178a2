"""One attribute → its JSON Schema (OpenAPI 3.1), as a client sends it and as it is answered.

Two tables keyed by attribute type, one per direction, mirroring ``values.py`` (parsing and
rendering) and ``entries/scalar_input.py`` (the rules a body must keep): what a schema promises is
what the server does. Answers are loose where the server is (every attribute may be absent —
``fields`` — or null); request schemas carry the model's rules (required, enum, min/max,
lengths, regex, the 255-character ``varchar`` columns).

Relations, media, components and dynamic zones refer to shared schemas by name through
``ref`` (``openapi/models.py`` and ``openapi/shared_schemas.py`` define them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contentapi.entries.scalar_input import UID_PATTERN
from contentapi.schema.model import (
    Attribute,
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    RelationAttribute,
    ScalarAttribute,
)

__all__ = ["Ref", "input_schema", "nullable", "output_schema"]

Ref = Callable[[str], dict[str, Any]]
Schema = dict[str, Any]

_INT32 = (-(2**31), 2**31 - 1)
#: ``numeric(10,2)``: a decimal's magnitude stays below 10**8.
_DECIMAL_LIMIT = 10**8
#: Types stored in ``varchar(255)`` columns (``entries/scalar_input.py``).
_VARCHAR = frozenset({"string", "email", "uid", "enumeration"})
_TIME_PATTERN = r"^\d{2}:\d{2}:\d{2}(\.\d{1,3})?$"
_DIGITS = r"^-?\d+$"

#: one node of a ``blocks`` value (Strapi's Blocks editor; ``entries/blocks.py`` checks the rest)
_BLOCK_NODE: Schema = {
    "type": "object",
    "properties": {
        "type": {
            "type": "string",
            "enum": ["paragraph", "heading", "quote", "code", "list", "image"],
        },
        "children": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["type"],
}
_BLOCKS: Schema = {
    "type": "array",
    "items": _BLOCK_NODE,
    "description": "rich text of the Blocks editor: block nodes holding text and link nodes",
}

_OUTPUT: dict[str, Schema] = {
    "string": {"type": "string"},
    "text": {"type": "string"},
    "richtext": {"type": "string"},
    "email": {"type": "string"},
    "uid": {"type": "string"},
    "enumeration": {"type": "string"},
    "integer": {"type": "integer"},
    "biginteger": {"type": "string", "pattern": _DIGITS, "example": "9007199254740993"},
    "float": {"type": "number"},
    "decimal": {"type": "number"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "format": "date", "example": "2024-05-17"},
    "time": {"type": "string", "pattern": r"^\d{2}:\d{2}:\d{2}(\.\d+)?$", "example": "20:28:00"},
    "datetime": {"type": "string", "format": "date-time", "example": "2024-05-17T08:30:00.000Z"},
    "timestamp": {
        "type": "string",
        "pattern": _DIGITS,
        "description": "epoch milliseconds",
        "example": "1715934600000",
    },
    "json": {},
    "array": {"type": "array"},
    "blocks": _BLOCKS,
}

_INPUT: dict[str, Schema] = {
    **_OUTPUT,
    "email": {"type": "string", "format": "email"},
    "uid": {"type": "string", "pattern": UID_PATTERN},
    "password": {"type": "string"},
    "biginteger": {
        "type": ["string", "integer"],
        "pattern": _DIGITS,
        "minimum": -(2**63),
        "maximum": 2**63 - 1,
        "description": "a 64-bit integer; send it as a string beyond 2**53",
    },
    "time": {"type": "string", "pattern": _TIME_PATTERN, "example": "20:28:00"},
    "datetime": {
        "type": "string",
        "format": "date-time",
        "description": "ISO 8601 (UTC when no offset is given)",
        "example": "2024-05-17T08:30:00.000Z",
    },
    "timestamp": {
        "type": ["string", "integer"],
        "description": "an ISO 8601 datetime or epoch milliseconds",
        "example": "2024-05-17T08:30:00.000Z",
    },
}


def nullable(schema: Schema) -> Schema:
    """``schema`` or ``null``."""
    if not schema:
        return schema  # any JSON value already
    kind = schema.get("type")
    if isinstance(kind, str) and "$ref" not in schema:
        result = {**schema, "type": [kind, "null"]}
        if "enum" in result:
            result["enum"] = [*result["enum"], None]
        return result
    if isinstance(kind, list) and "null" not in kind:
        return {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _scalar_output(attribute: ScalarAttribute) -> Schema:
    schema = dict(_OUTPUT[attribute.type])
    if attribute.type == "enumeration":
        schema["enum"] = list(attribute.enum)
    return nullable(schema)


def _scalar_input(attribute: ScalarAttribute) -> Schema:
    schema = dict(_INPUT[attribute.type])
    kind = attribute.type
    if kind in ("string", "text", "richtext", "email", "uid", "password"):
        if attribute.min_length is not None:
            schema["minLength"] = attribute.min_length
        limit = attribute.max_length
        if kind in _VARCHAR:
            limit = min(limit, 255) if limit is not None else 255
        if limit is not None:
            schema["maxLength"] = limit
        if attribute.regex is not None:
            schema["pattern"] = attribute.regex
    elif kind == "enumeration":
        schema["enum"] = list(attribute.enum)
    elif kind in ("integer", "float", "decimal", "biginteger"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if kind == "integer":
            low, high = _INT32
        if attribute.min is not None:
            low = attribute.min if low is None else max(low, attribute.min)
        if attribute.max is not None:
            high = attribute.max if high is None else min(high, attribute.max)
        if low is not None:
            schema["minimum"] = low
        if high is not None:
            schema["maximum"] = high
        if kind == "decimal":
            schema.setdefault("exclusiveMinimum", -_DECIMAL_LIMIT)
            schema.setdefault("exclusiveMaximum", _DECIMAL_LIMIT)
            schema["description"] = "rounded half away from zero to two decimals"
    if attribute.has_default and attribute.default is not None:
        schema["default"] = attribute.default
    if attribute.unique:
        schema["description"] = "unique among the entries"
    return schema if attribute.required else nullable(schema)


def output_schema(attribute: Attribute, ref: Ref) -> Schema | None:
    """The answered value of a populated attribute; ``None``: never answered (private,
    password)."""
    if attribute.private:
        return None
    if isinstance(attribute, ScalarAttribute):
        return None if attribute.type == "password" else _scalar_output(attribute)
    if isinstance(attribute, RelationAttribute):
        entry = ref(f"{attribute.target}#entry")
        if attribute.is_to_many:
            return {
                "type": "object",
                "properties": {
                    "data": {"anyOf": [{"type": "array", "items": entry}, ref("RelationCountData")]}
                },
                "description": "present when populated",
            }
        return {
            "type": "object",
            "properties": {"data": nullable(entry)},
            "description": "present when populated",
        }
    if isinstance(attribute, MediaAttribute):
        files = ref("plugin::upload.file#entry")
        data = {"type": "array", "items": files} if attribute.multiple else files
        return {
            "type": "object",
            "properties": {"data": nullable(data)},
            "description": "present when populated",
        }
    if isinstance(attribute, ComponentAttribute):
        item = ref(f"{attribute.component}#output")
        value = {"type": "array", "items": item} if attribute.repeatable else item
        return {**nullable(value), "description": "present when populated"}
    assert isinstance(attribute, DynamicZoneAttribute)
    return {
        "type": "array",
        "items": {"oneOf": [ref(f"{uid}#zone-output") for uid in attribute.components]},
        "description": "present when populated",
    }


def input_schema(attribute: Attribute, ref: Ref) -> Schema | None:
    """What a body may send for the attribute (``None``: not writable)."""
    if isinstance(attribute, ScalarAttribute):
        return _scalar_input(attribute)
    if isinstance(attribute, RelationAttribute):
        return ref("RelationInput")
    if isinstance(attribute, MediaAttribute):
        if attribute.multiple:
            return nullable({"type": "array", "items": ref("FileReference")})
        return nullable(ref("FileReference"))
    if isinstance(attribute, ComponentAttribute):
        item = ref(f"{attribute.component}#input")
        if not attribute.repeatable:
            return item if attribute.required else nullable(item)
        many: Schema = {"type": "array", "items": item}
        if attribute.min is not None:
            many["minItems"] = attribute.min
        if attribute.max is not None:
            many["maxItems"] = attribute.max
        return many if attribute.required else nullable(many)
    assert isinstance(attribute, DynamicZoneAttribute)
    zone: Schema = {
        "type": "array",
        "items": {"oneOf": [ref(f"{uid}#zone-input") for uid in attribute.components]},
    }
    if attribute.min is not None:
        zone["minItems"] = attribute.min
    if attribute.max is not None:
        zone["maxItems"] = attribute.max
    return zone if attribute.required else nullable(zone)
