"""Normalization rewrites of a filter: forms Strapi reads as something else, turned into what
they mean before anything is compiled.

- ``push_not``: every ``$not`` moved down to the comparisons and into the relation ``EXISTS``
  sub-queries, so a negated deep filter keeps Strapi's join semantics;
- ``emptiness_of``: ``{id: {$null: …}}`` alone on a relation is "has no / some related entry";
- ``object_operand``: an operator given an object of plain keys is dropped, as Strapi's
  sanitizer drops it.

(An empty filter, ``{}`` or only empty ``$and``/``$or``/``$not``, is no condition at all:
``filters.py`` leaves it out where it meets it.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from contentapi.query.ast import And, Comparison, Filter, Not, Or, Through
from contentapi.query.coerce import loose_boolean
from contentapi.query.operators import LOGICAL
from contentapi.query.parse.shapes import indexed
from contentapi.query.parse.spelling import Spelling

__all__ = ["emptiness_of", "object_operand", "push_not"]


def object_operand(operator: str, value: Any) -> bool:
    """An operator given an object of non-operator keys (``[title][$eq][a]=1``, GraphQL's
    ``metadata: {eq: {a: 1}}``): Strapi's sanitizer removes it, and the reference answers as
    if the condition were not there (inside an ``$or`` too)."""
    return (
        operator not in LOGICAL
        and isinstance(value, Mapping)
        and bool(value)
        and not indexed(value)
        and not any(str(key).startswith("$") for key in value)
    )


def push_not(node: Filter, negate: bool = False) -> Filter:
    """Move every ``$not`` down to the comparisons, and into relation ``EXISTS`` sub-queries.

    Strapi joins related rows and negates per joined row, so ``$not`` over a deep filter means
    "some related entry does not match". Pushing the negation inside the ``EXISTS`` gives
    exactly that. An entry with no related entry gets one all-NULL row from Strapi's LEFT JOIN:
    it matches when the pushed-down filter holds on that row (``[author][name][$null]=true``).
    """
    if isinstance(node, Not):
        return push_not(node.item, not negate)
    if isinstance(node, And | Or):
        parts = tuple(push_not(item, negate) for item in node.items)
        keep_kind = isinstance(node, And) != negate
        return And(parts) if keep_kind else Or(parts)
    if isinstance(node, Through):
        if node.filter is None:
            return replace(node, negated=node.negated != negate)
        through = replace(node, filter=push_not(node.filter, negate))
        assert through.filter is not None
        if _on_missing_row(through.filter) is True:
            # Strapi's LEFT JOIN gives an entry without any related row one row of NULLs, and
            # `[author][name][$null]=true` holds on it: such entries match too.
            return Or((through, replace(node, filter=None, negated=True)))
        return through
    return Not(node) if negate else node


def _on_missing_row(node: Filter) -> bool | None:
    """The SQL value (``None`` for unknown) of ``node`` on the all-NULL row that a LEFT JOIN
    gives for a missing related row or component, as our operators compile it."""
    if isinstance(node, Comparison):
        if node.operator in ("$null", "$notNull"):
            return bool(node.value) == (node.operator == "$null")
        if node.value is None and node.operator in ("$eq", "$eqi", "$ne", "$nei"):
            return node.operator in ("$eq", "$eqi")  # IS NULL / IS NOT NULL
        if node.operator in ("$endsWith", "$endsWithi") and node.value == "":
            return False  # compiled as IS NOT NULL
        return None
    if isinstance(node, Not):
        inner = _on_missing_row(node.item)
        return None if inner is None else not inner
    if isinstance(node, And | Or):
        values = [_on_missing_row(item) for item in node.items]
        decisive = isinstance(node, Or)  # True decides an OR, False an AND
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    # A relation of the missing row: no related entry either.
    return node.negated if node.filter is None else False


def emptiness_of(node: Mapping[str, Any], spelling: Spelling) -> bool | None:
    """For ``{"id": {"$null": flag}}`` / ``{"id": {"$notNull": flag}}`` alone (GraphQL's
    ``null``/``notNull``): whether the entry must have no related entry (``True``) or some
    (``False``); else ``None``."""
    if set(node) != {"id"} or not isinstance(node["id"], Mapping) or len(node["id"]) != 1:
        return None
    ((operator, flag),) = node["id"].items()
    if operator != spelling.null and operator != spelling.not_null:
        return None
    return loose_boolean(flag) == (operator == spelling.null)
