"""Parsed query string (``qs.parse_query``'s dict) → ``ReadQuery``, validated against the model.

Every rejection of a REST query happens here, as a ``ValidationError``: unknown, private or
password attributes in ``filters``/``sort``/``fields``, unknown operators, relations in
``fields``, filters on media or dynamic zones, mixed pagination styles, non-integer pagination
values, an invalid ``publicationState``. Out of range pagination values are clamped as Strapi
does (docs/differences-from-strapi.md, "kept"). A ``populate`` key that names no populatable
attribute is ignored, as Strapi ignores it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from contentapi.db.jsonb import json_text
from contentapi.db.pgtext import TEXT_KINDS
from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import (
    And,
    Comparison,
    ComponentPopulate,
    DynamicZonePopulate,
    Filter,
    MediaPopulate,
    Not,
    OffsetPagination,
    Or,
    PagePagination,
    Pagination,
    Populate,
    PopulateNode,
    ReadQuery,
    RelationPopulate,
    SortKey,
    Through,
)
from contentapi.query.coerce import InvalidFilterValue, coerce_filter_value, loose_boolean
from contentapi.query.fields import invalid_parameter, scalar_field
from contentapi.query.jsonb import JSON_KINDS, JSON_OPERATORS, JSON_TEXT_OPERATORS
from contentapi.query.operators import LOGICAL, OPERATORS, STRING_KINDS, Operator
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["QueryLimits", "QueryParser"]

#: Strapi 4.25 builds these with a plain `LIKE` on the column: on a number, date or time
#: PostgreSQL fails (a 500 there), so they are a 400 here; the `…i` forms cast the column to
#: text and match PostgreSQL's text of it (db/pgtext.py; make diff, GraphQL
#: `views: {endsWith: "12"}`, `born: {notContainsi: "1972-03-12"}`).
CASE_SENSITIVE_LIKE = frozenset({"$contains", "$notContains", "$startsWith", "$endsWith"})

#: A populate pseudo-attribute of localized content types (the other locales of an entry).
LOCALIZATIONS = "localizations"


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """``api.rest.*`` settings and the configured locales."""

    default_limit: int = 25
    max_limit: int = 100
    with_count: bool = True
    locales: tuple[str, ...] = ("en",)


def _as_list(value: Any) -> list[Any]:
    """qs gives a list for ``a[0]=…``, but a dict for indexes above its array limit."""
    if isinstance(value, list):
        return value
    if isinstance(value, Mapping):
        return list(value.values())
    return [value]


def _indexed(value: Mapping[str, Any]) -> bool:
    """A dict qs made from an array whose indexes passed its limit (``{"101": …}``)."""
    return bool(value) and all(key.isdigit() for key in value)


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
        return [scalar(item) for item in _as_list(value)]
    if spec.shape == "pair":
        pair = _as_list(value)
        if len(pair) != 2 or None in pair:
            raise ValidationError(f"{at} takes an array of two values")
        return [scalar(item) for item in pair]
    coerced = scalar(value)
    if coerced is None and operator not in ("$eq", "$ne", "$eqi"):
        raise ValidationError(f"{at} needs a value")
    return coerced


#: number kinds whose blank filter value Strapi reads as JavaScript's ``Number("")``, 0: the
#: reference answers `filters[rating]=` and `filters[rating][$in][0]=%20` with the ratings 0
_BLANK_IS_ZERO = frozenset({"integer", "float", "decimal"})


def _object_operand(operator: str, value: Any) -> bool:
    """An operator given an object of non-operator keys (``[title][$eq][a]=1``, GraphQL's
    ``metadata: {eq: {a: 1}}``): Strapi's sanitizer removes it, and the reference answers as
    if the condition were not there (inside an ``$or`` too)."""
    return (
        operator not in LOGICAL
        and isinstance(value, Mapping)
        and bool(value)
        and not _indexed(value)
        and not any(str(key).startswith("$") for key in value)
    )


def _given(spec: Mapping[str, Any], key: str) -> bool:
    """Whether a populate option is set: Strapi skips one that is null (qs's
    ``populate[x][limit]`` without ``=``) or empty (``populate[x][sort]=``)."""
    return spec.get(key) not in (None, "")


def _integer(value: Any, name: str) -> int:
    """A pagination integer as JavaScript's ``Number()`` reads it (``2.0`` and ``1e1`` are
    integers); anything else is a 400 (Strapi answers 500)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number) and number.is_integer() and abs(number) < 2**53:
            return int(number)
    raise ValidationError(f"Invalid {name} parameter. Expected an integer")


