"""What every ``contentapi`` command shares: the error console, ``fail`` (one line per problem,
exit 2), the settings and the models checked before a command starts, the database probe.

Its own module so that ``cli_tokens.py`` and ``cli_settings.py`` need not import ``cli.py``,
which imports them to register their commands (no circle), and every command stops on a
configuration, model or database problem the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from typer.core import TyperArgument, TyperCommand

from contentapi.config import Settings
from contentapi.schema import ModelErrors, Registry
from contentapi.settings_loader import ConfigError, load_settings

if TYPE_CHECKING:
    from contentapi.db.sync import SyncReport
    from contentapi.runtime import Runtime

T = TypeVar("T")

__all__ = [
    "PlainHelpCommand",
    "check_extensions",
    "check_models",
    "counted",
    "database_reachable",
    "err",
    "fail",
    "load_checked_models",
    "read_settings",
    "synced",
]

err = Console(stderr=True, soft_wrap=True)


class PlainHelpCommand(TyperCommand):
    """A command whose ``--help`` names each argument by its metavar alone.

    Every app here prints click's plain help (``rich_markup_mode=None``), where options show
    their metavar; typer still labels each positional argument with its Python type
    (``NAME <str>``, ``NAME=VALUE... <list[str]>``), which tells an operator nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument):
                param.display_type_rich = _no_type_label  # type: ignore[method-assign]


def _no_type_label(ctx: object) -> None:
    return None


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``1 column``, ``2 columns``, ``0 indexes`` (``plural`` where adding an s is wrong)."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` (one line per problem, no traceback) and give the exit to raise."""
    for line in message.splitlines():
        err.print(f"[red]error:[/red] {line}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)


def read_settings() -> Settings:
    """The settings, or exit 2 with one line per problem (``settings_loader.py`` names them)."""
    try:
        return load_settings()
    except ConfigError as error:
        raise fail(str(error)) from None


def database_reachable(settings: Settings) -> None:
    """Stop with one line (exit 2) when the database cannot be used."""
    from contentapi.db.probe import DatabaseUnreachable, probe_database

    try:
        asyncio.run(probe_database(settings.database_url))
    except DatabaseUnreachable as error:
        raise fail(str(error)) from None


def synced(settings: Settings) -> SyncReport:
    """What ``migrate`` does, and ``serve --reload`` on each valid change: the runtime started
    once (migrations, the additive sync of the tables), stopped; what the sync changed."""
    from contentapi.runtime import Runtime

    async def run() -> SyncReport:
        runtime = Runtime.build(settings)
        try:
            await runtime.start()
        finally:
            await runtime.stop()
        return runtime.sync_report

    return asyncio.run(run())


def on_started_runtime(
    work: Callable[[Runtime], Awaitable[T]],
    refusal: type[Exception],
    wording: Callable[[Exception], str] = str,
) -> T:
    """Run ``work`` on a started runtime (settings, models and database checked first, each
    problem one line and exit 2), stopped afterwards; a ``refusal`` raised by ``work`` is one
    line (``wording``) and exit 2 — the commands that change data (`locales`, `import`)."""
    from contentapi.runtime import Runtime

    settings = read_settings()
    if load_checked_models(settings, quiet=True) is None:
        raise typer.Exit(1)
    database_reachable(settings)
    runtime = Runtime.build(settings)

    async def run() -> T:
        try:
            await runtime.start()
            return await work(runtime)
        finally:
            await runtime.stop()

    try:
        return asyncio.run(run())
    except refusal as refused:
        raise fail(wording(refused)) from None


def load_checked_models(settings: Settings, *, quiet: bool = False) -> Registry | None:
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
        err.print(
            f"{counted(len(problems.errors), 'problem')} in {counted(files, 'file')} "
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
        verdict = f"valid, {counted(count, 'warning')}" if count else "all valid"
        # The answer to the command, so on stdout; problems and warnings are on stderr.
        print(
            f"{counted(own, 'content type')} and {counted(len(registry.components), 'component')} "
            f"in {settings.content_types_dir}{layout}: {verdict}"
        )
        indexes = _asked_indexes(registry)
        if indexes:
            print(
                f"{counted(len(indexes), 'index', 'indexes')} asked for by the models "
                f"(created at start when missing): {', '.join(indexes)}"
            )
    return registry


def _asked_indexes(registry: Registry) -> list[str]:
    """The indexes the models ask for (``pluginOptions.contentapi.index`` on an attribute,
    ``pluginOptions.contentapi.indexes`` on a content type), as ``table(column, …)``."""
    from contentapi.schema.model import ContentType, Model, ScalarAttribute

    found: list[str] = []
    models: list[Model] = [*registry.content_types.values(), *registry.components.values()]
    for model in models:
        found += [
            f"{model.table}({attribute.column})"
            for attribute in model.attributes.values()
            if isinstance(attribute, ScalarAttribute) and attribute.indexed
        ]
        if isinstance(model, ContentType):
            found += [f"{model.table}({', '.join(columns)})" for columns in model.indexes]
    return found


def check_extensions(settings: Settings) -> int:
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


def check_models(settings: Settings) -> int:
    """Print every model problem (or that all are valid); 1 when there was any."""
    return 0 if load_checked_models(settings) is not None else 1
