"""PostgreSQL change notifications: ``LISTEN contentapi_auth``, ``contentapi_content`` and
``contentapi_locales``.

``install_auth_triggers`` puts one statement-level trigger on each table that decides who may
do what (users, roles, permissions, their links, API tokens and their permissions): any
insert, update, delete or truncate sends ``NOTIFY contentapi_auth`` when its transaction
commits — whoever writes, this server, another worker, another instance or a tool on the same
database. ``install_content_triggers`` does the same on every content table
(``contentapi_content``), ``install_locale_triggers`` on ``i18n_locale`` and the core store,
where the default locale is kept (``contentapi_locales``). The triggers are additive: a Strapi
database keeps working with them.

``ChangeListener`` holds one plain asyncpg connection per worker and hands each notification to
whoever subscribed to its channel; it knows none of them. ``runtime.py`` subscribes the caller
cache to ``contentapi_auth``, the list totals to ``contentapi_content``, the locales
(``db/locales.py``) to ``contentapi_locales``, and all three to the connection's state: when it
drops, none is trusted until the listener has reconnected (retrying every second).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
from collections.abc import Callable, Iterable
from typing import Any

import asyncpg
from sqlalchemy import text
from sqlalchemy.engine import make_url

from contentapi.db.async_engine import AsyncConnection

__all__ = [
    "AUTH_CHANNEL",
    "CONTENT_CHANNEL",
    "LOCALES_CHANNEL",
    "QUIET_SETTING",
    "ChangeListener",
    "LiveSubscriber",
    "Subscriber",
    "install_auth_triggers",
    "install_content_triggers",
    "install_locale_triggers",
]

log = logging.getLogger("contentapi")

AUTH_CHANNEL = "contentapi_auth"
_FUNCTION = "contentapi_auth_changed"
CONTENT_CHANNEL = "contentapi_content"
_CONTENT_FUNCTION = "contentapi_content_changed"
LOCALES_CHANNEL = "contentapi_locales"
_LOCALES_FUNCTION = "contentapi_locales_changed"
#: ``SET LOCAL contentapi.quiet = 'on'``: this transaction's changes notify no one (an API
#: token's ``last_used_at`` stamp, which changes nobody's permissions: ``auth/token_usage.py``)
QUIET_SETTING = "contentapi.quiet"

#: called with a notification's payload: the name of the table whose change committed
Subscriber = Callable[[str], None]
#: called with whether the listener hears changes (``True``) or may miss them (``False``)
LiveSubscriber = Callable[[bool], None]


async def install_auth_triggers(conn: AsyncConnection, tables: Iterable[str]) -> None:
    """(Re)create the notifying function and one trigger per auth table (idempotent)."""
    await _install_triggers(conn, _FUNCTION, AUTH_CHANNEL, tables)


async def install_content_triggers(conn: AsyncConnection, tables: Iterable[str]) -> None:
    """The same for every content table (``contentapi_content``): list totals are kept per
    worker and must be forgotten when any write commits (``entries/totals.py``)."""
    await _install_triggers(conn, _CONTENT_FUNCTION, CONTENT_CHANNEL, tables)


async def install_locale_triggers(conn: AsyncConnection, tables: Iterable[str]) -> None:
    """The same for the locales' tables (``contentapi_locales``): each worker keeps the
    locales (``db/locales.py``), which ``contentapi locales`` changes from another process."""
    await _install_triggers(conn, _LOCALES_FUNCTION, LOCALES_CHANNEL, tables)


async def _install_triggers(
    conn: AsyncConnection, function: str, channel: str, tables: Iterable[str]
) -> None:
    await conn.execute(
        text(
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$ "
            f"BEGIN IF current_setting('{QUIET_SETTING}', true) = 'on' THEN RETURN NULL; END IF; "
            f"PERFORM pg_notify('{channel}', TG_TABLE_NAME); RETURN NULL; END "
            "$$ LANGUAGE plpgsql"
        )
    )
    # Only where the trigger is missing: re-creating it would take an exclusive lock on every
    # table at every start of every worker.
    present = await conn.execute(
        text(
            "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname = :name"
        ),
        {"name": function},
    )
    existing = set(present.scalars())
    for table in tables:
        if table in existing:
            continue
        quoted = '"' + table.replace('"', '""') + '"'
        await conn.execute(
            text(
                f"CREATE TRIGGER {function} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
                f"ON {quoted} FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
        )


def _connect_args(url: str) -> tuple[str, dict[str, Any]]:
    """SQLAlchemy's ``postgresql+asyncpg://…?ssl=…`` → ``asyncpg.connect``'s DSN and keyword
    arguments (query parameters are connect arguments there, as SQLAlchemy passes them)."""
    parsed = make_url(url)
    options = dict(parsed.query)
    bare = parsed.set(drivername="postgresql", query={})
    return bare.render_as_string(hide_password=False), options


class ChangeListener:
    """One worker's ear on the database: dispatches each notification of a subscribed channel
    to the callbacks subscribed to it, and tells the ``on_live`` callbacks whether it hears.

    The subscribe API (the seam for anything a worker must learn from other processes' writes):

    - ``subscribe(channel, callback)``: ``callback(payload)`` runs for every notification on
      ``channel`` — the payload is the name of the table whose change committed (the triggers
      above send ``TG_TABLE_NAME``). Callbacks run on the event loop, one after the other, and
      must not block; one that raises is logged and the others still run. Subscribe before
      ``start()``: the channels listened to are those subscribed when the connection opens.
    - ``on_live(callback)``: ``callback(True)`` once listening (again), ``callback(False)``
      when the connection is lost or the listener stops. Notifications sent meanwhile are
      lost, so whatever trusts them (the invalidated caches of ``caching.py``) must stop
      trusting itself on ``False``.

    The listener knows no subscriber: the composition root (``runtime.py``) subscribes them.
    """

    def __init__(self, url: str, retry_seconds: float = 1.0) -> None:
        self.dsn, self.options = _connect_args(url)
        self.retry_seconds = retry_seconds
        #: whether the connection is up and listening on every subscribed channel
        self.live = False
        self._subscribers: dict[str, list[Subscriber]] = {}
        self._live_subscribers: list[LiveSubscriber] = []
        self._task: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()
        #: the open connection while live (``caught_up`` sends its marks on it)
        self._connection: Any = None
        #: this listener's own channel, where its catch-up marks come back
        self._mark_channel = f"contentapi_mark_{os.getpid()}_{secrets.token_hex(4)}"
        self._mark_numbers = itertools.count()
        #: the round of ``caught_up`` callers whose mark is not sent yet (they all share it)
        self._next_round: asyncio.Future[bool] | None = None
        #: marks sent and not yet heard back → their round
        self._sent_marks: dict[str, asyncio.Future[bool]] = {}
        self._sending = asyncio.Lock()
        self._mark_tasks: set[asyncio.Task[None]] = set()

    def subscribe(self, channel: str, callback: Subscriber) -> None:
        """Call ``callback(payload)`` on every notification of ``channel`` (see the class)."""
        if self._task is not None and channel not in self._subscribers:
            raise RuntimeError(f"subscribe to {channel!r} before the listener starts")
        self._subscribers.setdefault(channel, []).append(callback)

    def unsubscribe(self, channel: str, callback: Subscriber) -> None:
        """Stop calling ``callback`` for ``channel`` (the channel stays listened to)."""
        self._subscribers[channel].remove(callback)

    def on_live(self, callback: LiveSubscriber) -> None:
        """Call ``callback(live)`` whenever the listener starts or stops hearing changes."""
        self._live_subscribers.append(callback)

    def _dispatch(self, _connection: Any, _pid: int, channel: str, payload: str) -> None:
        for callback in tuple(self._subscribers.get(channel, ())):
            try:
                callback(payload)
            except Exception:  # one subscriber's failure must not keep the others deaf
                log.exception("change listener: a %s subscriber failed", channel)

    async def caught_up(self, timeout: float = 2.0) -> bool:
        """Whether every change committed before this call has been handed to the subscribers
        (``True`` once it has; ``False`` when the listener does not hear or its round took
        longer than ``timeout`` from its start).

        A notification reaches this worker some time after its transaction committed, so a
        cache that a read consults right after another process's commit could still hold the
        old answer. ``caught_up`` closes that window: it sends a mark on this listener's own
        channel and waits for it to come back. PostgreSQL delivers notifications in the order
        their transactions committed, so every change committed before the mark was sent has
        been dispatched when the mark arrives. Callers arriving while a mark is in flight share
        the next one: one round trip serves every read waiting at that moment.
        """
        if not self.live or self._connection is None:
            return False
        round_ = self._next_round
        if round_ is None:
            loop = asyncio.get_running_loop()
            round_ = self._next_round = loop.create_future()
            # one timer per round, not one ``wait_for`` per caller (a cache hit's own cost)
            loop.call_later(timeout, _give_up, round_)
            sending = loop.create_task(self._send_mark())
            self._mark_tasks.add(sending)  # held: the loop keeps only a weak reference
            sending.add_done_callback(self._mark_tasks.discard)
        # shielded: a caller cancelled (its client gone) must not cancel the others' round
        return await asyncio.shield(round_)

    async def _send_mark(self) -> None:
        async with self._sending:  # one statement at a time on the listening connection
            # one turn of the loop first: the reads made ready with the one that opened the
            # round (the same burst of requests) join it instead of waiting for the next mark —
            # under load a quarter fewer marks, and no wait at all when the loop is idle
            await asyncio.sleep(0)
            round_, self._next_round = self._next_round, None
            if round_ is None or round_.done():
                return
            mark = str(next(self._mark_numbers))
            self._sent_marks[mark] = round_
            try:
                # a simple query (our own channel's name and a number: nothing to quote), for
                # the worker a sixth cheaper than a prepared ``pg_notify($1, $2)``
                await self._connection.execute(f"NOTIFY {self._mark_channel}, '{mark}'")
            except Exception as error:  # the connection is going: not caught up
                log.warning("change listener: catch-up mark not sent: %s", error)
                self._sent_marks.pop(mark, None)
                if not round_.done():
                    round_.set_result(False)

    def _mark_heard(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        round_ = self._sent_marks.pop(payload, None)
        if round_ is not None and not round_.done():
            round_.set_result(True)

    def _fail_marks(self) -> None:
        """Nothing sent is coming back (the connection is gone): every waiter answers no."""
        rounds = list(self._sent_marks.values())
        if self._next_round is not None:
            rounds.append(self._next_round)
        self._sent_marks.clear()
        self._next_round = None
        for round_ in rounds:
            if not round_.done():
                round_.set_result(False)

    def _set_live(self, live: bool) -> None:
        self.live = live
        if not live:
            self._fail_marks()
        for callback in tuple(self._live_subscribers):
            callback(live)

    def _terminated(self, *_args: Any) -> None:
        self._set_live(False)
        self._lost.set()

    async def _listen_once(self) -> None:
        connection = await asyncpg.connect(self.dsn, **self.options)
        try:
            self._lost.clear()
            connection.add_termination_listener(self._terminated)
            # the marks' channel first: the subscribed channels' LISTEN stays the connection's
            # last statement until a mark is sent (``pg_stat_activity`` names the listener)
            await connection.add_listener(self._mark_channel, self._mark_heard)
            for channel in self._subscribers:
                await connection.add_listener(channel, self._dispatch)
            self._connection = connection
            self._set_live(True)
            await self._lost.wait()
        finally:
            self._connection = None
            self._set_live(False)
            with contextlib.suppress(Exception):
                await connection.close(timeout=2)

    async def _run(self) -> None:
        while True:
            try:
                await self._listen_once()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database is away: requests read it directly
                log.warning("change listener: %s; retrying", error)
            await asyncio.sleep(self.retry_seconds)

    async def start(self, wait_seconds: float = 5.0) -> None:
        """Start listening; waits (up to ``wait_seconds``) for the first connection."""
        self._task = asyncio.create_task(self._run(), name="contentapi-change-listener")
        for _ in range(int(wait_seconds / 0.01)):
            if self.live:
                return
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self._set_live(False)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None


def _give_up(round_: asyncio.Future[bool]) -> None:
    """A catch-up round whose mark did not come back in time: not caught up."""
    if not round_.done():
        round_.set_result(False)
