"""Import and export as whole operations on a started runtime: read the archive, then load it
in one write transaction (or dump the database, then write the archive)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from contentapi.transfer.archive import read_archive
from contentapi.transfer.load import LoadReport, load_archive

if TYPE_CHECKING:
    from contentapi.runtime import Runtime

__all__ = ["import_file"]


async def import_file(runtime: Runtime, path: Path, key: str | None = None) -> LoadReport:
    """Replace the content by the archive at ``path`` (``ArchiveError``: nothing written)."""
    archive = read_archive(path, key)
    async with runtime.database.write(changes_callers=True) as conn:
        return await load_archive(
            conn, runtime.registry, runtime.tables, runtime.storage, archive
        )
