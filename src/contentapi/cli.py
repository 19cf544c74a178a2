"""contentapi: a headless-CMS content API that speaks the Strapi v4 Content API.

Configuration comes from CONTENTAPI_* environment variables and an optional contentapi.toml in
the working directory (README.md, "Configuration")."""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer

from contentapi import __version__
from contentapi.cli_common import (
    PlainHelpCommand,
    check_extensions,
    check_models,
    counted,
    database_reachable,
    err,
    fail,
    load_checked_models,
    read_settings,
    synced,
)
from contentapi.cli_locales import locales_app
from contentapi.cli_settings import settings_app
from contentapi.cli_tokens import tokens_app
from contentapi.cli_transfer import export_command, import_command
from contentapi.cli_types import types
from contentapi.cli_webhooks import webhooks_app
from contentapi.config import Settings

__all__ = ["main"]

HELP = (
    "A headless-CMS content API that speaks the Strapi v4 Content API. Configuration comes "
    "from CONTENTAPI_* environment variables and an optional contentapi.toml in the working "
    "directory (README.md, Configuration)."
)
# --help in click's plain layout (here and in the tokens and settings groups): typer's rich
# panels label every option with its Python type (<bool> beside --help and every flag, <str>),
# which tells an operator nothing; each option names what it takes by its metavar instead.
app = typer.Typer(add_completion=False, no_args_is_help=True, help=HELP, rich_markup_mode=None)
app.add_typer(tokens_app, name="tokens")
app.add_typer(settings_app, name="settings")
app.add_typer(locales_app, name="locales")
app.add_typer(webhooks_app, name="webhooks")
app.command("types")(types)
app.command("export", cls=PlainHelpCommand)(export_command)
app.command("import", cls=PlainHelpCommand)(import_command)


@app.command()
def check() -> None:
    """Validate every model in the content-types folder, then the extensions
    (CONTENTAPI_EXTENSIONS: their routes, names and schema changes); exit 1 on any problem."""
    settings = read_settings()
    if check_models(settings) or check_extensions(settings):
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
    host: Annotated[
        str | None,
        typer.Option(
            help="Listen address",
            metavar="ADDRESS",
            show_default=f"CONTENTAPI_HOST, else {Settings.model_fields['host'].default}",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            help="Listen port",
            metavar="PORT",
            show_default=f"CONTENTAPI_PORT, else {Settings.model_fields['port'].default}",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Worker processes",
            metavar="N",
            show_default="one per CPU core available, at most 8",
        ),
    ] = None,
    reload: Annotated[
        bool,
        typer.Option(
            "--reload",
            help="Development: one worker, restarted when a model or extension module "
            "changes and passes the check",
        ),
    ] = False,
) -> None:
    """Run the server (uvicorn)."""
    from contentapi.listening import AddressError, check_address
    from contentapi.startup import summary_lines

    settings = read_settings()
    registry = load_checked_models(settings, quiet=True)
    if registry is None or check_extensions(settings):
        raise typer.Exit(1)
    host, port = host or settings.host, port or settings.port
    if not 1 <= port <= 65535:
        raise fail(f"--port must be between 1 and 65535, not {port}")
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, not {workers}")
    database_reachable(settings)
    try:  # before any worker starts: a port in use is one line, not a worker's traceback
        check_address(host, port)
    except AddressError as error:
        raise fail(str(error)) from None
    workers = 1 if reload else workers or default_workers()
    for line in summary_lines(settings, registry, host=host, port=port, workers=workers):
        err.print(line, highlight=False, soft_wrap=True)
    # Every worker builds its settings again: it must see the address it listens on.
    os.environ["CONTENTAPI_HOST"], os.environ["CONTENTAPI_PORT"] = host, str(port)
    if reload:
        from contentapi.cli_reload import serve_reloading

        raise typer.Exit(serve_reloading(settings, registry, host, port))
    command = serve_command(host, port, workers, settings)
    sys.stdout.flush()
    sys.stderr.flush()
    # This process becomes the server itself: it keeps none of the CLI's modules (typer, rich,
    # the model checks: 18 MB) beside the workers, and signals reach it directly.
    os.execv(command[0], command)


def serve_command(host: str, port: int, workers: int, settings: Settings) -> list[str]:
    """The command line ``serve`` replaces itself with: a supervisor keeping ``workers``
    workers on one socket (``contentapi.supervisor``), or, for one worker with hang detection
    off (``CONTENTAPI_WORKER_TIMEOUT=0``), that worker itself (``contentapi.worker``): a lone
    worker whose event loop hangs has nobody else to answer, so it needs the supervisor most."""
    address = ["--host", host, "--port", str(port)]
    shutdown = ["--shutdown-timeout", str(settings.shutdown_timeout or 30)]
    if workers == 1 and not settings.worker_timeout:
        return [sys.executable, "-m", "contentapi.worker", *address, *shutdown]
    supervisor = [sys.executable, "-m", "contentapi.supervisor", *address, *shutdown]
    return [
        *supervisor,
        "--workers",
        str(workers),
        "--worker-timeout",
        str(settings.worker_timeout),
    ]


@app.command()
def migrate() -> None:
    """Apply system migrations and sync content-type tables, then exit."""
    settings = read_settings()
    if load_checked_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    database_reachable(settings)
    report = synced(settings)
    err.print(
        f"migrated: {counted(len(report.created_tables), 'table')} created, "
        f"{counted(len(report.added_columns), 'column')} added, "
        f"{counted(len(report.created_indexes), 'index', 'indexes')} added, "
        f"{counted(len(report.orphan_columns), 'unmodelled column')} kept",
        highlight=False,
    )


@app.command("graphql-schema")
def graphql_schema() -> None:
    """Print the generated GraphQL schema (SDL) for the models, then exit."""
    from graphql import print_schema

    from contentapi.extensions import ExtensionError, load_extensions
    from contentapi.graphql import graphql_schema as build
    from contentapi.runtime import Runtime

    settings = read_settings()
    if load_checked_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    runtime = Runtime.build(settings)
    try:
        extensions = load_extensions(settings, runtime.registry, runtime)
        schema = build(runtime, extensions)
    except ExtensionError as error:
        err.print(f"[red]extension error:[/red] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    print(print_schema(schema))


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
