"""GraphQL subscriptions over WebSocket on the GraphQL endpoint, in the ``graphql-transport-ws``
protocol (what Apollo Client's ``GraphQLWsLink`` and urql speak; github.com/enisdenjo/graphql-ws,
PROTOCOL.md): ``connection_init`` (its payload may carry ``Authorization``, else the upgrade
request's header is used) → ``connection_ack``; ``subscribe`` → ``next``… → ``complete``;
``ping`` → ``pong``. An upgrade that does not ask for the protocol is refused (403); a
connection is closed with the protocol's codes: 4400 a bad message, 4401 a subscribe before
``connection_init``, 4403 a refused credential,
4408 no init within 10 s, 4409 an operation id in use, 4429 a second init.

Each subscription follows this worker's tail of the change feed (``events/feed.py``), so it
hears every worker's and instance's writes; the caller's ``find`` on the type is checked again
every second (a lost permission ends it with an error, then ``complete``), and one that does
not keep up is ended the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import orjson
from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from contentapi.auth.actor import Actor, may
from contentapi.auth.deps import CallerResolver
from contentapi.errors import ApplicationError
from contentapi.events.feed import ChangeFeed, FeedSubscription
from contentapi.events.listeners import ChangeEvent
from contentapi.graphql.context import GraphQLContext, GraphQLServices, PlanCache
from contentapi.graphql.execute import Engine
from contentapi.graphql.plan import Planner
from contentapi.graphql.subscriptions import ENTRY_VARIABLE, SubscriptionPlan, plan_subscription

__all__ = ["PROTOCOL", "SubscriptionServer"]

PROTOCOL = "graphql-transport-ws"
#: seconds a client has to send ``connection_init``
INIT_SECONDS = 10.0
#: seconds between two checks that the caller may still read the type
REAUTHORIZE_SECONDS = 1.0
#: answers kept for sharing (the most recent events')
SHARED_ANSWERS = 256


def _as_http(websocket: WebSocket, authorization: str | None) -> Request:
    """The upgrade request as the caller resolver reads requests, its ``Authorization``
    replaced by the one ``connection_init`` carried (browsers cannot set WebSocket headers)."""
    scope = dict(websocket.scope)
    scope["type"] = "http"
    scope["method"] = "GET"
    headers = [(k, v) for k, v in websocket.scope["headers"] if k != b"authorization"]
    if authorization:
        headers.append((b"authorization", authorization.encode("latin-1")))
    elif websocket.headers.get("authorization"):
        headers.append((b"authorization", websocket.headers["authorization"].encode("latin-1")))
    scope["headers"] = headers
    return Request(scope)


def _authorization(payload: Any) -> str | None:
    if not isinstance(payload, dict):
        return None
    for key in ("Authorization", "authorization"):
        if isinstance(payload.get(key), str):
            return str(payload[key])
    headers = payload.get("headers")
    return _authorization(headers) if isinstance(headers, dict) else None


@dataclass
class SubscriptionServer:
    """Serves the WebSocket connections of the GraphQL endpoint."""

    engine: Engine
    callers: CallerResolver
    services: GraphQLServices
    planner: Planner
    plans: PlanCache
    feed: ChangeFeed
    #: answers of recent events, shared by the subscriptions that would read them alike (the
    #: same query, variables and permissions): a thousand subscribers of one query cost one
    #: read per worker and event
    _answers: OrderedDict[tuple[Any, ...], asyncio.Task[dict[str, Any] | None]] = field(
        default_factory=OrderedDict, init=False
    )

    async def __call__(self, websocket: WebSocket) -> None:
        if PROTOCOL not in websocket.scope.get("subprotocols", []):
            await websocket.close(4406, "Subprotocol not acceptable")  # before accept: a 403
            return
        await websocket.accept(subprotocol=PROTOCOL)
        try:
            init = await asyncio.wait_for(websocket.receive_json(), INIT_SECONDS)
        except TimeoutError:
            await websocket.close(4408, "Connection initialisation timeout")
            return
        except (WebSocketDisconnect, ValueError):
            return
        if isinstance(init, dict) and init.get("type") == "subscribe":
            await websocket.close(4401, "Unauthorized")
            return
        if not isinstance(init, dict) or init.get("type") != "connection_init":
            await websocket.close(4400, "Expected connection_init")
            return
        request = _as_http(websocket, _authorization(init.get("payload")))
        try:
            await self.callers.current_actor(request)
        except ApplicationError:
            await websocket.close(4403, "Forbidden")
            return
        await websocket.send_json({"type": "connection_ack"})
        running: dict[str, asyncio.Task[None]] = {}
        try:
            await self._messages(websocket, request, running)
        finally:
            for task in running.values():
                task.cancel()
            for task in running.values():
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _messages(
        self, websocket: WebSocket, request: Request, running: dict[str, asyncio.Task[None]]
    ) -> None:
        while True:
            try:
                message = await websocket.receive_json()
            except WebSocketDisconnect:
                return
            except ValueError:
                await websocket.close(4400, "Invalid message received")
                return
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "ping":
                await websocket.send_json({"type": "pong"})
            elif kind == "pong":
                continue
            elif kind == "subscribe" and isinstance(message.get("id"), str):
                operation_id = message["id"]
                if operation_id in running and not running[operation_id].done():
                    await websocket.close(4409, f"Subscriber for {operation_id} already exists")
                    return
                # in place before the next message is read: a client's later message (a
                # ping, a write on another connection after its pong) finds it subscribed
                started = await self._subscribe(
                    websocket, request, operation_id, message.get("payload")
                )
                if started is not None:
                    planned, actor, subscription = started
                    following = asyncio.create_task(
                        self._follow(websocket, operation_id, request, planned, actor, subscription)
                    )
                    # also when cancelled before it ever ran (no ``finally`` would)
                    following.add_done_callback(partial(self._forget, subscription))
                    running[operation_id] = following
            elif kind == "complete" and isinstance(message.get("id"), str):
                task = running.pop(message["id"], None)
                if task is not None:
                    task.cancel()
            elif kind == "connection_init":
                await websocket.close(4429, "Too many initialisation requests")
                return
            else:
                await websocket.close(4400, "Invalid message received")
                return

    async def _subscribe(
        self, websocket: WebSocket, request: Request, operation_id: str, payload: Any
    ) -> tuple[SubscriptionPlan, Actor, FeedSubscription] | None:
        """The subscription of a ``subscribe`` message, following the change feed from now;
        ``None`` when it is refused (the client is told why)."""
        planned = plan_subscription(self.engine.schema, payload)
        if isinstance(planned, list):
            errors = [error.formatted for error in planned]
            await websocket.send_json({"id": operation_id, "type": "error", "payload": errors})
            return None
        actor = await self._actor(request, f"{planned.uid}.find")
        if actor is None:
            await self._end(websocket, operation_id, "Forbidden", "FORBIDDEN")
            return None
        uid, wanted = planned.uid, planned.events
        subscription = await self.feed.subscribe(
            lambda event: event.uid == uid and event.event in wanted
        )
        return planned, actor, subscription

    async def _follow(
        self,
        websocket: WebSocket,
        operation_id: str,
        request: Request,
        planned: SubscriptionPlan,
        actor: Actor,
        subscription: FeedSubscription,
    ) -> None:
        """Send each event's answer until the subscription ends (its task is cancelled, the
        caller loses ``find``, or the client does not keep up)."""
        action = f"{planned.uid}.find"
        checked = time.monotonic()
        while True:
            event = await subscription.next(REAUTHORIZE_SECONDS)
            if subscription.ended is not None:
                await self._end(websocket, operation_id, subscription.ended, "SLOW_CONSUMER")
                return
            if time.monotonic() - checked >= REAUTHORIZE_SECONDS:
                current = await self._actor(request, action)
                if current is None:
                    await self._end(websocket, operation_id, "Forbidden", "FORBIDDEN")
                    return
                actor, checked = current, time.monotonic()
            if event is not None:
                answer = await self._answer(planned, event, actor, request)
                if answer is not None:
                    await websocket.send_json(
                        {"id": operation_id, "type": "next", "payload": answer}
                    )

    def _forget(self, subscription: FeedSubscription, _: asyncio.Task[None]) -> None:
        self.feed.unsubscribe(subscription)

    async def _actor(self, request: Request, action: str) -> Actor | None:
        """The caller, while it may ``action``; ``None`` once it may not (or is refused)."""
        try:
            actor = await self.callers.current_actor(request)
        except ApplicationError:
            return None
        return actor if may(actor, action) else None

    async def _answer(
        self, planned: SubscriptionPlan, event: ChangeEvent, actor: Actor, request: Request
    ) -> dict[str, Any] | None:
        """The ``next`` payload of ``event``; ``None`` when its entry does not match."""
        if planned.query is None:  # deleted: the entry is gone
            if planned.single and not await self._of_locale(planned, event):
                return None
            return {
                "data": {planned.key: {"data": {"id": str(event.entry_id), "attributes": None}}}
            }
        permissions = (actor.token_type if actor.kind == "api-token" else None, actor.permissions)
        variables = orjson.dumps(planned.variables, option=orjson.OPT_SORT_KEYS, default=str)
        key = (event.id, planned.query, planned.key, variables, permissions)
        shared = self._answers.get(key)
        if shared is None:
            # a task of its own: a subscriber leaving does not cancel the others' answer
            shared = asyncio.ensure_future(self._read(planned, event, actor, request))
            self._answers[key] = shared
            while len(self._answers) > SHARED_ANSWERS:
                self._answers.popitem(last=False)
        return await asyncio.shield(shared)

    async def _read(
        self, planned: SubscriptionPlan, event: ChangeEvent, actor: Actor, request: Request
    ) -> dict[str, Any] | None:
        assert planned.query is not None
        variables = {**planned.variables, ENTRY_VARIABLE: str(event.entry_id)}
        context = GraphQLContext(self.services, actor, request, self.planner, self.plans)
        outcome = await self.engine.run(
            {"query": planned.query, "variables": variables}, context, read_only=True
        )
        body = outcome.body
        if body.get("errors"):
            return {"data": None, "errors": body["errors"]}
        found = ((body.get("data") or {}).get(planned.key) or {}).get("data")
        if planned.single:  # the single type's entry, of the event only when it is the same
            entry = found if found and found.get("id") == str(event.entry_id) else None
        else:  # the list held to the event's entry
            entry = found[0] if found else None
        return None if entry is None else {"data": {planned.key: {"data": entry}}}

    async def _of_locale(self, planned: SubscriptionPlan, event: ChangeEvent) -> bool:
        """Whether a single type's deleted entry is of the locale the subscription follows
        (its ``locale``, else the default one, as the single type's query reads)."""
        if event.locale is None or planned.locale == event.locale:
            return True
        if planned.locale is not None:
            return False
        entries = self.services.entries
        async with self.services.database.read() as conn:
            default = await entries.reads.default_locale(
                conn, entries.reads.content_type(planned.uid), None
            )
        return default == event.locale

    @staticmethod
    async def _end(websocket: WebSocket, operation_id: str, reason: str, code: str) -> None:
        """End one subscription with an error the client's ``next`` handler sees."""
        errors = [{"message": reason, "extensions": {"code": code}}]
        await websocket.send_json(
            {"id": operation_id, "type": "next", "payload": {"errors": errors}}
        )
        await websocket.send_json({"id": operation_id, "type": "complete"})
