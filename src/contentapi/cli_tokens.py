"""``contentapi tokens create / list / revoke``: API tokens without an admin panel, written to
the same table Strapi's admin panel writes (a running server sees them on the next request).

Apart from ``cli.py`` (the server's commands) because these only need the runtime's database
and token hasher, and read best together: a name, a type, permissions checked against the
models' actions with a did-you-mean.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.console import Console
from rich.table import Table

from contentapi.cli_common import (
    PlainHelpCommand,
    database_reachable,
    err,
    fail,
    load_checked_models,
    read_settings,
)
from contentapi.config import Settings

if TYPE_CHECKING:
    from contentapi.auth.actor import TokenType
    from contentapi.auth.tokens import TokenInfo
    from contentapi.runtime import Runtime

__all__ = ["tokens_app"]

tokens_app = typer.Typer(no_args_is_help=True, help="API tokens.", rich_markup_mode=None)


class TokenTypeChoice(StrEnum):
    """``--type`` of ``tokens create`` (typer shows the choices in ``--help``)."""

    read_only = "read-only"
    full_access = "full-access"
    custom = "custom"


def _token_runtime(settings: Settings) -> Runtime:
    from contentapi.runtime import Runtime

    if load_checked_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    database_reachable(settings)
    return Runtime.build(settings)


@tokens_app.command("create")
def tokens_create(
    name: Annotated[str, typer.Option(help="A name for the token (unique)", metavar="NAME")],
    type_: Annotated[
        TokenTypeChoice,
        typer.Option(
            "--type", help="What the token may do", metavar="read-only|full-access|custom"
        ),
    ] = TokenTypeChoice.read_only,
    permission: Annotated[
        list[str] | None,
        typer.Option(
            help="An action a custom token may perform, as api::article.article.find (repeatable)",
            metavar="ACTION",
            show_default=False,
        ),
    ] = None,
    description: Annotated[
        str, typer.Option(help="What the token is for", metavar="TEXT", show_default=False)
    ] = "",
) -> None:
    """Create an API token; its secret is printed once, alone on the last line of stdout."""
    from contentapi.auth.permissions import all_actions
    from contentapi.auth.tokens import create_token, token_name_taken
    from contentapi.extensions import ExtensionError, load_extensions

    token_type = type_.value
    actions = list(dict.fromkeys(permission or []))
    if not name.strip():
        raise fail("--name must not be empty")
    if token_type == "custom" and not actions:
        raise fail("a custom token needs at least one --permission, e.g. api::article.article.find")
    if token_type != "custom" and actions:
        raise fail("--permission applies to custom tokens only (--type custom)")
    settings = read_settings()
    runtime = _token_runtime(settings)
    # the actions of extensions' custom routes too (``rest/customize.py``)
    try:
        custom = load_extensions(settings, runtime.registry).rest.custom_actions()
    except ExtensionError as error:
        raise fail(f"extension error: {error}") from None
    known = all_actions(runtime.registry, custom)
    problems = [_permission_problem(action, known) for action in actions]
    if any(problems):
        raise fail("\n".join(problem for problem in problems if problem))

    async def run() -> str | None:
        try:
            await runtime.start()
            assert runtime.token_hasher is not None
            async with runtime.database.write() as conn:
                if await token_name_taken(conn, name):
                    return None
                created = await create_token(
                    conn,
                    runtime.token_hasher,
                    name=name,
                    token_type=cast("TokenType", token_type),
                    actions=actions,
                    description=description,
                )
            return created.secret
        finally:
            await runtime.stop()

    secret = asyncio.run(run())
    if secret is None:
        raise fail(
            f"a token named {name!r} already exists: choose another --name, or revoke it first "
            f"(contentapi tokens revoke {name!r})"
        )
    err.print(f"created {token_type} token {name!r}; its secret is shown once:", highlight=False)
    sys.stdout.write(secret + "\n")


def _permission_problem(action: str, known: list[str]) -> str | None:
    """Why ``action`` is not a permission a token can hold (with a hint), or ``None``."""
    import difflib

    if action in known:
        return None
    hint = ""
    parts = action.split(".")
    if "::" not in action and len(parts) == 2:
        full = f"api::{parts[0]}.{parts[0]}.{parts[1]}"
        if full in known:
            hint = f" (did you mean {full!r}?)"
    if not hint:
        close = difflib.get_close_matches(action, known, n=1, cutoff=0.75)
        if close:
            hint = f" (did you mean {close[0]!r}?)"
    return (
        f"--permission {action!r} is not an action{hint}; actions are written "
        "api::<name>.<name>.<action> (find, findOne, create, update, delete) or "
        "plugin::<plugin>.<controller>.<action>"
    )


@tokens_app.command("list")
def tokens_list() -> None:
    """List API tokens: name, type, expiry and last use (never a secret)."""
    from contentapi.auth.tokens import list_tokens

    settings = read_settings()
    runtime = _token_runtime(settings)

    async def run() -> list[TokenInfo]:
        try:
            await runtime.start()
            async with runtime.database.read() as conn:
                return await list_tokens(conn)
        finally:
            await runtime.stop()

    tokens = asyncio.run(run())
    if not tokens:
        err.print("no API tokens")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("name", "type", "expires", "last used", "description"):
        table.add_column(column)
    for token in tokens:
        table.add_row(
            token.name,
            token.type,
            _when(token.expires_at, "never"),
            _when(token.last_used_at, "never"),
            token.description,
        )
    Console(width=200).print(table, highlight=False, soft_wrap=True)


def _when(value: datetime | None, missing: str) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else missing


@tokens_app.command("revoke", cls=PlainHelpCommand)
def tokens_revoke(
    name: Annotated[str, typer.Argument(help="The token's name (see tokens list)", metavar="NAME")],
) -> None:
    """Revoke (delete) an API token; requests carrying it answer 401 from then on."""
    from contentapi.auth.tokens import revoke_token

    settings = read_settings()
    runtime = _token_runtime(settings)

    async def run() -> bool:
        try:
            await runtime.start()
            async with runtime.database.write(changes_callers=True) as conn:
                return await revoke_token(conn, name)
        finally:
            await runtime.stop()

    if not asyncio.run(run()):
        raise fail(f"no API token named {name!r} (contentapi tokens list shows them)", code=1)
    err.print(f"revoked token {name!r}", highlight=False)
