"""Pagination, once for both protocols: the rules that turn a request's pagination into a
window of entries, and the ``meta.pagination`` each protocol answers with.

REST (``pagination[page]``/``[pageSize]`` or ``[start]``/``[limit]``, ``[withCount]``) and
GraphQL (``pagination: {page, pageSize, start, limit}``) follow Strapi's rules, which differ:
REST defaults to ``api.rest.defaultLimit`` and clamps to ``maxLimit``, GraphQL defaults to 10
and clamps to ``amountLimit``; each refuses mixed styles with its own Strapi message. Both
count pages with ``page_meta``. A ``page``/``pageSize`` inside a REST ``populate`` object is
checked here too (``check_populate_pages``), as Strapi checks it, then has no effect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import OffsetPagination, PagePagination, Pagination

__all__ = [
    "GRAPHQL_DEFAULT_LIMIT",
    "Window",
    "check_populate_pages",
    "graphql_window",
    "page_meta",
    "pagination_meta",
    "rest_pagination",
]

#: Strapi's GraphQL default page size, at the root and per parent in nested lists.
GRAPHQL_DEFAULT_LIMIT = 10


def _styles(value: Mapping[str, Any]) -> tuple[bool, bool]:
    """Whether ``value`` uses page-based and whether it uses offset-based pagination."""
    paged = "page" in value or "pageSize" in value
    offset = "start" in value or "limit" in value
    return paged, offset


# ------------------------------------------------------------ REST


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


def _js_text(value: Any) -> str:
    """A query value as JavaScript's template literal writes it (arrays joined by commas)."""
    if isinstance(value, list):
        return ",".join(_js_text(item) for item in value)
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


def rest_pagination(
    value: Any, *, default_limit: int, max_limit: int, with_count: bool
) -> Pagination:
    """Strapi's pagination rules: page/pageSize or start/limit, never both; clamped."""
    if value is None:
        return PagePagination(1, default_limit, with_count)
    if not isinstance(value, Mapping):
        raise ValidationError("Invalid pagination parameter")
    if "withCount" in value:
        flag = value["withCount"]
        if str(flag).lower() not in ("t", "1", "true", "false", "0", "f"):
            raise ValidationError(
                'Invalid withCount parameter. Expected "t","1","true","false","0","f"'
            )
        with_count = str(flag).lower() in ("t", "1", "true")
    paged, offset = _styles(value)
    if paged and offset:
        raise ValidationError(
            "Invalid pagination parameters. Expected either start/limit or page/pageSize"
        )
    if offset:
        start = _integer(value.get("start", 0), "start")
        limit = _integer(value.get("limit", default_limit), "limit")
        # Strapi: -1 means "as many as allowed"; otherwise at least 1, at most maxLimit.
        limit = max_limit if limit == -1 else min(max(1, limit), max_limit)
        return OffsetPagination(max(0, start), limit, with_count)
    page = _integer(value.get("page", 1), "page")
    page_size = _integer(value.get("pageSize", default_limit), "pageSize")
    page_size = min(max(1, page_size), max_limit)
    return PagePagination(max(1, page), page_size, with_count)


def check_populate_pages(spec: Mapping[str, Any]) -> None:
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


# ------------------------------------------------------------ GraphQL


@dataclass(frozen=True, slots=True)
class Window:
    """``start``/``limit`` after Strapi's ``withDefaultPagination`` and our ``amountLimit``."""

    start: int
    limit: int

    def meta(self, total: int) -> dict[str, Any]:
        """``Pagination`` as Strapi's ``ResponseCollectionMeta`` computes it."""
        return page_meta(self.start // self.limit + 1, self.limit, total)


def graphql_window(pagination: Mapping[str, Any] | None, amount_limit: int) -> Window:
    """Strapi's ``withDefaultPagination`` (default 10, ``-1`` for "all"), capped at
    ``amountLimit`` (docs/differences-from-strapi.md: Strapi 4.25 ignores it)."""
    args = {k: v for k, v in (pagination or {}).items() if v is not None}
    paged, offset = _styles(args)
    if paged and offset:
        raise PaginationError("Cannot use both page & offset pagination in the same query")
    if paged:
        page_size = max(1, args.get("pageSize", 0))  # Strapi: `page` alone gives a size of 1
        start, limit = (args.get("page", 1) - 1) * page_size, page_size
    else:
        start, limit = args.get("start", 0), args.get("limit", GRAPHQL_DEFAULT_LIMIT)
    if limit == -1:
        limit = amount_limit
    return Window(max(0, start), min(max(1, limit), amount_limit))


# ------------------------------------------------------------ meta


def page_meta(page: int, page_size: int, total: int | None) -> dict[str, Any]:
    """``{page, pageSize, pageCount, total}`` (the count and total only when counted)."""
    meta: dict[str, Any] = {"page": page, "pageSize": page_size}
    if total is not None:
        meta["pageCount"] = math.ceil(total / page_size) if page_size else 0
        meta["total"] = total
    return meta


def pagination_meta(pagination: Pagination, total: int | None) -> dict[str, Any]:
    """REST's ``meta.pagination``: ``{page, pageSize, pageCount, total}`` or ``{start, limit,
    total}``; totals when counted."""
    if isinstance(pagination, PagePagination):
        return page_meta(pagination.page, pagination.page_size, total)
    assert isinstance(pagination, OffsetPagination)
    meta: dict[str, Any] = {"start": pagination.start, "limit": pagination.limit}
    if total is not None:
        meta["total"] = total
    return meta
