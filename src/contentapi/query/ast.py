"""The typed read query every protocol hands to the entry service.

Only what the service needs today: pagination, publication state and locale. The query
language issue adds filters, sort, fields and populate to the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["OffsetPagination", "PagePagination", "Pagination", "PublicationState", "ReadQuery"]

PublicationState = Literal["live", "preview"]


@dataclass(frozen=True, slots=True)
class PagePagination:
    page: int = 1
    page_size: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size

    @property
    def limit(self) -> int:
        return self.page_size


@dataclass(frozen=True, slots=True)
class OffsetPagination:
    start: int = 0
    limit: int = 25
    with_count: bool = True

    @property
    def offset(self) -> int:
        return self.start


Pagination = PagePagination | OffsetPagination


@dataclass(frozen=True, slots=True)
class ReadQuery:
    """What to read: the page, which publication state, which locale (``None``: default)."""

    pagination: Pagination = field(default_factory=PagePagination)
    publication_state: PublicationState = "live"
    locale: str | None = None
