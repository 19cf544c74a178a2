"""Extensions' overrides of the entry service for one content type (Strapi's
``createCoreService(uid, ({ strapi }) => ({ async find(params) { … super.find(params) … } }))``).

``app.services.override(uid, method, fn)`` replaces ``method`` of the entry service for
``uid`` only: ``fn(default, *args, **kwargs)``, where ``await default(*args, **kwargs)`` runs the
core method. REST's routes and GraphQL's resolvers both read and write through the entry
service, so one override changes both protocols. The methods, with Strapi's names:

| method | Strapi's core service | arguments after the uid |
|---|---|---|
| ``find_many`` | ``find`` | ``query`` (a ``ReadQuery``); answers a ``Page`` |
| ``find_one`` | ``findOne`` | ``entry_id, query``; an entry or ``None`` |
| ``create`` | ``create`` | ``data, query, publish=…`` |
| ``update`` | ``update`` | ``entry_id, data, query, sync_populated=…`` |
| ``delete`` | ``delete`` | ``entry_id, query`` |
| ``find_single``, ``upsert_single``, ``delete_single`` | a single type's three | as here |

Without an override the entry service is used as it is: nothing is wrapped.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["OVERRIDABLE", "ServiceOverrideError", "ServiceOverrides"]

OVERRIDABLE = (
    "find_many",
    "find_one",
    "create",
    "update",
    "delete",
    "find_single",
    "upsert_single",
    "delete_single",
)


class ServiceOverrideError(ValueError):
    """An override that cannot be applied (start-up fails with it, in one line)."""


class ServiceOverrides:
    """``app.services``: the overrides extensions register, per method and content type."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self._by_method: dict[str, dict[str, Callable[..., Any]]] = {}
        #: the extension module registering now (errors name it)
        self.current_source = ""

    def override(self, uid: str, method: str, fn: Callable[..., Any]) -> None:
        """``method`` of the entry service, for ``uid``: ``fn(default, *args, **kwargs)``."""
        where = f"extension {self.current_source!r}"
        content_type = self.registry.content_types.get(uid)
        if content_type is None or content_type.is_builtin:
            raise ServiceOverrideError(
                f"{where}: no content type {uid!r} has an entry service to override"
            )
        if method not in OVERRIDABLE:
            raise ServiceOverrideError(
                f"{where}: the entry service has no method {method!r} to override "
                f"(it has {', '.join(OVERRIDABLE)})"
            )
        if not callable(fn):
            raise ServiceOverrideError(f"{where}: the override of {uid} {method} is not callable")
        by_uid = self._by_method.setdefault(method, {})
        if uid in by_uid:
            raise ServiceOverrideError(f"{where}: {method} of {uid} is overridden twice")
        by_uid[uid] = fn

    def __bool__(self) -> bool:
        return bool(self._by_method)

    def apply(self, entries: Any) -> Any:
        """``entries`` itself when nothing is overridden, else a service that dispatches the
        overridden methods by uid and hands every other call to ``entries``."""
        if not self._by_method:
            return entries
        return _OverriddenEntries(entries, self._by_method)


class _OverriddenEntries:
    """The entry service with some methods overridden for some content types."""

    def __init__(self, base: Any, by_method: dict[str, dict[str, Callable[..., Any]]]) -> None:
        self._base = base
        for method, by_uid in by_method.items():
            setattr(self, method, _dispatching(getattr(base, method), dict(by_uid)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


def _dispatching(core: Callable[..., Any], by_uid: dict[str, Callable[..., Any]]) -> Any:
    async def call(uid: str, *args: Any, **kwargs: Any) -> Any:
        fn = by_uid.get(uid)
        if fn is None:
            return await core(uid, *args, **kwargs)

        async def default(*args: Any, **kwargs: Any) -> Any:
            return await core(uid, *args, **kwargs)

        answer = fn(default, *args, **kwargs)
        return await answer if inspect.isawaitable(answer) else answer

    return call
