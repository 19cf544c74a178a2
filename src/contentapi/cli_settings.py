"""``contentapi settings``: the users-permissions plugin's settings, without an admin panel.

Strapi changes them in its admin panel; these commands read and write the same rows
(``strapi_core_store_settings``), so a running server — every instance — applies a change
on the next request that needs it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from contentapi.cli_common import PlainHelpCommand, fail, load_checked_models, read_settings
from contentapi.db.async_engine import AsyncConnection

if TYPE_CHECKING:
    from contentapi.db.tables import ContentTables

__all__ = ["settings_app"]

settings_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="The users-permissions settings (sign-up, e-mail confirmation, mail templates).",
)
err = Console(stderr=True)
T = TypeVar("T")


def _with_database(work: Callable[[AsyncConnection, ContentTables], Awaitable[T]]) -> T:
    """Start the runtime (migrations, default settings), run ``work`` in one transaction."""
    from contentapi.runtime import Runtime

    settings = read_settings()
    if load_checked_models(settings, quiet=True) is None:
        raise typer.Exit(1)

    async def run() -> T:
        runtime = Runtime.build(settings)
        try:
            await runtime.start()
            async with runtime.database.write() as conn:
                return await work(conn, runtime.tables)
        finally:
            await runtime.stop()

    return asyncio.run(run())


@settings_app.command("show")
def show() -> None:
    """Print the advanced settings and the mail templates as JSON."""
    from contentapi.auth.plugin_settings import read_advanced, read_mail_templates

    async def read(conn: AsyncConnection, _tables: ContentTables) -> dict[str, Any]:
        advanced = await read_advanced(conn)
        templates = await read_mail_templates(conn)
        return {
            "advanced": advanced.to_json(),
            "email": {
                name: {
                    "from_name": template.from_name,
                    "from_email": template.from_email,
                    "response_email": template.response_email,
                    "object": template.object,
                    "message": template.message,
                }
                for name, template in (
                    ("reset_password", templates.reset_password),
                    ("email_confirmation", templates.email_confirmation),
                )
            },
        }

    print(json.dumps(_with_database(read), indent=2, ensure_ascii=False))


@settings_app.command("set", cls=PlainHelpCommand)
def set_advanced(
    assignments: Annotated[
        list[str],
        typer.Argument(
            metavar="NAME=VALUE",
            help="NAME=VALUE pairs: unique_email, allow_register, email_confirmation (true or "
            "false), email_reset_password, email_confirmation_redirection (a URL, or null), "
            "default_role (a role type)",
        ),
    ],
) -> None:
    """Change advanced settings (NAME=VALUE pairs, as email_confirmation=true)."""
    from contentapi.auth.plugin_settings import (
        UnknownRoleError,
        parse_advanced_value,
        write_advanced,
    )

    changes: dict[str, Any] = {}
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        if not sep:
            raise fail(f"{assignment!r} is not NAME=VALUE")
        try:
            changes[name.strip()] = parse_advanced_value(name.strip(), text)
        except ValueError as error:
            raise fail(str(error)) from None

    async def write(conn: AsyncConnection, tables: ContentTables) -> dict[str, Any]:
        return (await write_advanced(conn, tables, changes)).to_json()

    try:
        written = _with_database(write)
    except UnknownRoleError as error:  # nothing written: the transaction rolled back
        raise fail(str(error)) from None
    print(json.dumps(written, indent=2))


@settings_app.command("template", cls=PlainHelpCommand)
def set_template(
    name: Annotated[
        str, typer.Argument(help="reset_password or email_confirmation", metavar="TEMPLATE")
    ],
    from_name: Annotated[str | None, typer.Option(help="Sender name", metavar="TEXT")] = None,
    from_email: Annotated[
        str | None,
        typer.Option(
            help="Sender address ('' for CONTENTAPI_EMAIL_FROM)",
            metavar="ADDRESS",
        ),
    ] = None,
    reply_to: Annotated[
        str | None,
        typer.Option(help="Reply-To address", metavar="ADDRESS"),
    ] = None,
    subject: Annotated[
        str | None,
        typer.Option(help="Subject (<%= USER.username %> …)", metavar="TEXT"),
    ] = None,
    message_file: Annotated[
        Path | None,
        typer.Option(
            help="HTML body with <%= URL %>, <%= TOKEN %> or <%= CODE %>",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """Change a mail template's sender, reply-to address, subject or body (what no option
    names stays as it is)."""
    from contentapi.auth.plugin_settings import TEMPLATE_NAMES, write_mail_template

    if name not in TEMPLATE_NAMES:
        raise fail(f"the template is one of {', '.join(TEMPLATE_NAMES)}")
    changes = {
        key: value
        for key, value in (
            ("from_name", from_name),
            ("from_email", from_email),
            ("response_email", reply_to),
            ("object", subject),
        )
        if value is not None
    }
    if message_file is not None:
        changes["message"] = message_file.read_text(encoding="utf-8")
    if not changes:
        raise fail("nothing to change: give at least one option")

    async def write(conn: AsyncConnection, _tables: ContentTables) -> None:
        await write_mail_template(conn, name, changes)

    _with_database(write)
    err.print(f"template {name} changed")
