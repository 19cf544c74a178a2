"""The cache kit (``caching.py``): eviction, the generation race, the live flag; and the change
listener's dispatch to its subscribers (``db/notify.py``), without a database."""

from __future__ import annotations

import pytest

from contentapi import caching
from contentapi.auth.cache import CallerCache
from contentapi.caching import BoundedCache, InvalidatedCache
from contentapi.db.notify import AUTH_CHANNEL, CONTENT_CHANNEL, ChangeListener
from contentapi.entries.totals import TotalsCache


def test_a_bounded_cache_drops_the_first_stored_past_its_size():
    cache: BoundedCache[str, int] = BoundedCache(3)
    for n, key in enumerate("abcd"):
        assert cache.put(key, n) == n
    assert len(cache) == 3
    assert cache.get("a") is None
    assert [cache.get(key) for key in "bcd"] == [1, 2, 3]
    cache.get("b")  # a hit does not reorder: first in, first out
    cache.put("e", 4)
    assert cache.get("b") is None and "c" in cache


def test_replacing_a_value_keeps_its_place_and_the_size():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert len(cache) == 2 and cache.get("a") == 10
    cache.put("c", 3)
    assert cache.get("a") is None and cache.get("b") == 2


def test_discard_and_clear():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.discard("a")
    cache.discard("missing")
    assert len(cache) == 0
    cache.put("b", 2)
    get = cache.get
    cache.clear()
    assert len(cache) == 0 and get("b") is None  # the bound lookup follows the clear
    cache.put("b", 3)
    assert get("b") == 3


def test_unhashable_keys_raise_type_error_as_a_dictionary_does():
    """Callers rely on it: a query holding a list is not cached (``entries/reads.py``)."""
    cache: BoundedCache[object, int] = BoundedCache(2)
    with pytest.raises(TypeError):
        cache.get(["a"])


def test_an_invalidated_cache_is_trusted_only_while_live():
    cache: InvalidatedCache[str, int] = InvalidatedCache(10)
    cache.put("a", 1, cache.generation)
    assert cache.get("a") is None and len(cache) == 0  # not live: nothing kept
    cache.set_live(True)
    cache.put("a", 1, cache.generation)
    assert cache.get("a") == 1
    cache.set_live(False)  # the listener lost its connection
    assert cache.get("a") is None
    cache.set_live(True)
    assert cache.get("a") is None  # emptied when it stopped being trusted


def test_a_value_read_before_a_change_is_not_kept_after_it():
    cache: InvalidatedCache[str, int] = InvalidatedCache(10)
    cache.set_live(True)
    generation = cache.generation  # a read starts
    cache.changed("up_roles")  # a change commits meanwhile
    cache.put("a", 1, generation)  # the read ends with what it saw before the change
    assert cache.get("a") is None
    cache.put("a", 2, cache.generation)  # a read started after the change is kept
    assert cache.get("a") == 2


def test_every_invalidation_raises_the_generation():
    cache: InvalidatedCache[str, int] = InvalidatedCache(10)
    seen = {cache.generation}
    for forget in (cache.clear, lambda: cache.changed("t"), lambda: cache.set_live(True)):
        forget()
        assert cache.generation not in seen
        seen.add(cache.generation)


def test_an_invalidated_cache_is_bounded():
    cache: InvalidatedCache[int, int] = InvalidatedCache(2)
    cache.set_live(True)
    for n in range(3):
        cache.put(n, n, cache.generation)
    assert len(cache) == 2 and cache.get(0) is None and cache.size == 2


def test_the_caller_cache_and_the_totals_share_the_protocol_and_the_sizes():
    callers, totals = CallerCache(), TotalsCache()
    assert isinstance(callers, InvalidatedCache) and isinstance(totals, InvalidatedCache)
    assert callers.size == caching.CALLERS and totals.size == caching.LIST_TOTALS
    constants = {name: getattr(caching, name) for name in caching.__all__ if name.isupper()}
    del constants["SIZES"]
    assert constants == caching.SIZES  # the table names every size
    assert all(size > 0 for size in caching.SIZES.values())


# ---------------------------------------------------------------- the listener's dispatch


def _listener() -> ChangeListener:
    return ChangeListener("postgresql+asyncpg://nobody@127.0.0.1:1/none")


def test_notifications_go_to_their_channels_subscribers_with_the_table():
    listener = _listener()
    heard: list[tuple[str, str]] = []
    listener.subscribe(AUTH_CHANNEL, lambda table: heard.append(("auth", table)))
    listener.subscribe(CONTENT_CHANNEL, lambda table: heard.append(("content", table)))
    listener.subscribe(CONTENT_CHANNEL, lambda table: heard.append(("content 2", table)))
    listener._dispatch(None, 1, CONTENT_CHANNEL, "articles")
    listener._dispatch(None, 1, AUTH_CHANNEL, "up_roles")
    listener._dispatch(None, 1, "contentapi_other", "x")  # nobody subscribed: nothing
    assert heard == [("content", "articles"), ("content 2", "articles"), ("auth", "up_roles")]


def test_a_failing_subscriber_does_not_keep_the_others_deaf(caplog: pytest.LogCaptureFixture):
    listener = _listener()
    totals = TotalsCache()
    totals.set_live(True)
    generation = totals.generation

    def broken(table: str) -> None:
        raise RuntimeError("broken subscriber")

    listener.subscribe(CONTENT_CHANNEL, broken)
    listener.subscribe(CONTENT_CHANNEL, totals.changed)
    listener._dispatch(None, 1, CONTENT_CHANNEL, "articles")
    assert totals.generation != generation
    assert "subscriber failed" in caplog.text


def test_unsubscribe_and_live_subscribers():
    listener = _listener()
    callers = CallerCache()
    listener.subscribe(AUTH_CHANNEL, callers.changed)
    listener.on_live(callers.set_live)
    listener._set_live(True)
    assert listener.live and callers.live
    listener.unsubscribe(AUTH_CHANNEL, callers.changed)
    generation = callers.generation
    listener._dispatch(None, 1, AUTH_CHANNEL, "up_users")
    assert callers.generation == generation  # no longer subscribed
    listener._set_live(False)
    assert not listener.live and not callers.live


async def test_a_new_channel_cannot_be_subscribed_once_listening():
    listener = _listener()
    listener.subscribe(AUTH_CHANNEL, lambda table: None)
    await listener.start(wait_seconds=0.05)  # nothing answers: it keeps retrying
    try:
        with pytest.raises(RuntimeError, match="before the listener starts"):
            listener.subscribe(CONTENT_CHANNEL, lambda table: None)
        listener.subscribe(AUTH_CHANNEL, lambda table: None)  # a known channel: fine
    finally:
        await listener.stop()
