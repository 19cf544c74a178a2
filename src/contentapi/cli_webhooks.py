"""``contentapi webhooks list / create / update / delete / trigger / deliveries``: Strapi's
webhooks without an admin panel, in the same ``strapi_webhooks`` table its admin writes (a
running server follows a change within a second: ``events/dispatch.py``)."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from contentapi.cli_common import PlainHelpCommand, err, fail, on_started_runtime, read_settings
from contentapi.errors import ValidationError

if TYPE_CHECKING:
    from contentapi.db.async_engine import AsyncConnection
    from contentapi.events.webhooks import Webhook
    from contentapi.runtime import Runtime

__all__ = ["webhooks_app"]

webhooks_app = typer.Typer(no_args_is_help=True, help="Webhooks.", rich_markup_mode=None)

_T = TypeVar("_T")

NAME = Annotated[str, typer.Argument(help="The webhook's name (see webhooks list)", metavar="NAME")]


def _repeatable(flag: str, help_text: str, metavar: str) -> typer.models.OptionInfo:
    """An option given once per value (``--event a --event b``)."""
    return typer.Option(flag, help=help_text, metavar=metavar, show_default=False)


EVENTS = Annotated[
    list[str] | None,
    _repeatable("--event", "An event it listens to, e.g. entry.create (repeatable)", "EVENT"),
]
HEADERS = Annotated[
    list[str] | None,
    _repeatable("--header", 'A header its requests carry, "Name: value" (repeatable)', "HEADER"),
]


def _on_database(work: Callable[[AsyncConnection], Awaitable[_T]], *, write: bool) -> _T:
    """Run ``work`` in one transaction on the configured database, through the started
    runtime every data command uses (``cli_common.on_started_runtime``: settings, models and
    database checked, the sync run); a ``ValidationError`` is one line and exit 2."""

    async def run(runtime: Runtime) -> _T:
        async with runtime.database.write() if write else runtime.database.read() as conn:
            return await work(conn)

    return on_started_runtime(run, ValidationError)


async def _named(conn: AsyncConnection, name: str) -> Webhook:
    from contentapi.events.webhooks import list_webhooks

    found = [hook for hook in await list_webhooks(conn) if hook.name == name]
    if not found:
        raise ValidationError(f"no webhook named {name!r} (contentapi webhooks list shows them)")
    return found[0]


def _headers(values: list[str] | None) -> dict[str, str] | None:
    if values is None:
        return None
    parsed: dict[str, str] = {}
    for value in values:
        name, colon, content = value.partition(":")
        if not colon or not name.strip():
            raise fail(f'--header {value!r}: write it "Name: value"')
        parsed[name.strip()] = content.strip()
    return parsed


@webhooks_app.command("list")
def webhooks_list() -> None:
    """List the webhooks: name, URL, events, whether enabled (headers are not shown)."""
    from contentapi.events.webhooks import list_webhooks

    hooks = _on_database(list_webhooks, write=False)
    if not hooks:
        err.print("no webhooks")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("name", "url", "events", "enabled"):
        table.add_column(column)
    for hook in hooks:
        table.add_row(hook.name, hook.url, ", ".join(hook.events), "yes" if hook.enabled else "no")
    Console(width=200).print(table, highlight=False, soft_wrap=True)


@webhooks_app.command("create")
def webhooks_create(
    name: Annotated[str, typer.Option(help="A name for the webhook (unique)", metavar="NAME")],
    url: Annotated[str, typer.Option(help="Where its requests go (http or https)", metavar="URL")],
    event: EVENTS = None,
    header: HEADERS = None,
    disabled: Annotated[bool, typer.Option(help="Create it disabled")] = False,
) -> None:
    """Create a webhook (all entry and media events unless --event says which)."""
    from contentapi.events.webhooks import WEBHOOK_EVENTS, create_webhook, list_webhooks

    headers = _headers(header) or {}

    async def create(conn: AsyncConnection) -> None:
        if any(hook.name == name for hook in await list_webhooks(conn)):
            raise ValidationError(f"a webhook named {name!r} already exists")
        events = event or list(WEBHOOK_EVENTS)
        await create_webhook(conn, name, url, headers, events, enabled=not disabled)

    _on_database(create, write=True)
    err.print(f"created webhook {name!r}", highlight=False)


@webhooks_app.command("update", cls=PlainHelpCommand)
def webhooks_update(
    name: NAME,
    url: Annotated[str | None, typer.Option(help="A new URL", metavar="URL")] = None,
    event: EVENTS = None,
    header: HEADERS = None,
    enabled: Annotated[
        bool | None,
        typer.Option("--enable/--disable", help="Turn it on or off", show_default=False),
    ] = None,
) -> None:
    """Change a webhook: what is given replaces what it had (--event and --header: the lists)."""
    from contentapi.events.webhooks import update_webhook

    changes: dict[str, Any] = {}
    if url is not None:
        changes["url"] = url
    if event is not None:
        changes["events"] = event
    if header is not None:
        changes["headers"] = _headers(header)
    if enabled is not None:
        changes["enabled"] = enabled

    async def change(conn: AsyncConnection) -> None:
        await update_webhook(conn, await _named(conn, name), **changes)

    _on_database(change, write=True)
    err.print(f"updated webhook {name!r}", highlight=False)


@webhooks_app.command("delete", cls=PlainHelpCommand)
def webhooks_delete(name: NAME) -> None:
    """Delete a webhook; its pending deliveries end as failed."""
    from contentapi.events.webhooks import delete_webhook

    async def remove(conn: AsyncConnection) -> None:
        await delete_webhook(conn, await _named(conn, name))

    _on_database(remove, write=True)
    err.print(f"deleted webhook {name!r}", highlight=False)


@webhooks_app.command("trigger", cls=PlainHelpCommand)
def webhooks_trigger(name: NAME) -> None:
    """Send Strapi's test event (trigger-test) to a webhook now and print its answer."""
    import asyncio
    from http import HTTPStatus

    from contentapi.events.http_client import WebhookSendError
    from contentapi.events.request import post, request, webhook_client

    settings = read_settings()
    hook = _on_database(lambda conn: _named(conn, name), write=False)
    secret = settings.webhooks_secret
    built = request(
        hook.url,
        hook.headers,
        "trigger-test",
        "{}",
        sent_at=datetime.now(UTC),
        event_id=None,
        default_headers=settings.webhooks_default_headers,
        secret=secret.get_secret_value() if secret else None,
    )

    async def send() -> int:
        async with webhook_client(settings.webhooks_timeout) as client:
            status, _ = await post(client, built)
            return status

    try:
        status = asyncio.run(send())
    except (WebhookSendError, TimeoutError) as error:
        raise fail(f"{hook.url}: {error!r}", code=1) from error
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    sys.stdout.write(f"{status} {phrase}\n")
    if not 200 <= status < 300:
        raise typer.Exit(1)


