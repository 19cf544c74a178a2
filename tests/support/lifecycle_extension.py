"""An extension with lifecycle hooks and change-feed listeners, for
``tests/api/extensions/test_lifecycles.py``. Its hooks act on articles by their title:

- ``refuse``: a create or update refused with a 400 (``before_*``);
- ``shout: x``: stored as ``X`` (``before_*`` changes the data);
- ``explode``: ``after_*`` raises once the row is written (the write rolls back);
- ``secret``: read as ``[hidden]`` (``after_find_*`` changes the result);
an article whose id is in ``PROTECTED`` cannot be deleted. ``CALLS`` lists every hook run as
``(action, model)``, ``STATES`` what each ``after_*`` found in the ``state`` its ``before_*``
left, ``HEARD`` the committed events the listeners got.
"""

from __future__ import annotations

from typing import Any

from contentapi.entries.lifecycles import LifecycleEvent
from contentapi.errors import ValidationError
from contentapi.events.listeners import ChangeEvent

ARTICLE = "api::article.article"
CALLS: list[tuple[str, str]] = []
STATES: list[Any] = []
HEARD: list[ChangeEvent] = []
PROTECTED: set[int] = set()


def forget() -> None:
    for kept in (CALLS, STATES, HEARD, PROTECTED):
        kept.clear()


def register(app: Any) -> None:
    app.lifecycles.subscribe(
        models=[ARTICLE],
        before_create=_before_write,
        before_update=_before_write,
        after_create=_after_write,
        after_update=_after_write,
        before_delete=_before_delete,
        after_delete=_noted,
        before_find_many=_noted,
        after_find_many=_hide_secrets,
        before_find_one=_noted,
        after_find_one=_hide_secret,
    )
    # a second subscription, on every model, sees the first one's changes
    app.lifecycles.subscribe(before_create=_noted, before_update=_noted)
    app.events.on("entry.create", HEARD.append)
    app.events.on("*", _heard_async)


def _noted(event: LifecycleEvent) -> None:
    CALLS.append((event.action, event.model))


async def _before_write(event: LifecycleEvent) -> None:
    _noted(event)
    data = event.params["data"]
    title = data.get("title") if isinstance(data, dict) else None
    if title == "refuse":
        raise ValidationError("This title is refused by an extension")
    if isinstance(title, str) and title.startswith("shout: "):
        data["title"] = title.removeprefix("shout: ").upper()
    event.state["before"] = event.action


def _after_write(event: LifecycleEvent) -> None:
    _noted(event)
    STATES.append(dict(event.state))
    if event.result.get("title") == "explode":
        raise RuntimeError("an extension's after hook failed")


def _before_delete(event: LifecycleEvent) -> None:
    _noted(event)
    if event.params["id"] in PROTECTED:
        raise ValidationError("This article is protected")


def _hide_secret(event: LifecycleEvent) -> None:
    _noted(event)
    if event.result is not None and event.result.get("title") == "secret":
        event.result["title"] = "[hidden]"


def _hide_secrets(event: LifecycleEvent) -> None:
    _noted(event)
    for entry in event.result:
        if entry.get("title") == "secret":
            entry["title"] = "[hidden]"


async def _heard_async(event: ChangeEvent) -> None:
    CALLS.append(("listener *", event.event))
