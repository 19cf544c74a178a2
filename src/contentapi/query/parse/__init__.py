"""Parsed query string (``qs.parse_query``'s dict) → ``ReadQuery``, validated against the model.

Every rejection of a REST query happens in this package, as a ``ValidationError``: unknown,
private or password attributes in ``filters``/``sort``/``fields``, unknown operators, relations
in ``fields``, filters on media or dynamic zones, mixed pagination styles, non-integer
pagination values, an invalid ``publicationState``. Out of range pagination values are clamped
as Strapi does (docs/differences-from-strapi.md, "kept"). A ``populate`` key that names no
populatable attribute is ignored, as Strapi ignores it. A query whose answer could hold more
entries than ``cost_limit`` is refused here too (``query/parse/cost.py``), before any statement.

``QueryParser`` is the facade: it reads the small parameters itself and hands each other one
to its module (``filters``, ``sort``, ``fields``, ``populate``; pagination is
``query/pagination.py``, shared with GraphQL), then orders their errors as Strapi does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from contentapi.errors import ValidationError
from contentapi.query.ast import And, Filter, Pagination, Populate, ReadQuery, SortKey
from contentapi.query.coerce import InvalidFilterValue
from contentapi.query.pagination import rest_pagination
from contentapi.query.parse.cost import check_cost
from contentapi.query.parse.fields import parse_fields
from contentapi.query.parse.filters import FilterParser
from contentapi.query.parse.populate import PopulateParser
from contentapi.query.parse.scope import LOCALIZATIONS, everything
from contentapi.query.parse.sort import SortParser
from contentapi.query.parse.spelling import REST, Spelling
from contentapi.schema.model import ContentType, Model
from contentapi.schema.registry import Registry

__all__ = ["LOCALIZATIONS", "QueryLimits", "QueryParser"]


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """``api.rest.*`` settings and the configured locales."""

    default_limit: int = 25
    max_limit: int = 100
    with_count: bool = True
    locales: tuple[str, ...] = ("en",)
    #: the most entries and components an answer may hold (``query/parse/cost.py``); 0: no limit
    cost_limit: int = 0


class QueryParser:
    """Parses query parameters for the models of one registry, for one caller.

    ``may_find(uid)`` tells whether the caller may ``find`` entries of a content type: a
    relation to a type it may not read is left out of ``populate`` (the spec's populate rule
    10), and filtering or sorting through it is a 400 — never a silent strip that would turn
    the query into an oracle on hidden data (docs/differences-from-strapi.md).
    """

    def __init__(
        self, registry: Registry, limits: QueryLimits, may_find: Callable[[str], bool] = everything
    ) -> None:
        self.registry = registry
        self.limits = limits
        self.may_find = may_find
        self._filters = FilterParser(registry, may_find)
        self._sort = SortParser(registry, may_find)
        # a partial, not the bound method: no reference cycle in a parser made per request
        pagination = partial(
            rest_pagination,
            default_limit=limits.default_limit,
            max_limit=limits.max_limit,
            with_count=limits.with_count,
        )
        self._populate = PopulateParser(registry, may_find, self._filters, self._sort, pagination)

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
            by_locale = self._filters.attribute_filter(
                content_type, "locale", params["locale"], "locale"
            )
            locale = "all"
            if by_locale is not None:
                filters = by_locale if filters is None else And((by_locale, filters))
        pagination = self.pagination(params.get("pagination"))
        publication_state = self.publication_state(params.get("publicationState"))
        sort = self.sort(content_type, params["sort"]) if "sort" in params else ()
        return self._checked_query(
            content_type,
            params,
            bad_value,
            list_route=True,
            pagination=pagination,
            publication_state=publication_state,
            locale=locale,
            filters=filters,
            sort=sort,
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
        return self._checked_query(
            content_type,
            params,
            bad_value,
            list_route=False,
            publication_state=publication_state,
            locale=locale,
        )

    def _checked_query(
        self,
        content_type: ContentType,
        params: Mapping[str, Any],
        bad_value: InvalidFilterValue | None,
        *,
        list_route: bool,
        **read: Any,
    ) -> ReadQuery:
        """The ``ReadQuery`` of the parts ``read`` with the two parameters every read route
        checks last — ``fields``, then ``populate`` (``_populate_param``'s order) — refused
        when its answer could cost more than ``cost_limit``."""
        query = ReadQuery(
            **read,
            fields=self.fields(content_type, params["fields"]) if "fields" in params else None,
            populate=self._populate_param(content_type, params, bad_value),
        )
        limit = self.limits.cost_limit
        check_cost(self.registry, content_type, query, limit, list_route=list_route)
        return query

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
        """Strapi's pagination rules with this API's limits (``query/pagination.py``)."""
        limits = self.limits
        return rest_pagination(
            value,
            default_limit=limits.default_limit,
            max_limit=limits.max_limit,
            with_count=limits.with_count,
        )

    # ------------------------------------------------------------ the other parameters

    def fields(self, model: Model, value: Any) -> tuple[str, ...] | None:
        """``fields`` → the scalar names to read, ``None`` for all (``parse/fields.py``)."""
        return parse_fields(model, value)

    def filters(
        self, model: Model, value: Any, path: str = "filters", spelling: Spelling = REST
    ) -> Filter | None:
        """``filters`` in REST's or GraphQL's ``spelling`` → a filter tree with negations
        pushed down (``parse/filters.py``)."""
        return self._filters.filters(model, value, path, spelling)

    def sort(self, model: Model, value: Any) -> tuple[SortKey, ...]:
        """``sort`` → sort keys, first direction of a key kept (``parse/sort.py``)."""
        return self._sort.sort(model, value)

    def populate(self, model: Model, value: Any) -> Populate:
        """Every populate form of the spec → ``{attribute: PopulateNode}``
        (``parse/populate.py``)."""
        return self._populate.populate(model, value)
