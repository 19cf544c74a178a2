"""``EntryAccess``: what a service over one built-in content type (upload's files, the users of
users-permissions) is built with, declared once so those services only add their own."""

from __future__ import annotations

from dataclasses import dataclass

from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries.service import EntryService
from contentapi.schema.registry import Registry

__all__ = ["EntryAccess"]


@dataclass(slots=True, eq=False)
class EntryAccess:
    """The database, tables, registry and entry service, in the order the composition root
    passes them; a base dataclass, so subclasses' own fields follow them. Compared by identity,
    as services are."""

    database: Database
    tables: ContentTables
    registry: Registry
    entries: EntryService