@webhooks_app.command("deliveries", cls=PlainHelpCommand)
def webhooks_deliveries(
    name: Annotated[
        str | None, typer.Argument(help="Only this webhook's", metavar="[NAME]", show_default=False)
    ] = None,
    limit: Annotated[int, typer.Option(help="How many, newest first", metavar="N")] = 50,
) -> None:
    """The delivery log: event, webhook, status, attempts, last answer or error, duration."""
    from sqlalchemy import select

    from contentapi.db.system import events, webhook_deliveries

    async def read(conn: AsyncConnection) -> list[Any]:
        statement = (
            select(webhook_deliveries, events.c.event)
            .join(events, events.c.id == webhook_deliveries.c.event_id, isouter=True)
            .order_by(webhook_deliveries.c.id.desc())
            .limit(limit)
        )
        if name is not None:
            statement = statement.where(webhook_deliveries.c.webhook_name == name)
        return list((await conn.execute(statement)).all())

    rows = _on_database(read, write=False)
    if not rows:
        err.print("no deliveries")
        return
    table = Table(box=None, pad_edge=False)
    for column in ("event id", "event", "webhook", "status", "attempts", "last", "ms", "at"):
        table.add_column(column)
    for row in rows:
        last = str(row.last_status) if row.last_status is not None else (row.last_error or "")
        when = row.finished_at or row.next_attempt_at
        table.add_row(
            str(row.event_id),
            row.event or "",
            row.webhook_name or "",
            row.status,
            str(row.attempts),
            last[:60],
            "" if row.duration_ms is None else str(row.duration_ms),
            when.strftime("%Y-%m-%d %H:%M:%S"),
        )
    Console(width=200).print(table, highlight=False, soft_wrap=True)