def _check_populate_pages(spec: Mapping[str, Any]) -> None:
    """``page``/``pageSize`` inside a populate object: checked as Strapi 4.25 checks them (400
    ``PaginationError``, its messages), then without effect, as there: its query layer reads
    only ``start``/``limit`` in a populate. (A ``pagination`` object there is not read at
    all.)"""
    page, page_size = spec.get("page"), spec.get("pageSize")
    if (page is not None or page_size is not None) and (
        spec.get("start") is not None or spec.get("limit") is not None
    ):
        raise PaginationError(
            "Invalid pagination attributes. You cannot use page and offset pagination in the "
            "same query"
        )
    for name, value in (("page", page), ("pageSize", page_size)):
        if value is None:
            continue
        try:
            number = _integer(value, name)
        except ValidationError:
            number = 0
        if number <= 0:
            # Strapi's pageSize message shows the page (its own slip), kept as it is
            shown = page if page is not None else "undefined"
            received = value if name == "page" else shown
            raise PaginationError(
                f"Invalid '{name}' parameter. Expected an integer > 0, received: "
                f"{_js_text(received)}"
            )


def _js_text(value: Any) -> str:
    """A query value as JavaScript's template literal writes it (arrays joined by commas)."""
    if isinstance(value, list):
        return ",".join(_js_text(item) for item in value)
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


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


def _emptiness(node: Mapping[str, Any]) -> bool | None:
    """For ``{"id": {"$null": flag}}`` / ``{"id": {"$notNull": flag}}`` alone: whether the
    entry must have no related entry (``True``) or some (``False``); else ``None``."""
    if set(node) != {"id"} or not isinstance(node["id"], Mapping) or len(node["id"]) != 1:
        return None
    ((operator, flag),) = node["id"].items()
    if operator not in ("$null", "$notNull"):
        return None
    return loose_boolean(flag) == (operator == "$null")


def _everything(uid: str) -> bool:
    return True


