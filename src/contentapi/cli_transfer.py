"""``contentapi export FILE`` / ``contentapi import FILE``: Strapi's data-transfer archives.

The archive of ``strapi export`` (``.tar.gz``, or ``.tar.gz.enc`` with ``--key``) moves a
Strapi project's content here and back, and copies content between environments. An import
replaces the content in one transaction: a damaged archive, a wrong key or content this
server's models cannot hold is one line and exit 2, with nothing written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from contentapi.cli_common import (
    counted,
    err,
    fail,
    on_started_runtime,
)

if TYPE_CHECKING:
    from contentapi.runtime import Runtime

__all__ = ["export_command", "import_command"]

T = TypeVar("T")

KeyOption = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Encryption key (Strapi's aes-128-ecb): an export is encrypted with it, "
        "an import decrypts with it",
        metavar="KEY",
    ),
]


def _with_runtime(work: Callable[[Runtime], Awaitable[T]]) -> T:
    from contentapi.transfer.archive import ArchiveError

    return on_started_runtime(
        work, ArchiveError, lambda error: f"cannot import: {error}; nothing was written"
    )


def export_command(
    file: Annotated[Path, typer.Argument(help="Where to write the archive", metavar="FILE")],
    key: KeyOption = None,
    no_compress: Annotated[
        bool, typer.Option("--no-compress", help="Write a plain .tar (no gzip)")
    ] = False,
) -> None:
    """Write every entry, relation, component, locale and file as a Strapi data-transfer
    archive (what `strapi import -f FILE` reads)."""
    from contentapi.transfer.service import export_file

    async def export(runtime: Runtime) -> tuple[int, int, int]:
        archive = await export_file(runtime, file, key, compress=not no_compress)
        return len(archive.entities), len(archive.links), len(archive.assets)

    if file.parent and not file.parent.is_dir():
        raise fail(f"cannot export: no folder {file.parent}")
    entities, links, assets = _with_runtime(export)
    err.print(
        f"exported {counted(entities, 'entity', 'entities')}, {counted(links, 'link')} and "
        f"{counted(assets, 'file')} to {file}",
        highlight=False,
    )


def import_command(
    file: Annotated[
        Path,
        typer.Argument(help="An archive of strapi export or contentapi export", metavar="FILE"),
    ],
    key: KeyOption = None,
) -> None:
    """Replace the content by an archive's (Strapi's data-transfer format): the content types
    it holds are emptied first, as strapi import does, all in one transaction."""
    from contentapi.transfer.service import import_file

    async def load(runtime: Runtime) -> str:
        report = await import_file(runtime, file, key)
        total = sum(report.entities.values())
        skipped = sum(report.skipped.values())
        line = (
            f"imported {counted(total, 'entity', 'entities')}, {counted(report.links, 'link')} "
            f"and {counted(report.assets, 'file')} from {file}"
        )
        if skipped:
            kinds = ", ".join(sorted(report.skipped))
            line += f" ({counted(skipped, 'item')} of types this server lacks skipped: {kinds})"
        return line

    err.print(_with_runtime(load), highlight=False)
