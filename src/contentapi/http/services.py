"""The services every protocol surface's routes read content through, built once by the
composition root (``app.py``) and handed to the content, users and upload routers alike."""

from __future__ import annotations

from dataclasses import dataclass, field

from contentapi.auth.deps import CallerResolver
from contentapi.entries import EntryService
from contentapi.entries.serialize import RestSerializer
from contentapi.http.conditional import CacheDirectives
from contentapi.http.response_cache import ResponseCache
from contentapi.query.parse import QueryParser

__all__ = ["ContentServices"]


@dataclass(frozen=True)
class ContentServices:
    """Who is asking, what they may read, and how it is read and rendered."""

    callers: CallerResolver
    entries: EntryService
    query_parser: QueryParser
    serializer: RestSerializer
    #: the configured ``Cache-Control`` lifetimes, before each type's own (``http/conditional.py``)
    cache: CacheDirectives = field(default_factory=CacheDirectives)
    #: content GETs' kept answers (``CONTENTAPI_RESPONSE_CACHE``); ``None`` when off
    responses: ResponseCache | None = None
