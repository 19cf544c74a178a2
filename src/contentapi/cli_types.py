"""``contentapi types [--out DIR]``: TypeScript declarations of the REST API for a front end.

Apart from ``cli.py`` because it only needs the checked models; the generator itself is
``contentapi/typescript``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from contentapi.cli_common import err, load_checked_models, read_settings

__all__ = ["FILE_NAME", "types"]

FILE_NAME = "contentapi.d.ts"


def types(
    out: Annotated[
        Path | None,
        typer.Option(help=f"Write {FILE_NAME} into this folder", metavar="DIR"),
    ] = None,
) -> None:
    """Print (or write) TypeScript declarations of every model's REST shapes."""
    from contentapi.typescript import typescript_declarations

    settings = read_settings()
    registry = load_checked_models(settings, quiet=True)
    if registry is None:
        raise typer.Exit(1)
    text = typescript_declarations(registry, settings.locale_codes)
    if out is None:
        print(text, end="")
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / FILE_NAME).write_text(text, encoding="utf-8")
    err.print(f"wrote {out / FILE_NAME}", highlight=False, soft_wrap=True)
