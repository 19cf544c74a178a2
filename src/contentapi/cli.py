"""contentapi: a headless-CMS content API that speaks the Strapi v4 Content API.

Configuration comes from CONTENTAPI_* environment variables and an optional contentapi.toml in
the working directory (README.md, "Configuration")."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.console import Console
from rich.table import Table

from contentapi import __version__
from contentapi.cli_settings import settings_app
from contentapi.config import Settings
from contentapi.schema import ModelErrors, Registry
from contentapi.settings_loader import ConfigError, load_settings

if TYPE_CHECKING:
    from contentapi.auth.actor import TokenType
    from contentapi.auth.tokens import TokenInfo
    from contentapi.runtime import Runtime

__all__ = ["main"]

HELP = (
    "A headless-CMS content API that speaks the Strapi v4 Content API. Configuration comes "
    "from CONTENTAPI_* environment variables and an optional contentapi.toml in the working "
    "directory (README.md, Configuration)."
)
app = typer.Typer(add_completion=False, no_args_is_help=True, help=HELP)
tokens_app = typer.Typer(no_args_is_help=True, help="API tokens.")
app.add_typer(tokens_app, name="tokens")
app.add_typer(settings_app, name="settings")
err = Console(stderr=True, soft_wrap=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` (one line per problem, no traceback) and give the exit to raise."""
    for line in message.splitlines():
        err.print(f"[red]error:[/red] {line}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)


def _settings() -> Settings:
    try:
        return load_settings()
    except ConfigError as error:
        raise _fail(str(error)) from None


def _database_reachable(settings: Settings) -> None:
    """Stop with one line (exit 2) when the database cannot be used."""
    from contentapi.db.probe import DatabaseUnreachable, probe_database

    try:
        asyncio.run(probe_database(settings.database_url))
    except DatabaseUnreachable as error:
        raise _fail(str(error)) from None


def _load_models(settings: Settings, *, quiet: bool = False) -> Registry | None:
    """The registry, or ``None`` after printing every model problem with file and attribute."""
    from contentapi.extensions import ExtensionError
    from contentapi.models import load_models
    from contentapi.schema.builtin import BUILTIN_DOCUMENTS
    from contentapi.schema.custom_fields import CustomFieldError

    try:
        registry = load_models(settings)
    except (CustomFieldError, ExtensionError) as error:
        err.print(f"[red]error[/red] {error}", highlight=False, soft_wrap=True)
        return None
    except ModelErrors as problems:
        for problem in problems.errors:
            err.print(f"[red]error[/red] {problem}", highlight=False, soft_wrap=True)
        files = len({problem.source for problem in problems.errors})
        plural = "s" if len(problems.errors) != 1 else ""
        err.print(
            f"{len(problems.errors)} problem{plural} in {files} file{'s' if files != 1 else ''} "
            f"of {settings.content_types_dir}",
            highlight=False,
        )
        return None
    for warning in registry.warnings:
        err.print(f"[yellow]warning[/yellow] {warning}", highlight=False, soft_wrap=True)
    if not quiet:
        from contentapi.schema.sources import resolve_sources

        own = sum(1 for uid in registry.content_types if uid not in BUILTIN_DOCUMENTS)
        sources = resolve_sources(settings.content_types_dir)
        layout = ""
        if sources.layout == "strapi":
            layout = f" (a Strapi project's layout: {sources.root})"
        count = len(registry.warnings)
        verdict = f"valid, {count} warning{'s' if count != 1 else ''}" if count else "all valid"
        err.print(
            f"{own} content types and {len(registry.components)} components "
            f"in {settings.content_types_dir}{layout}: {verdict}",
            highlight=False,
        )
    return registry


def _check_models(settings: Settings) -> int:
    """Print every model problem (or that all are valid); 1 when there was any."""
    return 0 if _load_models(settings) is not None else 1


def _check_extensions(settings: Settings) -> int:
    """Load ``CONTENTAPI_EXTENSIONS`` and build the schema they change; 1 on a problem, which
    is printed (a conflict fails here, not in every worker)."""
    if not settings.extensions:
        return 0
    from contentapi.extensions import ExtensionError, load_extensions
    from contentapi.graphql import graphql_schema
    from contentapi.runtime import Runtime

    runtime = Runtime.build(settings)
    try:
        graphql_schema(runtime, load_extensions(settings, runtime.registry, runtime))
    except ExtensionError as error:
        err.print(f"[red]extension error:[/red] {error}", highlight=False, soft_wrap=True)
        return 1
    return 0


@app.command()
def check() -> None:
    """Validate every model in the content-types folder; exit 1 on any problem."""
    if _check_models(_settings()):
        raise typer.Exit(1)


def default_workers() -> int:
    """One worker per CPU core this process may use (cgroup/affinity aware), at most 8: each
    worker is a single-threaded event loop, and past a few the database is the limit."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Listen address")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port")] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes (default: one per CPU core available, at most 8)"),
    ] = None,
    reload: Annotated[bool, typer.Option(help="Restart on code changes")] = False,
) -> None:
    """Run the server (uvicorn)."""
    from contentapi.startup import summary_lines

    settings = _settings()
    registry = _load_models(settings, quiet=True)
    if registry is None or _check_extensions(settings):
        raise typer.Exit(1)
    host, port = host or settings.host, port or settings.port
    if not 1 <= port <= 65535:
        raise _fail(f"--port must be between 1 and 65535, not {port}")
    if workers is not None and workers < 1:
        raise _fail(f"--workers must be at least 1, not {workers}")
    _database_reachable(settings)
    workers = 1 if reload else workers or default_workers()
    for line in summary_lines(settings, registry, host=host, port=port, workers=workers):
        err.print(line, highlight=False, soft_wrap=True)
    # Every worker builds its settings again: it must see the address it listens on.
    os.environ["CONTENTAPI_HOST"], os.environ["CONTENTAPI_PORT"] = host, str(port)
    if reload:
        import uvicorn

        from contentapi.worker import APP_FACTORY

        uvicorn.run(
            APP_FACTORY, factory=True, host=host, port=port, reload=True, proxy_headers=False
        )
        return
    command = serve_command(host, port, workers)
    sys.stdout.flush()
    sys.stderr.flush()
    # This process becomes the server itself: it keeps none of the CLI's modules (typer, rich,
    # the model checks: 18 MB) beside the workers, and signals reach it directly.
    os.execv(command[0], command)


def serve_command(host: str, port: int, workers: int) -> list[str]:
    """The command line ``serve`` replaces itself with: one worker (``contentapi.worker``)
    or a supervisor keeping ``workers`` of them on one socket (``contentapi.supervisor``)."""
    address = ["--host", host, "--port", str(port)]
    if workers == 1:
        return [sys.executable, "-m", "contentapi.worker", *address]
    return [sys.executable, "-m", "contentapi.supervisor", *address, "--workers", str(workers)]


@app.command()
def migrate() -> None:
    """Apply system migrations and sync content-type tables, then exit."""
    from contentapi.runtime import Runtime

    settings = _settings()
    if _load_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    _database_reachable(settings)

    async def run() -> None:
        runtime = Runtime.build(settings)
        try:
            await runtime.start()
        finally:
            await runtime.stop()
        report = runtime.sync_report
        err.print(
            f"migrated: {len(report.created_tables)} tables created, "
            f"{len(report.added_columns)} columns added, "
            f"{len(report.created_indexes)} indexes added, "
            f"{len(report.orphan_columns)} unmodelled columns kept"
        )

    asyncio.run(run())


@app.command("graphql-schema")
def graphql_schema() -> None:
    """Print the generated GraphQL schema (SDL) for the models, then exit."""
    from graphql import print_schema

    from contentapi.extensions import ExtensionError, load_extensions
    from contentapi.graphql import graphql_schema as build
    from contentapi.runtime import Runtime

    settings = _settings()
    if _load_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    runtime = Runtime.build(settings)
    try:
        extensions = load_extensions(settings, runtime.registry, runtime)
        schema = build(runtime, extensions)
    except ExtensionError as error:
        err.print(f"[red]extension error:[/red] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    print(print_schema(schema))


class TokenTypeChoice(StrEnum):
    """``--type`` of ``tokens create`` (typer shows the choices in ``--help``)."""

    read_only = "read-only"
    full_access = "full-access"
    custom = "custom"


def _token_runtime(settings: Settings) -> Runtime:
    from contentapi.runtime import Runtime

    if _load_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    _database_reachable(settings)
    return Runtime.build(settings)


@tokens_app.command("create")
def tokens_create(
    name: Annotated[str, typer.Option(help="A name for the token (unique)")],
    type_: Annotated[
        TokenTypeChoice, typer.Option("--type", help="What the token may do")
    ] = TokenTypeChoice.read_only,
    permission: Annotated[
        list[str] | None,
        typer.Option(
            help="An action a custom token may perform, as api::article.article.find (repeatable)"
        ),
    ] = None,
    description: Annotated[str, typer.Option(help="What the token is for")] = "",
) -> None:
    """Create an API token; its secret is printed once, alone on the last line of stdout."""
    from contentapi.auth.permissions import all_actions
    from contentapi.auth.tokens import create_token, token_name_taken

    token_type = type_.value
    actions = list(dict.fromkeys(permission or []))
    if not name.strip():
        raise _fail("--name must not be empty")
    if token_type == "custom" and not actions:
        raise _fail(
            "a custom token needs at least one --permission, e.g. api::article.article.find"
        )
    if token_type != "custom" and actions:
        raise _fail("--permission applies to custom tokens only (--type custom)")
    settings = _settings()
    runtime = _token_runtime(settings)
    known = all_actions(runtime.registry)
    problems = [_permission_problem(action, known) for action in actions]
    if any(problems):
        raise _fail("\n".join(problem for problem in problems if problem))

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
        raise _fail(
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

    settings = _settings()
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


@tokens_app.command("revoke")
def tokens_revoke(
    name: Annotated[str, typer.Argument(help="The token's name (see tokens list)")],
) -> None:
    """Revoke (delete) an API token; requests carrying it answer 401 from then on."""
    from contentapi.auth.tokens import revoke_token

    settings = _settings()
    runtime = _token_runtime(settings)

    async def run() -> bool:
        try:
            await runtime.start()
            async with runtime.database.write(changes_callers=True) as conn:
                return await revoke_token(conn, name)
        finally:
            await runtime.stop()

    if not asyncio.run(run()):
        raise _fail(f"no API token named {name!r} (contentapi tokens list shows them)", code=1)
    err.print(f"revoked token {name!r}", highlight=False)


def _version(value: bool) -> None:
    if value:
        print(f"contentapi {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
) -> None:
    """contentapi: a headless-CMS content API that speaks the Strapi v4 Content API."""


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    app()
