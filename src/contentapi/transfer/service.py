"""Import and export as whole operations on a started runtime: read the archive, then load it
in one write transaction (or dump the database, then write the archive)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from contentapi.schema.builtin import FILE_UID
from contentapi.transfer.archive import Archive, Asset, read_archive, write_archive
from contentapi.transfer.dump import dump_database
from contentapi.transfer.load import LoadReport, load_archive

if TYPE_CHECKING:
    from contentapi.runtime import Runtime

__all__ = ["export_file", "import_file"]


async def import_file(runtime: Runtime, path: Path, key: str | None = None) -> LoadReport:
    """Replace the content by the archive at ``path`` (``ArchiveError``: nothing written)."""
    archive = read_archive(path, key)
    async with runtime.database.write(changes_callers=True) as conn:
        return await load_archive(conn, runtime.registry, runtime.tables, runtime.storage, archive)


async def export_file(
    runtime: Runtime, path: Path, key: str | None = None, *, compress: bool = True
) -> Archive:
    """Write the whole content, with the files' bytes, as an archive at ``path``."""
    async with runtime.database.write() as conn:  # one snapshot of every table
        archive = await dump_database(conn, runtime.registry, runtime.tables)
    for entity in archive.entities:
        if entity["type"] != FILE_UID:
            continue
        data = entity["data"]
        names = [f"{data.get('hash')}{data.get('ext') or ''}"]
        names += [
            f"{format_['hash']}{format_.get('ext') or ''}"
            for format_ in (data.get("formats") or {}).values()
            if isinstance(format_, dict) and format_.get("hash")
        ]
        for name in names:
            content = await runtime.storage.load(name)
            if content is not None:
                archive.assets[name] = Asset(name, content, {"id": entity["id"], **data})
    write_archive(path, archive, key=key, compress=compress)
    return archive
