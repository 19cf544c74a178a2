"""The collaborators the entry flows reach on every request (``entries/writes.py``,
``entries/single_types.py``, ``entries/new_localization.py``), copied onto each flow once.

They are attributes of the flow itself rather than looked up through ``self.reads`` so that a
request pays one attribute lookup for each; the copying is written here once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from contentapi.entries.reads import EntryReads

if TYPE_CHECKING:
    from contentapi.entries.writes import EntryWrites

__all__ = ["ReadsParts", "WritesParts"]


class ReadsParts:
    """A flow over ``EntryReads``: it and its registry, tables, database, locales, populator,
    lifecycle hooks and ``content_type`` lookup."""

    def __init__(self, reads: EntryReads) -> None:
        self.reads = reads
        self.registry = reads.registry
        self.tables = reads.tables
        self.database = reads.database
        self.locales = reads.locales
        self.populator = reads.populator
        self.content_type = reads.content_type
        self.lifecycles = reads.lifecycles


class WritesParts(ReadsParts):
    """A flow over ``EntryReads`` and ``EntryWrites``: also the writes, their writer, the
    change feed's recorder and the password hasher."""

    def __init__(self, reads: EntryReads, writes: EntryWrites) -> None:
        super().__init__(reads)
        self.writes = writes
        self.writer = writes.writer
        self.events = writes.events
        self.passwords = writes.passwords
