"""One JSON Schema (as ``openapi/`` writes it) → one TypeScript type expression.

The OpenAPI document already derives every answered and accepted shape from the registry
(``openapi/models.py``, ``openapi/attributes.py``); translating its schemas instead of reading
the models again keeps one set of rules: a shape the document promises is the shape declared.
Only what TypeScript can say is kept (types, ``required``, ``enum``/``const``); bounds,
patterns and formats are the server's to check.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ts_type"]

_REF = "#/components/schemas/"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_PRIMITIVE = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}


def _union(parts: list[str]) -> str:
    unique = list(dict.fromkeys(parts))
    if len(unique) == 1:
        return unique[0]
    return " | ".join(f"({part})" if "=>" in part else part for part in unique)


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else json.dumps(name)


def _object(schema: dict[str, Any], indent: str) -> str:
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        return "Record<string, unknown>"
    required = set(schema.get("required", ()))
    inner = indent + "  "
    lines = [
        f"{inner}{_key(name)}{'' if name in required else '?'}: {ts_type(value, inner)};"
        for name, value in properties.items()
    ]
    return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def _of_type(kind: str, schema: dict[str, Any], indent: str) -> str:
    if kind == "array":
        items = schema.get("items")
        item = ts_type(items, indent) if items is not None else "unknown"
        return f"Array<{item}>"
    if kind == "object":
        return _object(schema, indent)
    return _PRIMITIVE[kind]


def ts_type(schema: dict[str, Any], indent: str = "") -> str:
    """The TypeScript type of the values ``schema`` accepts; ``{}`` → ``unknown``."""
    if "$ref" in schema:
        return str(schema["$ref"]).removeprefix(_REF)
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return _union([json.dumps(value) for value in schema["enum"]])
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return _union([ts_type(part, indent) for part in schema[combinator]])
    if "allOf" in schema:
        return " & ".join(ts_type(part, indent) for part in schema["allOf"])
    kind = schema.get("type")
    if kind is None:
        return "unknown"
    if isinstance(kind, list):
        return _union([_of_type(one, schema, indent) for one in kind])
    return _of_type(kind, schema, indent)