class QueryParser:
    """Parses query parameters for the models of one registry, for one caller.

    ``may_find(uid)`` tells whether the caller may ``find`` entries of a content type: a
    relation to a type it may not read is left out of ``populate`` (the spec's populate rule
    10), and filtering or sorting through it is a 400 — never a silent strip that would turn
    the query into an oracle on hidden data (docs/differences-from-strapi.md).
    """

    def __init__(
        self, registry: Registry, limits: QueryLimits, may_find: Callable[[str], bool] = _everything
    ) -> None:
        self.registry = registry
        self.limits = limits
        self.may_find = may_find

    def for_caller(self, may_find: Callable[[str], bool]) -> QueryParser:
        """The same parser, restricted to what one caller may read."""
        return QueryParser(self.registry, self.limits, may_find)

    # ------------------------------------------------------------ entry point

    def read_query(self, content_type: ContentType, params: Mapping[str, Any]) -> ReadQuery:
        """``GET /api/P`` parameters → ``ReadQuery``."""
        locale = self.locale(content_type, params.get("locale"))
        bad_value: InvalidFilterValue | None = None
        try:
            filters = self.filters(content_type, params["filters"]) if "filters" in params else None
        except InvalidFilterValue as error:
            bad_value, filters = error, None
        if "locale" in params and content_type.localized and not isinstance(locale, str):
            # Strapi's i18n adds `{locale: <value>}` to the filters: `locale[0]=en&locale[1]=fr`
            # is `$in`, a bare `locale` (null) matches no entry.
            by_locale = self._attribute_filter(content_type, "locale", params["locale"], "locale")
            locale = "all"
            filters = by_locale if filters is None else And((by_locale, filters))
        pagination = self.pagination(params.get("pagination"))
        publication_state = self.publication_state(params.get("publicationState"))
        sort = self.sort(content_type, params["sort"]) if "sort" in params else ()
        fields = self.fields(content_type, params["fields"]) if "fields" in params else None
        return ReadQuery(
            pagination=pagination,
            publication_state=publication_state,
            locale=locale,
            filters=filters,
            sort=sort,
            fields=fields,
            populate=self._populate_param(content_type, params, bad_value),
        )

    def entry_query(self, content_type: ContentType, params: Mapping[str, Any]) -> ReadQuery:
        """Single-entry routes (``GET/PUT/DELETE /api/P/:id``, ``POST``, single types): only
        ``fields``, ``populate``, ``publicationState`` and ``locale`` apply.

        ``filters`` and ``sort`` are checked all the same and then ignored, as Strapi 4.25
        does (``GET /api/articles/9?filters[nosuchfield][$eq]=x`` is a 400 there, while a valid
        filter that the entry does not match still answers the entry).
        """
        bad_value: InvalidFilterValue | None = None
        if "filters" in params:
            try:
                self.filters(content_type, params["filters"])
            except InvalidFilterValue as error:
                bad_value = error
        if "sort" in params:
            try:
                self.sort(content_type, params["sort"])
            except ValidationError as error:
                # Strapi checks the sorted names there, not the directions (never applied).
                if not error.message.startswith("Invalid sort direction"):
                    raise
        publication_state = self.publication_state(params.get("publicationState"))
        locale = self.locale(content_type, params.get("locale"))
        fields = self.fields(content_type, params["fields"]) if "fields" in params else None
        return ReadQuery(
            publication_state=publication_state,
            locale=locale,
            fields=fields,
            populate=self._populate_param(content_type, params, bad_value),
        )

    def _populate_param(
        self,
        content_type: ContentType,
        params: Mapping[str, Any],
        bad_value: InvalidFilterValue | None,
    ) -> Populate:
        """The ``populate`` parameter, its errors ordered as Strapi's: after the keys of
        filters, sort and fields (its ``validateQuery``); a bad ``page`` inside a populate
        (its query conversion) before a bad filter value (its database layer); anything else
        after the bad value."""
        try:
            populate = (
                self.populate(content_type, params["populate"]) if "populate" in params else {}
            )
        except ValidationError:  # (a PaginationError is none: it passes first)
            if bad_value is not None:
                raise bad_value from None
            raise
        if bad_value is not None:
            raise bad_value
        return populate

    # ------------------------------------------------------------ small parameters

    def publication_state(self, value: Any) -> Any:
        if value is None:
            return "live"
        if value in ("live", "preview"):
            return value
        raise ValidationError("Invalid publicationState. Expected one of 'preview','live'")

    def locale(self, content_type: ContentType, value: Any) -> str | None:
        """The ``locale`` parameter: ``all``, or a value the entries' locale must equal.

        As in Strapi, an unconfigured locale is not an error: it is only a filter value, so
        ``locale=de`` answers an empty list (docs/differences-from-strapi.md, "kept"). Non-text
        values (arrays, null) are applied as a filter by ``read_query``; here they leave the
        default locale.
        """
        if not isinstance(value, str) or not content_type.localized:
            return None
        if "\x00" in value:  # no locale has one, and PostgreSQL could not even compare it
            raise ValidationError("Invalid locale parameter: NUL characters are not allowed")
        return value

    def pagination(self, value: Any) -> Pagination:
        """Strapi's pagination rules: page/pageSize or start/limit, never both; clamped."""
        limits = self.limits
        if value is None:
            return PagePagination(1, limits.default_limit, limits.with_count)
        if not isinstance(value, Mapping):
            raise ValidationError("Invalid pagination parameter")
        with_count = limits.with_count
        if "withCount" in value:
            flag = value["withCount"]
            if str(flag).lower() not in ("t", "1", "true", "false", "0", "f"):
                raise ValidationError(
                    'Invalid withCount parameter. Expected "t","1","true","false","0","f"'
                )
            with_count = str(flag).lower() in ("t", "1", "true")
        paged = "page" in value or "pageSize" in value
        offset = "start" in value or "limit" in value
        if paged and offset:
            raise ValidationError(
                "Invalid pagination parameters. Expected either start/limit or page/pageSize"
            )
        if offset:
            start = _integer(value.get("start", 0), "start")
            limit = _integer(value.get("limit", limits.default_limit), "limit")
            # Strapi: -1 means "as many as allowed"; otherwise at least 1, at most maxLimit.
            limit = limits.max_limit if limit == -1 else min(max(1, limit), limits.max_limit)
            return OffsetPagination(max(0, start), limit, with_count)
        page = _integer(value.get("page", 1), "page")
        page_size = _integer(value.get("pageSize", limits.default_limit), "pageSize")
        page_size = min(max(1, page_size), limits.max_limit)
        return PagePagination(max(1, page), page_size, with_count)

    # ------------------------------------------------------------ fields

    def fields(self, model: Model, value: Any) -> tuple[str, ...] | None:
        names: list[str] = []
        for item in _as_list(value):
            if not isinstance(item, str):
                raise ValidationError("Invalid fields parameter")
            names.extend(part.strip() for part in item.split(",") if part.strip())
        for name in names:  # beside `*` too: `fields[0]=*&fields[1]=bogus` is a 400 in Strapi
            if name != "*" and scalar_field(model, name) is None:
                raise invalid_parameter(name)
        if not names or "*" in names:
            return None
        return tuple(dict.fromkeys(names))

    # ------------------------------------------------------------ filters

    def filters(self, model: Model, value: Any, path: str = "filters") -> Filter | None:
        """``filters`` → a filter tree with negations pushed down (see ``push_not``)."""
        node = self._filters(model, value, path)
        return push_not(node) if node is not None else None

    def _filters(self, model: Model, value: Any, path: str) -> Filter | None:
        if value is None:
            return None
        if isinstance(value, list):  # `filters[0][title]=…`: every item must hold
            parts = [self._filters(model, item, path) for item in value]
            present = tuple(part for part in parts if part is not None)
            return And(present) if present else None
        if not isinstance(value, Mapping):
            raise ValidationError(f"Invalid {path} parameter: expected an object")
        items: list[Filter] = []
        for key, node in value.items():
            where = f"{path}.{key}"
            if key in ("$and", "$or"):
                parts = [self._filters(model, item, where) for item in _as_list(node)]
                present = tuple(part for part in parts if part is not None)
                if present:
                    items.append(And(present) if key == "$and" else Or(present))
            elif key == "$not":
                inner = self._filters(model, node, where)
                if inner is not None:
                    items.append(Not(inner))
            elif key.startswith("$"):
                raise invalid_parameter(key)
            else:
                condition = self._attribute_filter(model, key, node, where)
                if condition is not None:
                    items.append(condition)
        if not items:
            return None
        return items[0] if len(items) == 1 else And(tuple(items))

    def _attribute_filter(self, model: Model, name: str, node: Any, where: str) -> Filter | None:
        """The condition on attribute ``name``; ``None`` for an empty one (``{}``, or only
        empty ``$and``/``$or``/``$not``): Strapi leaves it out, as if it were not there —
        GraphQL's ``{tags: {}}`` and ``{title: {}}`` filter nothing (qs never yields ``{}``)."""
        attribute = model.attributes.get(name)
        if isinstance(attribute, MediaAttribute | DynamicZoneAttribute):
            # The spec's filter rule 3: no filters through media or dynamic zones.
            raise invalid_parameter(name)
        if name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
            return self._through(model, name, model, node, where)
        if isinstance(attribute, RelationAttribute | ComponentAttribute):
            if attribute.private or not self._readable(attribute):
                raise invalid_parameter(name)
            target = (
                self.registry.content_types[attribute.target]
                if isinstance(attribute, RelationAttribute)
                else self.registry.components[attribute.component]
            )
            return self._through(model, name, target, node, where)
        field = scalar_field(model, name)
        if field is None:
            raise invalid_parameter(name)
        if not isinstance(node, Mapping):
            return self._comparison(field.column, field.kind, "$eq", node, where)
        node = {op: value for op, value in node.items() if not _object_operand(op, value)}
        conditions: list[Filter] = []
        for operator, value in node.items():
            if operator in LOGICAL:
                logical = self._logical_on_field(model, name, operator, value, where)
                if logical is not None:
                    conditions.append(logical)
                continue
            conditions.append(self._comparison(field.column, field.kind, operator, value, where))
        if not conditions:
            return None
        return conditions[0] if len(conditions) == 1 else And(tuple(conditions))

    def _logical_on_field(
        self, model: Model, name: str, operator: str, value: Any, where: str
    ) -> Filter | None:
        """``filters[title][$not][$eq]=x``. Strapi 4.25 has no attribute-level ``$and`` or
        ``$or`` (``filters[title][$or][0]=x`` and GraphQL's ``title: {or: [...]}`` are a 500,
        "Undefined attribute level operator $or"): bad input, so a 400 here."""
        if operator == "$not":
            inner = self._attribute_filter(model, name, value, f"{where}.$not")
            return None if inner is None else Not(inner)
        raise ValidationError(f"Undefined attribute level operator {operator}")

    def _through(
        self, model: Model, name: str, target: Model, node: Any, where: str
    ) -> Filter | None:
        """A deep filter through a relation or a component: an ``EXISTS`` on ``target``."""
        if not isinstance(node, Mapping):
            # `filters[author]=3` / `filters[categories][0]=1`: the related entries' ids.
            node = {"id": {"$eq": node}}
        operators = {k: v for k, v in node.items() if k.startswith("$") and k not in LOGICAL}
        if operators:  # `filters[author][$eq]=3`, `filters[categories][$in][0]=1`
            node = {**{k: v for k, v in node.items() if k not in operators}, "id": operators}
        emptiness = _emptiness(node)
        if emptiness is not None:
            # `[author][$null]=true`, `[categories][id][$null]=true`: Strapi's LEFT JOIN finds
            # the entries without any related entry (or, negated, with at least one).
            return Through(model.uid, name, target.uid, None, negated=emptiness)
        inner = self._filters(target, node, where)
        if inner is None:  # `{tags: {}}`: no condition at all, not "has a related entry"
            return None
        return Through(model.uid, name, target.uid, inner)

    def _comparison(self, column: str, kind: str, operator: str, value: Any, where: str) -> Filter:
        spec = OPERATORS.get(operator)
        if spec is None:
            # Strapi's message (it names the operator only: `Invalid parameter $bogus`)
            raise invalid_parameter(operator)
        many = isinstance(value, list) or (isinstance(value, Mapping) and _indexed(value))
        if spec.shape == "scalar" and many and value:
            # Strapi: an array given to a non-array operator is the OR of the operator on each
            # item, negated ones included — the reference answers
            # `title[$notContains][0]=Kappa&…[1]=Sigma` with every title having either.
            return Or(
                tuple(
                    self._comparison(column, kind, operator, item, where)
                    for item in _as_list(value)
                )
            )
        at = f"{where}.{operator}"
        if kind in JSON_KINDS:
            return Comparison(column, kind, operator, _json_operand(spec, value, at), False)
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
            coerced = [coerce(item) for item in _as_list(value)]
        elif spec.shape == "pair":
            pair = _as_list(value)
            if len(pair) != 2:
                raise ValidationError(f"{at} takes an array of two values")
            coerced = [coerce(item) for item in pair]
        else:
            coerced = coerce(value)
            if coerced is None and operator not in ("$eq", "$ne", "$eqi"):
                raise ValidationError(f"{at} needs a value")
        return Comparison(column, kind, operator, coerced, text_kind)

    # ------------------------------------------------------------ sort

    def sort(self, model: Model, value: Any) -> tuple[SortKey, ...]:
        keys: list[SortKey] = []
        items = [value] if isinstance(value, Mapping) and not _indexed(value) else _as_list(value)
        if any(isinstance(i, str) for i in items) and any(isinstance(i, Mapping) for i in items):
            # Strapi reads an array mixing strings and objects (`sort[0]=title&sort[1][views]=
            # desc`) as an object, whose first key "0" is no attribute.
            raise invalid_parameter("0")
        for item in items:
            if isinstance(item, str):
                for part in item.split(","):
                    if part.strip():
                        keys.append(self._sort_text(model, part.strip()))
            elif isinstance(item, Mapping):
                keys.extend(self._sort_object(model, item, ()))
            else:
                raise ValidationError("Invalid sort parameter")
        unique: dict[tuple[tuple[str, ...], str], SortKey] = {}
        for key in keys:  # `sort[0]=title:asc&sort[1]=title:desc`: the first one wins
            unique.setdefault((key.path, key.column), key)
        return tuple(unique.values())

    def _sort_text(self, model: Model, text: str) -> SortKey:
        name, _, direction = text.partition(":")
        return self._sort_key(model, tuple(name.split(".")), direction or "asc")

    def _sort_object(
        self, model: Model, value: Mapping[str, Any], prefix: tuple[str, ...]
    ) -> list[SortKey]:
        keys: list[SortKey] = []
        for name, direction in value.items():
            if isinstance(direction, Mapping):
                keys.extend(self._sort_object(model, direction, (*prefix, name)))
            elif isinstance(direction, str):
                keys.append(self._sort_key(model, (*prefix, name), direction))
            else:
                raise ValidationError("Invalid sort parameter")
        return keys

    def _sort_key(self, model: Model, path: tuple[str, ...], direction: str) -> SortKey:
        lowered = direction.strip().lower()
        if lowered not in ("asc", "desc"):
            raise ValidationError(f"Invalid sort direction {direction!r}: use asc or desc")
        current = model
        for step in path[:-1]:
            attribute = current.attributes.get(step)
            if (
                isinstance(attribute, RelationAttribute)
                and not attribute.private
                and self._readable(attribute)
            ):
                current = self.registry.content_types[attribute.target]
            elif isinstance(attribute, ComponentAttribute) and not attribute.private:
                current = self.registry.components[attribute.component]
            else:
                raise invalid_parameter(step)
        field = scalar_field(current, path[-1])
        if field is None:
            raise invalid_parameter(path[-1])
        if field.kind == "array":
            raise ValidationError(f"Cannot sort on {field.kind} attribute {path[-1]}")
        return SortKey(path[:-1], field.column, field.kind, lowered == "desc")

    # ------------------------------------------------------------ populate

    def populate(self, model: Model, value: Any) -> Populate:
        """Every populate form of the spec → ``{attribute: PopulateNode}``."""
        if value is None:
            return {}
        if isinstance(value, str):
            if value.strip() == "*":
                return self._populate_all(model)
            return self._populate_paths(model, [p.strip() for p in value.split(",") if p.strip()])
        if isinstance(value, list):
            if "*" in value:
                return self._populate_all(model)
            paths: list[str] = []
            for item in value:
                if not isinstance(item, str):
                    raise ValidationError("Invalid populate parameter")
                paths.extend(p.strip() for p in item.split(",") if p.strip())
            return self._populate_paths(model, paths)
        if isinstance(value, Mapping):
            populate: Populate = {}
            for name, spec in value.items():
                node = self._populate_entry(model, name, spec)
                if node is not None:
                    populate[name] = node
            return populate
        raise ValidationError("Invalid populate parameter")

    def _readable(self, attribute: RelationAttribute | ComponentAttribute) -> bool:
        return not isinstance(attribute, RelationAttribute) or self.may_find(attribute.target)

    def _populatable(self, model: Model, name: str) -> Any:
        """The attribute ``populate`` names, or ``None`` when it is to be ignored.

        Strapi ignores a name its model lacks (a typo, a wrong case), a scalar attribute and a
        private one alike (its sanitizer strips private keys, its query layer skips what is not
        a relation), at any depth and in every form: the answer is the one without the key.
        Treating a private attribute as absent keeps it from being told apart from a missing
        one.
        """
        if name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
            return LOCALIZATIONS
        attribute = model.attributes.get(name)
        if attribute is None or attribute.private:
            return None
        if attribute.type not in ("relation", "media", "component", "dynamiczone"):
            return None
        return attribute

    def _populate_all(self, model: Model) -> Populate:
        """``populate=*``: every relation, media, component and dynamic zone, one level deep."""
        populate: Populate = {}
        for name, attribute in model.attributes.items():
            populatable = attribute.type in ("relation", "media", "component", "dynamiczone")
            if isinstance(attribute, RelationAttribute) and not self._readable(attribute):
                continue
            if populatable and not attribute.private:
                populate[name] = self._default_node(attribute)
        if isinstance(model, ContentType) and model.localized:
            populate[LOCALIZATIONS] = RelationPopulate()
        return populate

    def _default_node(self, attribute: Any) -> PopulateNode:
        """The node of a bare ``populate`` of ``attribute`` (``_populatable``'s answer)."""
        if attribute == LOCALIZATIONS or isinstance(attribute, RelationAttribute):
            return RelationPopulate()
        if isinstance(attribute, MediaAttribute):
            return MediaPopulate()
        if isinstance(attribute, ComponentAttribute):
            return ComponentPopulate()
        return DynamicZonePopulate()

    def _populate_paths(self, model: Model, paths: list[str]) -> Populate:
        """Array and dotted forms: ``["seo", "seo.shareImage", "author.profile"]``.

        A ``*`` among other paths is ignored, as Strapi 4.25's query layer skips it (no such
        attribute): ``populate=*,author`` populates ``author`` only, and FoodAdvisor's
        ``populate[blocks][populate]=*,buttons.link`` only ``buttons.link`` (checked on the
        reference). ``*`` alone is ``populate()``'s ``_populate_all``.
        """
        tree: dict[str, Any] = {}
        for path in paths:
            if path == "*":
                continue
            node = tree
            for step in path.split("."):
                node = node.setdefault(step, {})
        return self._populate_tree(model, tree)

    def _populate_tree(self, model: Model, tree: Mapping[str, Any]) -> Populate:
        populate: Populate = {}
        for name, children in tree.items():
            spec: Any = {"populate": dict(children)} if children else True
            node = self._populate_entry(model, name, spec, nested_as_paths=True)
            if node is not None:
                populate[name] = node
        return populate

    def _populate_entry(
        self, model: Model, name: str, spec: Any, *, nested_as_paths: bool = False
    ) -> PopulateNode | None:
        """One ``populate`` key and its value → its node, or ``None`` to leave it out.

        Left out, with nothing inside looked at (so an ignored key is never an oracle): a
        name that is not a populatable attribute (``_populatable``) and a relation to a type
        the caller may not ``find`` (the spec's populate rule 10). Option names Strapi does
        not read inside a populate object (``populate[author][bogus]=1``) are ignored too, as
        its ``convertNestedPopulate`` does.
        """
        attribute = self._populatable(model, name)
        if attribute is None:
            return None
        if isinstance(attribute, RelationAttribute) and not self._readable(attribute):
            return None
        if not isinstance(spec, Mapping):
            if isinstance(spec, str) and "," in spec:
                spec = {"populate": spec}
            elif not loose_boolean(spec):  # Strapi: false/f/0/empty skip, anything else is on
                return None
            else:
                return self._default_node(attribute)
        zone_on = isinstance(attribute, DynamicZoneAttribute) and spec.get("on") is not None
        if not zone_on:  # with `on`, Strapi reads only `on` (each of its specs is checked)
            _check_populate_pages(spec)
        if attribute == LOCALIZATIONS or isinstance(attribute, RelationAttribute):
            target = (
                model
                if attribute == LOCALIZATIONS
                else self.registry.content_types[attribute.target]
            )
            assert isinstance(target, ContentType)
            return self._relation_node(target, spec, nested_as_paths)
        if isinstance(attribute, MediaAttribute):
            # Strapi loads media as a relation to files: `filters` and `sort` apply to them
            files = self.registry.content_types[FILE_UID]
            return MediaPopulate(
                self.fields(files, spec["fields"]) if "fields" in spec else None,
                self._populate_filters(files, spec),
                self.sort(files, spec["sort"]) if "sort" in spec else (),
            )
        if isinstance(attribute, ComponentAttribute):
            component = self.registry.components[attribute.component]
            return ComponentPopulate(
                self.fields(component, spec["fields"]) if "fields" in spec else None,
                self._children(component, spec.get("populate"), nested_as_paths),
                self._populate_filters(component, spec),
                self.sort(component, spec["sort"]) if "sort" in spec else (),
            )
        assert isinstance(attribute, DynamicZoneAttribute)
        if zone_on:
            # Strapi reads only `on` then (filters or sort beside it are not read); an `on`
            # that is no object names no component type, so the zone answers empty.
            on: dict[str, ComponentPopulate] = {}
            specs = spec["on"] if isinstance(spec["on"], Mapping) else {}
            for uid, component_spec in specs.items():
                component_spec = component_spec if isinstance(component_spec, Mapping) else {}
                _check_populate_pages(component_spec)
                if uid not in attribute.components:
                    # Strapi reads only the zone's items of the types `on` names: a uid
                    # the zone lacks adds none (and alone leaves the zone empty).
                    continue
                component = self.registry.components[uid]
                if "sort" in component_spec:
                    # Validated, but a dynamic zone keeps its stored order: Strapi 4.25 answers
                    # `on[blocks.quote][sort]=title:desc` with the quotes as stored.
                    self.sort(component, component_spec["sort"])
                on[uid] = ComponentPopulate(
                    self.fields(component, component_spec["fields"])
                    if "fields" in component_spec
                    else None,
                    self._children(component, component_spec.get("populate"), False),
                    self._populate_filters(component, component_spec),
                )
            return DynamicZonePopulate(on=on)
        for key in ("filters", "sort"):
            if _given(spec, key):  # Strapi 4.25 answers 500 for them outside `on`
                raise ValidationError(f"Invalid key {key}")
        zone = self._zone_shared(attribute, spec.get("populate"), nested_as_paths=nested_as_paths)
        if not _given(spec, "fields"):
            return zone
        # Strapi hands `fields` to every component type's query: `fields[0]=id` keeps only the
        # ids, a name one of the zone's components lacks fails there (500), a 400 here.
        shared = zone.on or {}
        return DynamicZonePopulate(
            on={
                uid: ComponentPopulate(
                    self.fields(self.registry.components[uid], spec["fields"]),
                    shared[uid].populate if uid in shared else {},
                )
                for uid in attribute.components
            }
        )

    def _populate_filters(self, model: Model, spec: Mapping[str, Any]) -> Filter | None:
        if "filters" not in spec:
            return None
        return self.filters(model, spec["filters"], "populate.filters")

    def _zone_shared(
        self, attribute: DynamicZoneAttribute, shared: Any, *, nested_as_paths: bool = False
    ) -> DynamicZonePopulate:
        """``populate[zone][populate]=…`` and dotted paths through a zone: one populate for all
        the zone's components, read against each component (Strapi hands the same populate to
        each component type's query, which skips the names that type lacks). Per component, so
        that an attribute name two components use for different things is read as each one's.

        ``nested_as_paths``: ``shared`` is the rest of dotted paths (``blocks.author.avatar`` →
        ``{"author": {"avatar": {}}}``), each level names attributes, not populate options.
        """
        if shared is None:
            return DynamicZonePopulate()
        on: dict[str, ComponentPopulate] = {}
        for uid in attribute.components:
            component = self.registry.components[uid]
            if shared == "*" or shared == ["*"]:
                part = self._populate_all(component)
            elif nested_as_paths and isinstance(shared, Mapping):
                part = self._populate_tree(component, shared)
            else:
                part = self.populate(component, shared)
            on[uid] = ComponentPopulate(populate=part)
        if not any(spec.populate for spec in on.values()):
            return DynamicZonePopulate()
        return DynamicZonePopulate(on=on)

    def _children(self, model: Model, value: Any, nested_as_paths: bool) -> Populate:
        if value is None:
            return {}
        if nested_as_paths and isinstance(value, Mapping):
            return self._populate_tree(model, value)
        return self.populate(model, value)

    def _relation_node(
        self, target: ContentType, spec: Mapping[str, Any], nested_as_paths: bool
    ) -> RelationPopulate:
        limit: int | None = None
        offset = 0
        pages = {k: spec[k] for k in ("limit", "start") if _given(spec, k)}
        if pages:  # what Strapi applies inside a populate
            pagination = self.pagination(pages)
            limit, offset = pagination.limit, pagination.offset
        count = "count" in spec and loose_boolean(spec["count"])
        return RelationPopulate(
            fields=self.fields(target, spec["fields"]) if _given(spec, "fields") else None,
            filters=self._populate_filters(target, spec),
            sort=self.sort(target, spec["sort"]) if _given(spec, "sort") else (),
            populate=self._children(target, spec.get("populate"), nested_as_paths),
            limit=limit,
            offset=offset,
            count=count,
        )
