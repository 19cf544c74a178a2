"""Response envelopes: ``{data, meta}`` with Strapi's ``meta.pagination`` shapes (computed by
``query/pagination.py``, which GraphQL's ``Pagination`` meta shares)."""

from __future__ import annotations

from typing import Any

from contentapi.query.ast import Pagination
from contentapi.query.pagination import pagination_meta

__all__ = ["list_envelope", "single_envelope"]


def list_envelope(
    data: list[dict[str, Any]], pagination: Pagination, total: int | None
) -> dict[str, Any]:
    return {"data": data, "meta": {"pagination": pagination_meta(pagination, total)}}


def single_envelope(data: dict[str, Any] | None) -> dict[str, Any]:
    return {"data": data, "meta": {}}
