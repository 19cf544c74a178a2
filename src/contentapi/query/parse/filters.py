"""The ``filters`` parameter → a ``Filter`` tree, validated against the model and the caller.

Unknown, private or password attributes, unknown operators, filters through media or dynamic
zones and relations the caller may not ``find`` are a 400 (``ValidationError``); a value the
attribute's type cannot hold is ``InvalidFilterValue`` (the facade orders it among the other
errors as Strapi does). Deep filters become ``Through`` (an ``EXISTS`` on the related or
component rows); ``rewrites.py`` then pushes negations down. GraphQL's ``…FiltersInput`` values
are walked here as they are, in their own spelling (``spelling.py``): one set of rules and
messages for both protocols, and no re-encoding per request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from contentapi.db.jsonb import json_text
from contentapi.db.pgtext import TEXT_KINDS
from contentapi.errors import ValidationError
from contentapi.query.ast import And, Comparison, Filter, Not, Or, Through
from contentapi.query.coerce import coerce_filter_value, loose_boolean
from contentapi.query.fields import invalid_parameter, scalar_field
from contentapi.query.jsonb import JSON_KINDS, JSON_OPERATORS, JSON_TEXT_OPERATORS
from contentapi.query.operators import LOGICAL, OPERATORS, STRING_KINDS, Operator
from contentapi.query.parse.rewrites import emptiness_of, object_operand, push_not
from contentapi.query.parse.scope import LOCALIZATIONS, ModelScope
from contentapi.query.parse.shapes import as_list, indexed
from contentapi.query.parse.spelling import REST, Spelling
from contentapi.schema.model import (
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    NestingAttribute,
)

__all__ = ["FilterParser"]

#: Strapi 4.25 builds these with a plain `LIKE` on the column: on a number, date or time
#: PostgreSQL fails (a 500 there), so they are a 400 here; the `…i` forms cast the column to
#: text and match PostgreSQL's text of it (db/pgtext.py; make diff, GraphQL
#: `views: {endsWith: "12"}`, `born: {notContainsi: "1972-03-12"}`).
CASE_SENSITIVE_LIKE = frozenset({"$contains", "$notContains", "$startsWith", "$endsWith"})


def _json_operand(spec: Operator, value: Any, at: str) -> Any:
    """The value of a filter on a JSON attribute (``query/jsonb.py`` says what each operator
    compares). ``$contains``, ``$startsWith`` and their case-sensitive kin answer 500 on the
    reference (``jsonb LIKE``): a 400 here."""
    operator = spec.name
    if spec.shape == "boolean":
        return loose_boolean(value)
    if operator not in JSON_OPERATORS and operator not in JSON_TEXT_OPERATORS:
        raise ValidationError(f"Operator {operator} does not apply to json at {at}")

    def scalar(item: Any) -> Any:
        if isinstance(item, Mapping | list):
            raise ValidationError(f"Invalid value for {at}")
        if item is None:
            return None
        text = item if isinstance(item, str) else json_text(item)
        if "\x00" in text:  # neither jsonb nor PostgreSQL text can hold it (Strapi: 500)
            raise ValidationError(f"Invalid value for {at}: NUL characters are not allowed")
        return text if operator in JSON_TEXT_OPERATORS else item

    if spec.shape == "list":
        return tuple(scalar(item) for item in as_list(value))
    if spec.shape == "pair":
        pair = as_list(value)
        if len(pair) != 2 or None in pair:
            raise ValidationError(f"{at} takes an array of two values")
        return (scalar(pair[0]), scalar(pair[1]))
    coerced = scalar(value)
    if coerced is None and operator not in ("$eq", "$ne", "$eqi"):
        raise ValidationError(f"{at} needs a value")
    return coerced


#: number kinds whose blank filter value Strapi reads as JavaScript's ``Number("")``, 0: the
#: reference answers `filters[rating]=` and `filters[rating][$in][0]=%20` with the ratings 0
_BLANK_IS_ZERO = frozenset({"integer", "float", "decimal"})


def _deep(model: Model, name: str) -> bool:
    """Whether ``name`` filters through other rows: a relation, a component, the
    ``localizations`` of a localized type."""
    if name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
        return True
    return isinstance(model.attributes.get(name), NestingAttribute)


def _conditions(model: Model, node: Mapping[str, Any], spelling: Spelling) -> Mapping[str, Any]:
    """``node`` without the keys GraphQL reads as no condition at all (a null ``not``, a null
    relation or component), for ``emptiness_of``: ``{id: {null: true}, not: null}`` is "has no
    related entry" as ``{id: {null: true}}`` is. (A null ``and``/``or`` is an empty list there,
    which keeps the form from being one.)"""
    if not spelling.null_deep_is_nothing or len(node) < 2 or "id" not in node:
        return node
    return {
        key: value
        for key, value in node.items()
        if value is not None or not (spelling.logical.get(key) == "$not" or _deep(model, key))
    }


#: the slots a related model's filters share with the object they are merged into (``_slots``)
_MERGED = frozenset({"$and", "$or"})


@dataclass(frozen=True, slots=True)
class _Hop:
    """One step of a deep filter: ``attribute`` of model ``via`` reaches model ``target``."""

    via: str
    attribute: str
    target: str

    def through(self, condition: Filter | None, negated: bool = False) -> Through:
        return Through(self.via, self.attribute, self.target, condition, negated)


@dataclass(frozen=True, slots=True)
class _Atom:
    """A condition in one slot of a filters object, on the rows reached through ``hops``;
    ``None`` for an empty group, which holds its slot (and so replaces another) all the same."""

    hops: tuple[_Hop, ...]
    condition: Filter | None


def _assemble(atoms: Iterable[_Atom]) -> Filter | None:
    """The conditions left in the slots as one tree: those reached through the same first hop
    under one ``Through`` (one related row satisfies them all, as on Strapi's one join)."""
    parts: list[Filter | _Hop] = []
    through: dict[_Hop, list[_Atom]] = {}
    for atom in atoms:
        if atom.condition is None:
            continue
        if not atom.hops:
            parts.append(atom.condition)
            continue
        first = atom.hops[0]
        if first not in through:
            through[first] = []
            parts.append(first)  # its place among the others
        through[first].append(_Atom(atom.hops[1:], atom.condition))
    items = tuple(
        part.through(_assemble(through[part])) if isinstance(part, _Hop) else part for part in parts
    )
    if not items:
        return None
    return items[0] if len(items) == 1 else And(items)


class FilterParser(ModelScope):
    """``filters`` of any model of the registry, for one caller."""

    __slots__ = ()

    def filters(
        self, model: Model, value: Any, path: str = "filters", spelling: Spelling = REST
    ) -> Filter | None:
        """``filters`` in ``spelling`` (REST's ``$eq`` or GraphQL's ``eq``) → a filter tree
        with negations pushed down (see ``push_not``)."""
        node = self._filters(model, value, path, spelling)
        return push_not(node) if node is not None else None

    def _filters(self, model: Model, value: Any, path: str, spelling: Spelling) -> Filter | None:
        if value is None:
            return None
        if isinstance(value, list):  # `filters[0][title]=…`: every item must hold
            parts = [self._filters(model, item, path, spelling) for item in value]
            present = tuple(part for part in parts if part is not None)
            return And(present) if present else None
        if not isinstance(value, Mapping):
            raise ValidationError(f"Invalid {path} parameter: expected an object")
        return _assemble(self._slots(model, value, path, spelling).values())

    def _slots(
        self, model: Model, value: Mapping[str, Any], path: str, spelling: Spelling
    ) -> dict[object, _Atom]:
        """The conditions of one filters object, each in its slot of Strapi's ``where`` object.

        Strapi's query builder turns a filters object into another object, key by key: an
        attribute's condition under its column (unique), a group under ``$and``/``$or``, and a
        relation's or component's processed filters merged in with ``Object.assign`` — so a
        group met inside a related model (`{profile: {$or: […]}}`) lands in this object's
        ``$or`` slot, and whichever ``$or`` comes later in key order replaces the other: the
        reference answers `authors(filters: {profile: {or: […]}, or: [{articles: {}}]})` with
        every author (GraphQL orders keys as the input type does, attributes before
        ``and``/``or``/``not``; REST as the query string does). Replaced conditions are still
        validated here (Strapi checks the whole query first)."""
        slots: dict[object, _Atom] = {}
        logical_names = spelling.logical
        for key, node in value.items():
            logical = logical_names.get(key)
            if logical is None:  # an attribute
                if key.startswith("$"):
                    raise invalid_parameter(key)
                if node is None and spelling.null_deep_is_nothing and _deep(model, key):
                    continue  # GraphQL's `{tags: null}`
                where = f"{path}.{key}"
                if _deep(model, key):
                    slots.update(self._deep_slots(model, key, node, where, spelling))
                    continue
                condition = self.attribute_filter(model, key, node, where, spelling)
                if condition is not None:
                    slots[object()] = _Atom((), condition)
                continue
            where = f"{path}.{logical}"  # messages name the REST key in both spellings
            if logical == "$not":
                inner = self._filters(model, node, where, spelling)
                slots[logical] = _Atom((), None if inner is None else Not(inner))
                continue
            parts = [self._filters(model, item, where, spelling) for item in as_list(node)]
            present = tuple(part for part in parts if part is not None)
            group = (And(present) if logical == "$and" else Or(present)) if present else None
            slots[logical] = _Atom((), group)  # an empty group still replaces the slot
        return slots

    def attribute_filter(
        self, model: Model, name: str, node: Any, where: str, spelling: Spelling = REST
    ) -> Filter | None:
        """The condition on attribute ``name``; ``None`` for an empty one (``{}``, or only
        empty ``$and``/``$or``/``$not``): Strapi leaves it out, as if it were not there —
        GraphQL's ``{tags: {}}`` and ``{title: {}}`` filter nothing (qs never yields ``{}``)."""
        attribute = model.attributes.get(name)
        if isinstance(attribute, MediaAttribute | DynamicZoneAttribute):
            # The spec's filter rule 3: no filters through media or dynamic zones.
            raise invalid_parameter(name)
        if _deep(model, name):
            return _assemble(self._deep_slots(model, name, node, where, spelling).values())
        field = scalar_field(model, name)
        if field is None:
            raise invalid_parameter(name)
        if not isinstance(node, Mapping):  # GraphQL's `{title: null}` too: `title IS NULL`
            return self._comparison(field.column, field.kind, "$eq", node, where)
        node = {
            op: value
            for op, value in spelling.rest_operators(node).items()
            if not object_operand(op, value)
        }
        conditions: list[Filter] = []
        for operator, value in node.items():
            if operator in LOGICAL:
                logical = self._logical_on_field(model, name, operator, value, where, spelling)
                if logical is not None:
                    conditions.append(logical)
                continue
            conditions.append(self._comparison(field.column, field.kind, operator, value, where))
        if not conditions:
            return None
        return conditions[0] if len(conditions) == 1 else And(tuple(conditions))

    def _logical_on_field(
        self, model: Model, name: str, operator: str, value: Any, where: str, spelling: Spelling
    ) -> Filter | None:
        """``filters[title][$not][$eq]=x``. Strapi 4.25 has no attribute-level ``$and`` or
        ``$or`` (``filters[title][$or][0]=x`` and GraphQL's ``title: {or: [...]}`` are a 500,
        "Undefined attribute level operator $or"): bad input, so a 400 here."""
        if operator == "$not":
            inner = self.attribute_filter(model, name, value, f"{where}.$not", spelling)
            return None if inner is None else Not(inner)
        raise ValidationError(f"Undefined attribute level operator {operator}")

    def _deep_slots(
        self, model: Model, name: str, node: Any, where: str, spelling: Spelling
    ) -> dict[object, _Atom]:
        """A deep filter through relation, component or ``localizations`` ``name``: the
        target's slots, reached through it (``_slots`` says why they stay apart)."""
        attribute = model.attributes.get(name)
        if name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
            target: Model = model
        elif isinstance(attribute, NestingAttribute):
            if attribute.private or not self._readable(attribute):
                raise invalid_parameter(name)
            target = self.registry.target(attribute)
        else:  # pragma: no cover - `_deep` said it is one of those
            raise invalid_parameter(name)
        hop = _Hop(model.uid, name, target.uid)
        if not isinstance(node, Mapping):
            # `filters[author]=3` / `filters[categories][0]=1`: the related entries' ids.
            node = {"id": {"$eq": node}}
            spelling = REST
        operators = {k: v for k, v in node.items() if k.startswith("$") and k not in LOGICAL}
        if operators:  # `filters[author][$eq]=3`, `filters[categories][$in][0]=1`
            node = {**{k: v for k, v in node.items() if k not in operators}, "id": operators}
        emptiness = emptiness_of(_conditions(target, node, spelling), spelling)
        if emptiness is not None:
            # `[author][$null]=true`, `[categories][id][$null]=true`: Strapi's LEFT JOIN finds
            # the entries without any related entry (or, negated, with at least one).
            return {object(): _Atom((), hop.through(None, negated=emptiness))}
        # `{tags: {}}` has no slots: no condition at all, not "has a related entry"
        return {
            key if key in _MERGED else object(): _Atom((hop, *atom.hops), atom.condition)
            for key, atom in self._slots(target, node, where, spelling).items()
        }

    def _comparison(self, column: str, kind: str, operator: str, value: Any, where: str) -> Filter:
        spec = OPERATORS.get(operator)
        if spec is None:
            # Strapi's message (it names the operator only: `Invalid parameter $bogus`)
            raise invalid_parameter(operator)
        many = isinstance(value, list) or (isinstance(value, Mapping) and indexed(value))
        if spec.shape == "scalar" and many and value:
            # Strapi: an array given to a non-array operator is the OR of the operator on each
            # item, negated ones included — the reference answers
            # `title[$notContains][0]=Kappa&…[1]=Sigma` with every title having either.
            return Or(
                tuple(
                    self._comparison(column, kind, operator, item, where) for item in as_list(value)
                )
            )
        at = f"{where}.{operator}"
        if kind in JSON_KINDS:
            return Comparison(column, kind, operator, _json_operand(spec, value, at), None)
        text_kind = None
        if spec.strings_only and kind not in STRING_KINDS:
            if kind not in TEXT_KINDS or operator in CASE_SENSITIVE_LIKE:
                raise ValidationError(f"Operator {operator} does not apply to {kind} at {where}")
            # `readingTime[$containsi]=1` matches the digits, `price[$eqi]=10.00` the decimal
            text_kind, kind = kind, "string"
        if kind in ("json", "array") and spec.shape != "boolean":
            raise ValidationError(f"Only $null and $notNull apply to {kind} at {where}")

        def coerce(item: Any) -> Any:
            # Strapi: 500 for a blank id (and biginteger): a 400 here
            blank = isinstance(item, str) and not item.strip()
            if blank and kind in _BLANK_IS_ZERO and column != "id":
                return 0
            return coerce_filter_value(kind, item, at)

        if spec.shape == "boolean":
            coerced: Any = loose_boolean(value)
        elif spec.shape == "list":
            # a tuple, as every operand: the query stays hashable, so its statements are
            # built once and its total kept (entries/reads.py `_page_statements`)
            coerced = tuple(coerce(item) for item in as_list(value))
        elif spec.shape == "pair":
            pair = as_list(value)
            if len(pair) != 2:
                raise ValidationError(f"{at} takes an array of two values")
            coerced = (coerce(pair[0]), coerce(pair[1]))
        else:
            coerced = coerce(value)
            if coerced is None and operator not in ("$eq", "$ne", "$eqi"):
                raise ValidationError(f"{at} needs a value")
        return Comparison(column, kind, operator, coerced, text_kind)
