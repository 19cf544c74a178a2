"""The ``contentapi`` command (CONTRACT §1): serve, migrate, check, tokens create, settings."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Annotated, cast

import typer
from rich.console import Console

from contentapi.cli_settings import settings_app
from contentapi.config import Settings
from contentapi.schema import ModelErrors, load_registry

__all__ = ["main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
tokens_app = typer.Typer(no_args_is_help=True, help="API tokens.")
app.add_typer(tokens_app, name="tokens")
app.add_typer(settings_app, name="settings")
err = Console(stderr=True)


def _settings() -> Settings:
    try:
        settings = Settings()
    except Exception as exc:  # pydantic's message names the bad setting
        err.print(f"[red]invalid configuration:[/red] {exc}")
        raise typer.Exit(2) from exc
    if settings.env == "production" and not settings.jwt_secret:
        err.print("[red]CONTENTAPI_JWT_SECRET is required when CONTENTAPI_ENV=production[/red]")
        raise typer.Exit(2)
    return settings


def _check_models(settings: Settings) -> int:
    """Print every model problem with file and attribute; the number of problems."""
    try:
        registry = load_registry(settings.content_types_dir)
    except ModelErrors as problems:
        for problem in problems.errors:
            err.print(f"[red]error[/red] {problem}", highlight=False, soft_wrap=True)
        return len(problems.errors)
    err.print(
        f"{len(registry.content_types)} content types and {len(registry.components)} components "
        f"in {settings.content_types_dir}: all valid"
    )
    return 0


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
    settings = _settings()
    if _check_models(settings) or _check_extensions(settings):
        raise typer.Exit(1)
    host, port = host or settings.host, port or settings.port
    if reload:
        import uvicorn

        from contentapi.worker import APP_FACTORY

        uvicorn.run(
            APP_FACTORY, factory=True, host=host, port=port, reload=True, proxy_headers=False
        )
        return
    command = serve_command(host, port, workers or default_workers())
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
    if _check_models(settings):
        raise typer.Exit(1)

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
    if _check_models(settings):
        raise typer.Exit(1)
    runtime = Runtime.build(settings)
    try:
        extensions = load_extensions(settings, runtime.registry, runtime)
        schema = build(runtime, extensions)
    except ExtensionError as error:
        err.print(f"[red]extension error:[/red] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    print(print_schema(schema))


@tokens_app.command("create")
def tokens_create(
    name: Annotated[str, typer.Option(help="A name for the token")],
    type_: Annotated[
        str, typer.Option("--type", help="read-only, full-access or custom")
    ] = "read-only",
    permission: Annotated[
        list[str] | None,
        typer.Option(help="UID.ACTION a custom token may perform (repeatable)"),
    ] = None,
    description: Annotated[str, typer.Option(help="What the token is for")] = "",
) -> None:
    """Create an API token; its secret is printed once, alone on the last line."""
    from contentapi.auth.actor import TokenType
    from contentapi.auth.tokens import TOKEN_TYPES, create_token
    from contentapi.runtime import Runtime

    if type_ not in TOKEN_TYPES:
        err.print(f"[red]--type must be one of {', '.join(TOKEN_TYPES)}[/red]")
        raise typer.Exit(2)
    actions = permission or []
    if type_ == "custom" and not actions:
        err.print("[red]a custom token needs at least one --permission UID.ACTION[/red]")
        raise typer.Exit(2)
    if type_ != "custom" and actions:
        err.print("[red]--permission applies to custom tokens only[/red]")
        raise typer.Exit(2)
    settings = _settings()
    if _check_models(settings):
        raise typer.Exit(1)

    async def run() -> str:
        runtime = Runtime.build(settings)
        try:
            await runtime.start()
            assert runtime.token_hasher is not None
            async with runtime.database.write() as conn:
                created = await create_token(
                    conn,
                    runtime.token_hasher,
                    name=name,
                    token_type=cast(TokenType, type_),
                    actions=actions,
                    description=description,
                )
            return created.secret
        finally:
            await runtime.stop()

    secret = asyncio.run(run())
    err.print(f"created {type_} token {name!r}; its secret is shown once:")
    sys.stdout.write(secret + "\n")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    app()
