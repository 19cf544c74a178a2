"""The paging of the plugin routes that list plain objects (``GET /api/users``,
``GET /api/upload/files``).

Strapi's users-permissions and upload controllers do not go through the content API's
``pagination[...]``: they hand their query to the entity service, whose parameter conversion
reads top-level ``start`` and ``limit`` (applied), ``page`` and ``pageSize`` (checked, never
applied: the entity service's ``findMany`` has no pages) and leaves ``pagination`` unread.
A client paging users with ``start``/``limit`` gets the same rows here; one sending
``pagination[limit]=1`` gets every row on both. Strapi answers 500 to a bad ``start`` or
``limit``; we answer 400.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import OffsetPagination, ReadQuery

__all__ = ["PAGING_KEYS", "with_entity_paging"]

#: the parameters this module reads (the list query is parsed without ``pagination``)
PAGING_KEYS = ("page", "pageSize", "start", "limit")
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_PREFIXED = {"0x": 16, "0o": 8, "0b": 2}


def _to_number(value: Any) -> float:
    """lodash's ``toNumber`` of a query-string value (JavaScript's ``Number``): blank is 0,
    ``0x10`` is 16, anything else that is not a decimal number is NaN."""
    if not isinstance(value, str):
        return math.nan
    text = value.strip()
    if not text:
        return 0.0
    base = _PREFIXED.get(text[:2].lower())
    if base is not None:
        try:
            return float(int(text[2:], base))
        except ValueError:
            return math.nan
    if text.lstrip("+-") == "Infinity":
        return -math.inf if text.startswith("-") else math.inf
    return float(text) if _DECIMAL.fullmatch(text) else math.nan


def _integer(value: Any) -> int | None:
    number = _to_number(value)
    return int(number) if math.isfinite(number) and number == int(number) else None


def _text(value: Any) -> str:
    """A value as JavaScript's template literal prints it (``undefined`` when absent)."""
    return "undefined" if value is None else str(value)


def with_entity_paging(query: ReadQuery, params: Mapping[str, Any], max_limit: int) -> ReadQuery:
    """``query`` (parsed without ``pagination``) paged as Strapi's entity service pages it.

    Checked in its order: page and offset paging mixed, ``page``, ``pageSize`` (whose message
    prints ``page``, as Strapi's does), ``start``, ``limit``. A ``limit`` of -1 or 0, or none,
    reads every row — at most ``max_limit`` here, as every list we answer.
    """
    page, page_size = params.get("page"), params.get("pageSize")
    start, limit = params.get("start"), params.get("limit")
    if (page is not None or page_size is not None) and (start is not None or limit is not None):
        raise PaginationError(
            "Invalid pagination attributes. You cannot use page and offset pagination in the "
            "same query"
        )
    if page is not None and not (_integer(page) or 0) > 0:
        raise PaginationError(
            f"Invalid 'page' parameter. Expected an integer > 0, received: {_text(page)}"
        )
    if page_size is not None and not (_integer(page_size) or 0) > 0:
        raise PaginationError(
            f"Invalid 'pageSize' parameter. Expected an integer > 0, received: {_text(page)}"
        )
    offset = 0
    if start is not None:
        parsed_start = _integer(start)
        offset = parsed_start if parsed_start is not None else -1
        if offset < 0:
            raise ValidationError(
                f"Invalid 'start' parameter. Expected an integer >= 0, received: {start}"
            )
    rows = max_limit
    if limit is not None:
        parsed = _integer(limit)
        if parsed is None or parsed < -1:
            raise ValidationError(
                f"Invalid 'limit' parameter. Expected an integer >= -1, received: {limit}"
            )
        rows = max_limit if parsed in (-1, 0) else min(parsed, max_limit)
    return replace(query, pagination=OffsetPagination(offset, rows, False))
