"""Lifecycle hooks: an extension's functions around the entry flows, as Strapi's
``strapi.db.lifecycles.subscribe``.

``app.lifecycles.subscribe(models=[...], before_create=fn, after_create=fn, ...)`` (README,
"Extensions"). Every flow of ``EntryService`` runs them — REST and GraphQL, collection and
single types, new localizations, the users of ``/api/users`` — so one subscription sees both
protocols. A write's hooks run **inside its transaction**: a ``before_*`` may change
``event.params["data"]`` or refuse with an ``ApplicationError`` (a 4xx in the contract's shape,
nothing written), and any exception of a ``before_*`` or ``after_*`` rolls the write back, so
nothing that can fail happens after the commit. Side effects that must wait for the commit
subscribe to the change feed instead (``app.events.on``, ``events/listeners.py``).

A flow asks ``Lifecycles.of(uid, action)`` first: ``None`` (no subscription, the usual case)
costs it one dictionary lookup and keeps its fast path.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from contentapi.db.async_engine import AsyncConnection

__all__ = [
    "ACTIONS",
    "ActionHooks",
    "LifecycleError",
    "LifecycleEvent",
    "LifecycleRun",
    "Lifecycles",
]

Action = Literal["create", "update", "delete", "find_many", "find_one"]
ACTIONS: tuple[Action, ...] = ("create", "update", "delete", "find_many", "find_one")
#: the keyword arguments of ``subscribe``: ``before_create``, ``after_create``, ...
HOOK_NAMES = frozenset(f"{moment}_{action}" for action in ACTIONS for moment in ("before", "after"))

Hook = Callable[["LifecycleEvent"], Any]


class LifecycleError(Exception):
    """A subscription that cannot be: an unknown hook name, a hook that is not callable."""


@dataclass(slots=True, eq=False)
class LifecycleEvent:
    """What a hook receives (Strapi's lifecycle ``event``).

    ``params``: ``data`` (the body's ``data`` of a create or update, which a ``before_*`` may
    change or replace), ``id`` (update, delete, find_one: ``None`` for a single type),
    ``query`` (the ``ReadQuery``: filters, sort, pagination, fields, populate, locale — a
    ``before_find_*`` may replace it). ``result``: the entry (or, for ``find_many``, the list
    of entries) an ``after_*`` sees and may change. ``state``: a dict kept from a
    subscription's ``before_*`` to its ``after_*`` of the same operation. ``connection``: the
    write's transaction (``None`` for reads), for SQL that must commit or roll back with it.
    """

    action: str
    model: str
    params: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    connection: AsyncConnection | None = None


@dataclass(frozen=True, slots=True)
class _Subscription:
    models: frozenset[str] | None  # None: every model
    hooks: dict[str, Hook]

    def applies(self, uid: str, action: Action) -> bool:
        wanted = f"before_{action}" in self.hooks or f"after_{action}" in self.hooks
        return wanted and (self.models is None or uid in self.models)


class Lifecycles:
    """The subscriptions, looked up per model and action (and kept so)."""

    def __init__(self) -> None:
        self._subscriptions: list[_Subscription] = []
        self._by_action: dict[tuple[str, Action], ActionHooks | None] = {}

    def subscribe(self, models: Iterable[str] | str | None = None, **hooks: Hook) -> None:
        """Run ``hooks`` (``before_create=fn``, ...) for the content types ``models`` names (uids;
        ``None``: all). A hook takes the ``LifecycleEvent`` and may be sync or async."""
        for name, hook in hooks.items():
            if name not in HOOK_NAMES:
                raise LifecycleError(
                    f"lifecycles.subscribe: unknown hook {name!r} (one of {sorted(HOOK_NAMES)})"
                )
            if not callable(hook):
                raise LifecycleError(f"lifecycles.subscribe: {name} is not callable")
        if isinstance(models, str):
            models = [models]
        chosen = None if models is None else frozenset(models)
        self._subscriptions.append(_Subscription(chosen, dict(hooks)))
        self._by_action.clear()

    def of(self, uid: str, action: Action) -> ActionHooks | None:
        """The hooks of ``action`` on ``uid``'s entries; ``None`` when there are none."""
        if not self._subscriptions:
            return None
        key = (uid, action)
        try:
            return self._by_action[key]
        except KeyError:
            applying = [s for s in self._subscriptions if s.applies(uid, action)]
            found = ActionHooks(uid, action, applying) if applying else None
            self._by_action[key] = found
            return found


class ActionHooks:
    """The subscriptions that apply to one action on one content type."""

    def __init__(self, uid: str, action: Action, subscriptions: list[_Subscription]) -> None:
        self.uid = uid
        self.action = action
        self._subscriptions = subscriptions

    async def before(self, connection: AsyncConnection | None, **params: Any) -> LifecycleRun:
        """Run every ``before_<action>`` in subscription order; the run carries the (possibly
        changed) params to the flow and the events on to ``after``."""
        run = LifecycleRun(self, connection, params)
        hook_name = f"before_{self.action}"
        for subscription, event in zip(self._subscriptions, run.events, strict=True):
            hook = subscription.hooks.get(hook_name)
            if hook is not None:
                event.action = hook_name
                await _call(hook, event)
                run.params = event.params
                _share_params(run)
        return run


class LifecycleRun:
    """One operation's events, one per subscription (each with its own ``state``)."""

    def __init__(
        self, hooks: ActionHooks, connection: AsyncConnection | None, params: dict[str, Any]
    ) -> None:
        self.hooks = hooks
        self.params = params
        self.events = [
            LifecycleEvent("", hooks.uid, params, connection=connection)
            for _ in hooks._subscriptions
        ]

    async def after(self, result: Any) -> Any:
        """Run every ``after_<action>`` with ``result``; what they leave in ``event.result``."""
        hook_name = f"after_{self.hooks.action}"
        for subscription, event in zip(self.hooks._subscriptions, self.events, strict=True):
            event.result = result
            hook = subscription.hooks.get(hook_name)
            if hook is not None:
                event.action = hook_name
                await _call(hook, event)
                result = event.result
        return result


def _share_params(run: LifecycleRun) -> None:
    """A hook that replaced ``event.params`` is seen by the next subscriptions' hooks."""
    for event in run.events:
        event.params = run.params


async def _call(hook: Hook, event: LifecycleEvent) -> None:
    outcome = hook(event)
    if inspect.isawaitable(outcome):
        await outcome
