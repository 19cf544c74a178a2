"""The change feed's live tail (``events/feed.py``): events that commit out of id order are
still handed out, and a subscriber that does not read is cut off at its queue's bound."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import insert

from contentapi.db.engine import Database
from contentapi.db.system import events, system_metadata
from contentapi.events.feed import QUEUE_LIMIT, ChangeFeed, FeedSubscription
from contentapi.events.listeners import ChangeEvent


def _event(event_id: int) -> ChangeEvent:
    return ChangeEvent(event_id, "entry.create", "api::a.a", 1, None, {}, datetime(2026, 1, 1))


def test_a_subscriber_that_does_not_read_is_cut_off_at_its_bound():
    subscription = FeedSubscription(lambda event: True)
    for event_id in range(QUEUE_LIMIT):
        subscription.offer(_event(event_id))
    assert subscription.ended is None
    subscription.offer(_event(QUEUE_LIMIT))
    assert subscription.ended is not None and "did not keep up" in subscription.ended
    assert subscription.closed.is_set()
    assert subscription.queue.qsize() == QUEUE_LIMIT  # nothing queued past the bound


async def test_an_event_that_commits_after_a_later_one_is_still_handed_out(tmp_path: Path):
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'feed.db'}")
    async with database.write() as conn:
        await conn.run_sync(lambda sync: system_metadata.create_all(sync, tables=[events]))

    async def commit(*ids: int) -> None:
        rows = [
            {
                "id": event_id,
                "event": "entry.create",
                "uid": "api::a.a",
                "entry_id": event_id,
                "locale": None,
                "payload": "{}",
                "created_at": datetime(2026, 1, 1),
                "dispatched": False,
            }
            for event_id in ids
        ]
        async with database.write() as conn:
            await conn.execute(insert(events), rows)

    try:
        feed = ChangeFeed(database)
        feed._highest = 0  # as a subscription made on the empty table sets it
        await commit(1, 3)  # 2 is taken but not committed yet
        assert [e.id for e in await feed._read()] == [1, 3]
        assert [e.id for e in await feed._read()] == []
        await commit(2)
        assert [e.id for e in await feed._read()] == [2]
        await commit(4)
        assert [e.id for e in await feed._read()] == [4]
    finally:
        await database.dispose()
