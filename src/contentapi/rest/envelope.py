"""Response envelopes: ``{data, meta}`` with Strapi's ``meta.pagination`` shapes."""

from __future__ import annotations

import math
from typing import Any

from contentapi.query.ast import OffsetPagination, PagePagination, Pagination

__all__ = ["list_envelope", "pagination_meta", "single_envelope"]


def pagination_meta(pagination: Pagination, total: int | None) -> dict[str, Any]:
    """``{page, pageSize, pageCount, total}`` or ``{start, limit, total}``; totals when counted."""
    if isinstance(pagination, PagePagination):
        meta: dict[str, Any] = {"page": pagination.page, "pageSize": pagination.page_size}
        if total is not None:
            meta["pageCount"] = (
                math.ceil(total / pagination.page_size) if pagination.page_size else 0
            )
            meta["total"] = total
        return meta
    assert isinstance(pagination, OffsetPagination)
    meta = {"start": pagination.start, "limit": pagination.limit}
    if total is not None:
        meta["total"] = total
    return meta


def list_envelope(
    data: list[dict[str, Any]], pagination: Pagination, total: int | None
) -> dict[str, Any]:
    return {"data": data, "meta": {"pagination": pagination_meta(pagination, total)}}


def single_envelope(data: dict[str, Any] | None) -> dict[str, Any]:
    return {"data": data, "meta": {}}
