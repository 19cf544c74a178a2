"""Which filter operators the query parser accepts on an attribute of each type, and the
TypeScript shape of a ``filters`` object per content type.

The operators come from the tables the parser reads (``query/operators.py``,
``query/jsonb.py``, ``query/parse/filters.py``, ``db/pgtext.py``) under the parser's rules:
string operators on string kinds; their case-insensitive forms on numbers and dates too
(matched as text); on JSON the comparisons and the case-insensitive text operators; on
``array`` only ``$null``/``$notNull``. ``tests/api/typescript`` asks the server about every
pair, so the two cannot drift apart silently.
"""

from __future__ import annotations

from contentapi.db.pgtext import TEXT_KINDS
from contentapi.openapi.parameters import readable_fields
from contentapi.query.jsonb import JSON_OPERATORS, JSON_TEXT_OPERATORS
from contentapi.query.operators import OPERATORS, STRING_KINDS
from contentapi.query.parse.filters import CASE_SENSITIVE_LIKE
from contentapi.schema.model import ContentType, RelationAttribute, ScalarAttribute
from contentapi.schema.registry import Registry
from contentapi.schema.type_names import type_name

__all__ = ["accepted_operators", "content_type_filters", "filter_types"]

#: blocks are filtered as JSON (``query/fields.py``)
_QUERY_KIND = {"blocks": "json"}
_NUMBERS = frozenset({"integer", "float", "decimal"})
#: the kinds of the attributes every content type has beside its own
_BUILT_IN_FIELDS = {"createdAt": "datetime", "updatedAt": "datetime", "publishedAt": "datetime"}


def _applies(operator: str, kind: str) -> bool:
    """A comparison on a plain column: string operators on strings, their case-insensitive
    forms on the kinds compared as text."""
    if not OPERATORS[operator].strings_only or kind in STRING_KINDS:
        return True
    return kind in TEXT_KINDS and operator not in CASE_SENSITIVE_LIKE


def accepted_operators(kind: str) -> list[str]:
    """The operators (``$eq``, …) a filter on an attribute of type ``kind`` may use."""
    kind = _QUERY_KIND.get(kind, kind)
    found = []
    for name, spec in OPERATORS.items():
        if spec.shape == "boolean":
            found.append(name)
        elif kind == "json":
            if name in JSON_OPERATORS or name in JSON_TEXT_OPERATORS:
                found.append(name)
        elif kind == "array":
            continue
        elif _applies(name, kind):
            found.append(name)
    return found


def _value(kind: str, enum: tuple[str, ...] = ()) -> str:
    if enum:
        return " | ".join(f'"{value}"' for value in enum)
    if kind in _NUMBERS:
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind in ("json", "blocks"):
        return "string | number | boolean"
    return "string"  # strings, dates, times, biginteger and timestamps as text


def _filter_name(kind: str) -> str:
    return "".join(part.title() for part in kind.split("_")) + "Filter"


def _filter_type(kind: str, value: str) -> str:
    shapes = {"scalar": value, "list": f"Array<{value}>", "pair": f"[{value}, {value}]"}
    lines = []
    for name in accepted_operators(kind):
        shape = OPERATORS[name].shape
        operand = "boolean" if shape == "boolean" else shapes[shape]
        if name in JSON_TEXT_OPERATORS or OPERATORS[name].strings_only:
            operand = "string" if shape == "scalar" else operand
        lines.append(f"  {name}?: {operand};")
    return "{\n" + "\n".join(lines) + "\n}"


def filter_types(registry: Registry) -> list[str]:
    """``IntegerFilter``, ``StringFilter``, …: one per attribute type the models use."""
    kinds = {"integer", "datetime", "string"}  # id, timestamps, locale
    for content_type in registry.content_types.values():
        kinds.update(
            a.type for a in content_type.attributes.values() if isinstance(a, ScalarAttribute)
        )
    kinds.discard("password")
    return [
        f"export type {_filter_name(kind)} = {_filter_type(kind, _value(kind))};"
        for kind in sorted(kinds)
    ]


def content_type_filters(content_type: ContentType, registry: Registry) -> str:
    """``ArticleFilters``: each readable attribute with its type's operators (or a bare value:
    ``$eq``), relations by their target's filters, and ``$and``/``$or``/``$not``."""
    name = type_name(content_type)
    lines = ["  id?: IntegerFilter | number;"]
    for field in readable_fields(content_type):
        attribute = content_type.attributes.get(field)
        if isinstance(attribute, ScalarAttribute):
            kind, enum = attribute.type, attribute.enum if attribute.type == "enumeration" else ()
        else:
            kind, enum = _BUILT_IN_FIELDS.get(field, "string"), ()
        bare = _value(kind, enum)
        if kind in ("json", "blocks", "array"):
            lines.append(f"  {field}?: {_filter_name(kind)};")
        else:
            lines.append(f"  {field}?: {_filter_name(kind)} | {bare};")
    for field, attribute in content_type.attributes.items():
        if isinstance(attribute, RelationAttribute) and not attribute.private:
            target = registry.content_types.get(attribute.target)
            if target is not None and not target.is_builtin:
                lines.append(f"  {field}?: {type_name(target)}Filters;")
    lines += [
        f"  $and?: Array<{name}Filters>;",
        f"  $or?: Array<{name}Filters>;",
        f"  $not?: {name}Filters;",
    ]
    return f"export type {name}Filters = {{\n" + "\n".join(lines) + "\n};"
