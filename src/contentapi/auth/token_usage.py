"""``last_used_at`` of API tokens, kept cheaply.

Strapi writes ``last_used_at`` on every request a token makes; here a worker stamps a token at
most once per ``interval`` (a minute), in a task of its own after the request has its caller, so
that a request never waits for the write and the hot read path runs no extra statement when no
stamp is due (a dictionary look-up). The stamp is best effort: a database that is busy or away
costs a log line, never a request. On PostgreSQL the write is marked quiet for the auth
tables' trigger (``db/notify.py``), so stamping a token does not empty every worker's caller
cache.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from datetime import UTC, datetime

from sqlalchemy import text

from contentapi.db.async_engine import AsyncEngine
from contentapi.db.engine import Database
from contentapi.db.notify import QUIET_SETTING
from contentapi.db.system import api_tokens

__all__ = ["TokenUsage"]

log = logging.getLogger("contentapi")

#: seconds a stamp may take before it is given up
TIMEOUT = 10.0


class TokenUsage:
    """Per worker: when each token was last stamped, and the stamps under way."""

    def __init__(self, database: Database, interval: float = 60.0) -> None:
        self.database = database
        self.interval = interval
        self._stamped: dict[int, float] = {}
        self._pending: set[asyncio.Task[None]] = set()
        #: where stamps are written (``_engine``)
        self._side_engine: AsyncEngine | None = None

    def used(self, token_id: int) -> None:
        """Token ``token_id`` made a request: stamp it unless this worker did recently."""
        now = time.monotonic()
        last = self._stamped.get(token_id)
        if last is not None and now - last < self.interval:
            return
        self._stamped[token_id] = now
        # A context of its own: the request's statement counter must not see the stamp.
        task = asyncio.get_running_loop().create_task(
            self._stamp(token_id), context=contextvars.Context()
        )
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def settle(self) -> None:
        """Wait for the stamps under way (shutdown, tests); each gives up after ``TIMEOUT``."""
        while self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    def _engine(self) -> AsyncEngine:
        """On PostgreSQL a connection of its own, opened per stamp (at most one a minute per
        token), so a stamp never grows the request pool; SQLite's connections are local files:
        the request engine serves (``Dialect.side_engine``)."""
        if self._side_engine is None:
            self._side_engine = self.database.dialect.side_engine(self.database.engine)
        return self._side_engine

    async def close(self) -> None:
        """Wait for the stamps under way, then close the stamps' own engine."""
        await self.settle()
        if self._side_engine is not None and self._side_engine is not self.database.engine:
            await self._side_engine.dispose()
        self._side_engine = None

    async def _stamp(self, token_id: int) -> None:
        try:
            # bounded: a database that stopped answering must not hold a stamp (or shutdown,
            # which waits for the stamps) forever
            await asyncio.wait_for(self._write(token_id), timeout=TIMEOUT)
        except Exception as error:  # best effort: the request was answered already
            log.warning("could not record the use of API token %d: %r", token_id, error)

    async def _write(self, token_id: int) -> None:
        now = datetime.now(UTC).replace(tzinfo=None)
        # Not ``Database.write()``: its after-write hooks forget the list totals, and a stamp
        # changes no content.
        dialect = self.database.dialect
        async with self._engine().connect() as conn:
            conn = await dialect.for_writing(conn)
            async with conn.begin():
                if dialect.notifies:  # not a change the caller caches need to hear of
                    await conn.execute(text(f"SET LOCAL {QUIET_SETTING} = 'on'"))
                await conn.execute(
                    api_tokens.update().where(api_tokens.c.id == token_id).values(last_used_at=now)
                )
