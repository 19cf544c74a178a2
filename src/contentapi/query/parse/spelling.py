"""How a filter object spells its keys: REST's ``$``-names or GraphQL's bare ones.

REST writes ``{title: {$eq: "x"}, $or: [...], $not: {...}}``; GraphQL's ``…FiltersInput``
writes ``{title: {eq: "x"}, or: [...], not: {...}}`` (Strapi's ``graphQLFiltersToStrapiQuery``
adds the ``$``). The one filter parser (``filters.py``) walks either spelling itself, so every
rule (visibility, operators per type, coercion, messages) is applied once for both protocols;
the filter tree and every message name operators the REST way (``$eq``, ``filters.$or.title``),
as Strapi's messages do in both protocols.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contentapi.query.operators import LOGICAL, OPERATORS

__all__ = ["GRAPHQL", "REST", "Spelling"]


@dataclass(frozen=True, slots=True)
class Spelling:
    """The key names of one protocol's filters, and its null rules.

    ``logical``: a model-level key → its REST name (``$and``, ``$or``, ``$not``); any other key
    names an attribute. ``operators``: an attribute-level operator → its REST name, ``None``
    when the keys already are REST's (REST pays nothing to read them). ``null`` and
    ``not_null``: the operators of ``{id: {$null: …}}``, the "has no related entry" form.
    ``null_deep_is_nothing``: GraphQL's ``{tags: null}`` (a relation, component or
    ``localizations`` given null) is no condition, as Strapi's GraphQL reads it (a scalar's
    ``{title: null}`` stays ``title IS NULL``; null items of ``and``/``or`` and a null ``not``
    are no condition in both spellings).
    """

    logical: Mapping[str, str]
    operators: Mapping[str, str] | None
    null: str
    not_null: str
    null_deep_is_nothing: bool

    def rest_operators(self, node: Mapping[str, Any]) -> Mapping[str, Any]:
        """An attribute's ``{operator: operand}`` with REST's operator names (operands, JSON
        values among them, untouched)."""
        names = self.operators
        if names is None:
            return node
        # a name outside the table (the schema admits none) reads as Strapi would: `$` + name
        return {names.get(key) or f"${key}": value for key, value in node.items()}


REST = Spelling(
    logical={name: name for name in LOGICAL},
    operators=None,
    null="$null",
    not_null="$notNull",
    null_deep_is_nothing=False,
)

GRAPHQL = Spelling(
    logical={name[1:]: name for name in LOGICAL},
    operators={name[1:]: name for name in (*OPERATORS, *LOGICAL)},
    null="null",
    not_null="notNull",
    null_deep_is_nothing=True,
)
