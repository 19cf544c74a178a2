"""``contentapi locales list / add / remove / default``: the i18n locales without an admin panel.

Strapi's admin panel adds and removes locales and sets the default one; these commands write
the same rows (``i18n/manage.py`` holds Strapi's rules), each in one transaction. A running
server — every worker, every instance — sees the change on its next request: PostgreSQL
notifies it (``contentapi_locales``), and on SQLite it reads the locales every time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from contentapi.cli_common import (
    PlainHelpCommand,
    counted,
    err,
    on_started_runtime,
)

if TYPE_CHECKING:
    from contentapi.db.async_engine import AsyncConnection
    from contentapi.runtime import Runtime

__all__ = ["locales_app"]

locales_app = typer.Typer(
    no_args_is_help=True,
    help="The i18n locales: list, add, remove, set the default.",
    rich_markup_mode=None,
)
T = TypeVar("T")


def _in_transaction(work: Callable[[Runtime, AsyncConnection], Awaitable[T]]) -> T:
    """Start the runtime (migrations, ``CONTENTAPI_LOCALES``), run ``work`` in one write
    transaction; a refusal (``LocaleRefused``) is one line and exit 2, nothing written."""
    from contentapi.i18n.manage import LocaleRefused

    async def in_transaction(runtime: Runtime) -> T:
        async with runtime.database.write() as conn:
            return await work(runtime, conn)

    return on_started_runtime(in_transaction, LocaleRefused)


@locales_app.command("list")
def locales_list() -> None:
    """List the locales: code, name, and which is the default."""
    from contentapi.i18n.store import read_locales

    async def read(_runtime: Runtime, conn: AsyncConnection) -> list[dict[str, Any]]:
        return await read_locales(conn)

    table = Table(box=None, pad_edge=False)
    for column in ("code", "name", "default"):
        table.add_column(column)
    for locale in _in_transaction(read):
        table.add_row(locale["code"], locale["name"], "default" if locale["isDefault"] else "")
    Console(width=200).print(table, highlight=False, soft_wrap=True)


@locales_app.command("add", cls=PlainHelpCommand)
def locales_add(
    code: Annotated[str, typer.Argument(help="An ISO locale code, as fr or en-GB", metavar="CODE")],
    name: Annotated[
        str | None,
        typer.Option(help="Its display name (default: Strapi's, as French (fr))", metavar="NAME"),
    ] = None,
) -> None:
    """Add a locale; entries can be written and read in it at once."""
    from contentapi.i18n.manage import add_locale

    async def add(_runtime: Runtime, conn: AsyncConnection) -> str:
        return await add_locale(conn, code, name)

    added = _in_transaction(add)
    err.print(f"added locale {code!r} ({added})", highlight=False)


@locales_app.command("remove", cls=PlainHelpCommand)
def locales_remove(
    code: Annotated[
        str, typer.Argument(help="The locale's code (see locales list)", metavar="CODE")
    ],
    yes: Annotated[
        bool, typer.Option("--yes", help="Also delete the entries written in it")
    ] = False,
) -> None:
    """Remove a locale (not the default one). The entries written in it are deleted with it,
    as Strapi deletes them: without --yes, only say how many would be."""
    from contentapi.i18n.manage import remove_locale

    async def remove(runtime: Runtime, conn: AsyncConnection) -> int:
        return await remove_locale(conn, runtime.entries.writer, code, confirmed=yes)

    deleted = _in_transaction(remove)
    written = counted(deleted, "entry", "entries")
    err.print(f"removed locale {code!r} and {written} written in it", highlight=False)


@locales_app.command("default", cls=PlainHelpCommand)
def locales_default(
    code: Annotated[
        str, typer.Argument(help="The locale's code (see locales list)", metavar="CODE")
    ],
) -> None:
    """Make a locale the default one: entries are created and read in it unless asked."""
    from contentapi.i18n.manage import set_default_locale

    async def make_default(_runtime: Runtime, conn: AsyncConnection) -> None:
        await set_default_locale(conn, code)

    _in_transaction(make_default)
    err.print(f"the default locale is {code!r}", highlight=False)
