"""The entry service: every read and write of entries, shared by REST and GraphQL."""

from contentapi.entries.service import EntryService, Page

__all__ = ["EntryService", "Page"]
