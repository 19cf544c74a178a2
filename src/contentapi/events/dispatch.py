"""Events to webhook deliveries, after the commit and off the request path.

Every worker (and instance) runs a ``Dispatcher``; they share the work through the database:
- *fan-out*: undispatched events (``contentapi_events``) become one delivery row per webhook
  that wants them, and are marked dispatched — one transaction, the events locked with
  ``FOR UPDATE SKIP LOCKED`` on PostgreSQL (SQLite's write transactions are serial);
- *delivery*: due deliveries are claimed the same way and leased (``next_attempt_at`` moved
  past the timeouts of the sends the claim makes: a worker that dies while sending, or cannot
  store the outcome, leaves it due again), then sent, then
  their outcome stored: delivered (2xx), due again later (a network error or a 5xx, the wait
  doubling up to ``webhooks_retry_ceiling``), or failed (anything else, or out of attempts);
- *retention*: events and finished deliveries older than ``events_retention`` are deleted.

It runs when a write of this process commits an event and otherwise every
``events_poll_interval`` (a second: other processes' events, retries that come due).
At-least-once: a receiver drops duplicates by ``X-Contentapi-Event-Id``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, exists, false, insert, select, update
from sqlalchemy.exc import DBAPIError

from contentapi.config import Settings
from contentapi.db.engine import Database
from contentapi.db.system import events, webhook_deliveries, webhooks
from contentapi.entries.events import PUBLICATION_EVENTS, EntryEvents
from contentapi.errors import ServiceUnavailableError
from contentapi.events.http_client import HttpClient, WebhookSendError
from contentapi.events.listeners import ChangeEvent, EventListeners
from contentapi.events.request import (
    RefusedTarget,
    post,
    private_target,
    request,
    webhook_client,
)
from contentapi.events.webhooks import list_webhooks

__all__ = ["Dispatcher", "retry_wait"]

log = logging.getLogger("contentapi.events")

#: events fanned out, deliveries sent, per turn
BATCH = 100
#: seconds between retention clean-ups
CLEAN_UP_SECONDS = 60.0
#: seconds a claim on deliveries lasts beyond the timeouts of its sends
LEASE_MARGIN = 5.0
#: seconds a turn woken by a write waits for more writes to join it
COALESCE_SECONDS = 0.2
#: seconds between two vacuums of the feed's tables by a dispatcher that has been busy
VACUUM_SECONDS = 10.0

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
#: ``dispatched = false``, which the ``(dispatched, id)`` index serves (PostgreSQL scans the
#: whole table for ``dispatched IS false``: 13 ms at 60,000 events, and growing)
_UNDISPATCHED = events.c.dispatched == false()


@dataclass(frozen=True, slots=True)
class _Claimed:
    """A delivery this worker claimed, with what sending it needs."""

    id: int
    attempts: int
    webhook_id: int
    event_id: int
    event: str
    payload: str
    url: str | None
    headers: Any
    enabled: bool | None


def retry_wait(attempts: int, ceiling: float) -> float:
    """Seconds before the next try of something tried ``attempts`` times: a second, doubling,
    at most ``ceiling`` (webhook deliveries, CDN purges: ``events/cdn_purge.py``)."""
    return float(min(ceiling, 2.0 ** (attempts - 1)))


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Dispatcher:
    """Fans events out to webhooks and delivers them (see the module's docstring)."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        recorder: EntryEvents,
        listeners: EventListeners | None = None,
    ) -> None:
        self.database = database
        self.settings = settings
        self.recorder = recorder
        #: extensions' in-process listeners (``listeners.py``), called after the fan-out
        self.listeners = listeners or EventListeners()
        self._seen = recorder.recorded
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: HttpClient | None = None
        self._cleaned = time.monotonic()  # the first clean-up a minute after the start
        self._vacuumed = time.monotonic()
        #: events fanned out and deliveries sent since the last vacuum
        self._moved = 0
        #: whether an enabled webhook existed at the last turn: without one, a write does not
        #: wake the dispatcher (its events are marked dispatched at the next poll, together)
        self._webhooks_exist = False

    async def start(self) -> None:
        self._client = webhook_client(self.settings.webhooks_timeout)
        self.database.after_write.append(self._after_write)
        self._task = asyncio.create_task(self._run(), name="contentapi-events")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._after_write in self.database.after_write:
            self.database.after_write.remove(self._after_write)
        if self._client is not None:
            await self._client.close()

    def _after_write(self) -> None:
        """A write of this process committed: wake up if it recorded events for a webhook or
        a listener."""
        wanted = self._webhooks_exist or bool(self.listeners)
        if wanted and self.recorder.recorded != self._seen:
            self._seen = self.recorder.recorded
            self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                busy = await self.turn()
            except (ServiceUnavailableError, DBAPIError, OSError) as error:
                # the database away or restarting: nothing is lost, the next turn tries again
                log.warning("event dispatch: the database failed (%s); trying again", error)
                busy = False
            except Exception:  # a bug: logged with its trace, tried again next turn
                log.exception("event dispatch failed; trying again")
                busy = False
            if not busy:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.events_poll_interval)
                    # woken by a write: let the writes of the next moment join its turn (under
                    # load, one turn fans out and sends many events, not one each)
                    await asyncio.sleep(COALESCE_SECONDS)

    async def turn(self) -> bool:
        """One round: fan out, deliver what is due, clean up now and then; True when there
        may be more to do at once. Looks first in a read transaction: an idle turn takes no
        write lock (SQLite has one for the whole database)."""
        fanned = sent = 0
        undispatched, due, self._webhooks_exist = await self._work_waiting()
        if undispatched:
            fanned, claimed = await self._fan_out()
            if claimed:
                await self._send_and_store(claimed)
        if due:
            sent = await self._deliver_due()
        if time.monotonic() - self._cleaned > CLEAN_UP_SECONDS:
            await self._clean_up()
            self._cleaned = time.monotonic()
        self._moved += fanned + sent
        if self._moved and time.monotonic() - self._vacuumed > VACUUM_SECONDS:
            # every fanned-out event and sent delivery left a dead row behind
            async with self.database.read() as conn:
                await self.database.dialect.vacuum(conn, (events, webhook_deliveries))
            self._vacuumed, self._moved = time.monotonic(), 0
        return fanned == BATCH or sent == BATCH

    async def _work_waiting(self) -> tuple[bool, bool, bool]:
        """Whether events wait to be fanned out, deliveries to be sent, and a webhook is
        enabled: one statement."""
        undispatched = select(events.c.id).where(_UNDISPATCHED)
        due = select(webhook_deliveries.c.id).where(
            webhook_deliveries.c.status == PENDING,
            webhook_deliveries.c.next_attempt_at <= _now(),
        )
        enabled = select(webhooks.c.id).where(webhooks.c.enabled.is_(True))
        async with self.database.read() as conn:
            row = (
                await conn.execute(select(undispatched.exists(), due.exists(), enabled.exists()))
            ).one()
        return bool(row[0]), bool(row[1]), bool(row[2])

    async def _fan_out(self) -> tuple[int, list[_Claimed]]:
        """Undispatched events to deliveries — claimed by this worker at once, to be sent
        after the commit — then to the listeners; the events taken and the claims."""
        listening = bool(self.listeners)
        columns = [events.c.id, events.c.event, events.c.payload]
        if listening:
            columns += [events.c.uid, events.c.entry_id, events.c.locale, events.c.created_at]
        claimed: list[_Claimed] = []
        async with self.database.write() as conn:
            rows = (
                await conn.execute(
                    select(*columns)
                    .where(_UNDISPATCHED)
                    .order_by(events.c.id)
                    .limit(BATCH)
                    .with_for_update(skip_locked=True)
                )
            ).all()
            if not rows:
                return 0, []
            hooks = [hook for hook in await list_webhooks(conn) if hook.enabled]
            if not hooks and not listening:
                # the usual case: nothing to deliver, every waiting event done at once
                done = update(events).where(_UNDISPATCHED).values(dispatched=True)
                await conn.execute(done)
                return len(rows), []
            now = _now()
            publication = self.settings.events_publication
            wanted = [
                (row, hook)
                for row in rows
                for hook in hooks
                if hook.wants(row.event) and (publication or row.event not in PUBLICATION_EVENTS)
            ]
            per_webhook: dict[int, int] = {}
            for _, hook in wanted:
                per_webhook[hook.id] = per_webhook.get(hook.id, 0) + 1
            deliveries = [
                {
                    "event_id": row.id,
                    "webhook_id": hook.id,
                    "webhook_name": hook.name,
                    "status": PENDING,
                    "attempts": 1,
                    "next_attempt_at": now + self._lease(per_webhook[hook.id]),
                    "created_at": now,
                }
                for row, hook in wanted
            ]
            if deliveries:
                made = await conn.execute(
                    insert(webhook_deliveries).returning(
                        webhook_deliveries.c.id, sort_by_parameter_order=True
                    ),
                    deliveries,
                )
                claimed = [
                    _Claimed(
                        id=delivery_id,
                        attempts=1,
                        webhook_id=hook.id,
                        event_id=row.id,
                        event=row.event,
                        payload=row.payload,
                        url=hook.url,
                        headers=dict(hook.headers),
                        enabled=True,
                    )
                    for delivery_id, (row, hook) in zip(made.scalars(), wanted, strict=True)
                ]
            ids = [row.id for row in rows]
            await conn.execute(update(events).where(events.c.id.in_(ids)).values(dispatched=True))
        if listening:
            for row in rows:
                await self.listeners.notify(ChangeEvent.from_row(row))
        return len(rows), claimed

    def _lease(self, sends: int) -> timedelta:
        """How long a claim of ``sends`` deliveries to one webhook lasts: they are sent one
        after the other, each within the timeout; past it (the worker died, or could not store
        the outcome), they are due again."""
        return timedelta(seconds=self.settings.webhooks_timeout * sends + LEASE_MARGIN)

    async def _deliver_due(self) -> int:
        now = _now()
        async with self.database.write() as conn:
            due = (
                await conn.execute(
                    select(webhook_deliveries.c.id, webhook_deliveries.c.webhook_id)
                    .where(
                        webhook_deliveries.c.status == PENDING,
                        webhook_deliveries.c.next_attempt_at <= now,
                    )
                    .order_by(webhook_deliveries.c.next_attempt_at, webhook_deliveries.c.id)
                    .limit(BATCH)
                    .with_for_update(skip_locked=True)
                )
            ).all()
            if not due:
                return 0
            per_webhook: dict[int, list[int]] = {}
            for row in due:
                per_webhook.setdefault(row.webhook_id, []).append(row.id)
            for ids in per_webhook.values():
                await conn.execute(
                    update(webhook_deliveries)
                    .where(webhook_deliveries.c.id.in_(ids))
                    .values(
                        next_attempt_at=now + self._lease(len(ids)),
                        attempts=webhook_deliveries.c.attempts + 1,
                    )
                )
            claimed = (
                await conn.execute(
                    select(
                        webhook_deliveries.c.id,
                        webhook_deliveries.c.attempts,
                        webhook_deliveries.c.webhook_id,
                        events.c.id.label("event_id"),
                        events.c.event,
                        events.c.payload,
                        webhooks.c.url,
                        webhooks.c.headers,
                        webhooks.c.enabled,
                    )
                    .select_from(
                        webhook_deliveries.join(
                            events, events.c.id == webhook_deliveries.c.event_id
                        ).outerjoin(webhooks, webhooks.c.id == webhook_deliveries.c.webhook_id)
                    )
                    .where(webhook_deliveries.c.id.in_([row.id for row in due]))
                )
            ).all()
        await self._send_and_store([_Claimed(**row._mapping) for row in claimed])
        return len(due)

    async def _send_and_store(self, claimed: list[_Claimed]) -> None:
        """Send claimed deliveries — each webhook's one after the other, in the order of
        their events (an update before the delete), the webhooks side by side — and store
        their outcomes in one transaction."""
        by_webhook: dict[int, list[_Claimed]] = {}
        for delivery in sorted(claimed, key=lambda claim: claim.event_id):
            by_webhook.setdefault(delivery.webhook_id, []).append(delivery)
        finished: list[dict[str, Any]] = []
        retried: list[dict[str, Any]] = []

        async def send_in_order(deliveries: list[_Claimed]) -> None:
            for delivery in deliveries:
                outcome = await self._send(delivery)
                outcome["delivery_id"] = delivery.id
                (retried if outcome["status"] == PENDING else finished).append(outcome)

        await asyncio.gather(*(send_in_order(group) for group in by_webhook.values()))
        async with self.database.write() as conn:
            for outcomes in (finished, retried):
                if not outcomes:
                    continue
                # one statement for them all; its parameters are named apart from the columns
                names = [key for key in outcomes[0] if key != "delivery_id"]
                columns: dict[str, Any] = {name: bindparam(f"new_{name}") for name in names}
                await conn.execute(
                    update(webhook_deliveries)
                    .where(webhook_deliveries.c.id == bindparam("delivery_id"))
                    .values(**columns),
                    [
                        {"delivery_id": o["delivery_id"], **{f"new_{n}": o[n] for n in names}}
                        for o in outcomes
                    ],
                )

    async def _send(self, delivery: _Claimed) -> dict[str, Any]:
        """Send one claimed delivery; the columns of its outcome."""
        if delivery.url is None or not delivery.enabled:
            return self._finished(FAILED, None, "the webhook was deleted or disabled", 0)
        refuse = None if self.settings.webhooks_private_allowed else _refuse_private
        secret = self.settings.webhooks_secret
        built = request(
            delivery.url,
            delivery.headers if isinstance(delivery.headers, dict) else {},
            delivery.event,
            delivery.payload,
            sent_at=datetime.now(UTC),
            event_id=delivery.event_id,
            default_headers=self.settings.webhooks_default_headers,
            secret=secret.get_secret_value() if secret else None,
        )
        assert self._client is not None
        started = time.monotonic()
        try:
            status, text = await post(self._client, built, refuse)
        except RefusedTarget as error:  # every hop is checked: a redirect may lead inside
            return self._finished(FAILED, None, str(error), _ms(started))
        except (WebhookSendError, TimeoutError) as error:
            return self._retry_or_fail(delivery, None, repr(error), started)
        if 200 <= status < 300:
            return self._finished(DELIVERED, status, None, _ms(started))
        if status >= 500:
            return self._retry_or_fail(delivery, status, text, started)
        return self._finished(FAILED, status, text, _ms(started))

    def _retry_or_fail(
        self, delivery: _Claimed, status: int | None, error: str, started: float
    ) -> dict[str, Any]:
        if delivery.attempts >= self.settings.webhooks_max_attempts:
            return self._finished(FAILED, status, error, _ms(started))
        wait = retry_wait(delivery.attempts, self.settings.webhooks_retry_ceiling)
        return {
            "status": PENDING,
            "next_attempt_at": _now() + timedelta(seconds=wait),
            "last_status": status,
            "last_error": error,
            "duration_ms": _ms(started),
        }

    @staticmethod
    def _finished(
        status: str, code: int | None, error: str | None, duration_ms: int
    ) -> dict[str, Any]:
        return {
            "status": status,
            "last_status": code,
            "last_error": error,
            "duration_ms": duration_ms,
            "finished_at": _now(),
        }

    async def _clean_up(self) -> None:
        """Delete what the retention no longer keeps: finished deliveries, and events with no
        delivery still to make."""
        before = _now() - timedelta(seconds=self.settings.events_retention)
        open_deliveries = exists().where(
            webhook_deliveries.c.event_id == events.c.id,
            webhook_deliveries.c.status == PENDING,
        )
        async with self.database.write() as conn:
            await conn.execute(
                delete(webhook_deliveries).where(
                    webhook_deliveries.c.status != PENDING,
                    webhook_deliveries.c.finished_at < before,
                )
            )
            await conn.execute(
                delete(events).where(
                    events.c.created_at < before,
                    events.c.dispatched.is_(True),
                    ~open_deliveries,
                )
            )


async def _refuse_private(url: str) -> str | None:
    """Why a production server may not send to ``url`` (``webhooks_allow_private``)."""
    address = await private_target(url)
    if address is None:
        return None
    return f"{address} is a private address (CONTENTAPI_WEBHOOKS_ALLOW_PRIVATE)"


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
