"""Empty a shared app's tables between tests, touching only what the last test changed.

Every API test starts from a fresh start-up's state: every content table empty, every id
sequence restarted, and the default roles (``authenticated``, ``public``) with their
permissions in place. Emptying and restarting everything before each test cost 65 ms on
PostgreSQL (a DELETE per table and an ``ALTER SEQUENCE`` per sequence, each taking locks and
writing WAL) and 12 ms on SQLite — most tests write to two or three tables, and many to none.

So one statement first reads the state (which tables hold rows, which sequences have moved),
and only those are emptied and restarted. The tables a fresh start-up fills (the default roles,
their permissions and the links between them) are compared with their rows right after the
first reset; they are emptied and filled again only when a test changed them. The end state is
the same as emptying everything: it is read from the database, not from what a test was seen
doing, so writes through any connection are caught.

On PostgreSQL the change listener may still be on its way through the notifications of the
last test's writes (a hundred inserts send a hundred); heard during the next test, they would
empty caches in the middle of it. So the reset ends with a marker notification on every
channel it listens to and waits until the listener hands it over: whatever was sent before has
been heard.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.auth.permissions import ensure_default_roles
from contentapi.db.engine import Database
from contentapi.db.notify import AUTH_CHANNEL, CONTENT_CHANNEL, ChangeListener
from contentapi.db.system import events, webhook_deliveries, webhooks
from contentapi.runtime import Runtime

__all__ = ["heard_everything", "reset_tables"]


@dataclass
class _Baseline:
    """The rows and sequence positions of the tables a fresh start-up fills."""

    tables: tuple[str, ...]
    rows: dict[str, list[Row[tuple[object, ...]]]] = field(default_factory=dict)
    sequences: dict[str, object] = field(default_factory=dict)


@dataclass
class _Plan:
    """The tables of one app (dependency order) and, on PostgreSQL, their id sequences."""

    tables: list[str]
    sequence_of_table: dict[str, str]
    baseline: _Baseline | None = None

    def table_of(self, sequence: str, postgres: bool) -> str | None:
        """The table a sequence numbers (on SQLite a sequence is named after its table)."""
        if not postgres:
            return sequence
        return next((t for t, s in self.sequence_of_table.items() if s == sequence), None)


#: one plan per app's database, gone with it
_plans: weakref.WeakKeyDictionary[Database, _Plan] = weakref.WeakKeyDictionary()


async def reset_tables(runtime: Runtime) -> None:
    """Bring ``runtime``'s database back to a fresh start-up's state (see the module's note)."""
    plan = _plans.get(runtime.database)
    async with runtime.database.write() as conn:
        postgres = runtime.database.dialect.name != "sqlite"
        if plan is None:
            # the change feed and the webhooks too (``db/system.py``): the writes fill them
            feed = [events.name, webhook_deliveries.name, webhooks.name]
            tables = feed + [t.name for t in runtime.tables.metadata.sorted_tables]
            sequences = await _owned_sequences(conn, tables) if postgres else {}
            plan = _Plan(tables, sequences)
            _plans[runtime.database] = plan
        filled, moved = await _state(conn, plan, postgres)
        baseline = plan.baseline
        keep: set[str] = set()
        if baseline is not None and await _unchanged(conn, baseline, moved):
            keep = set(baseline.tables)
        emptied = [name for name in reversed(plan.tables) if name in filled and name not in keep]
        restarted = [seq for seq in moved if plan.table_of(seq, postgres) not in keep]
        if emptied or restarted:
            await _empty(conn, emptied, restarted, postgres)
        if baseline is None or not keep:
            await ensure_default_roles(conn, runtime.tables)  # as a fresh start-up leaves them
            plan.baseline = await _snapshot(conn, plan, postgres)
    await heard_everything(runtime)


async def heard_everything(runtime: Runtime) -> None:
    """On PostgreSQL, wait until the change listener has handed over every notification sent
    before (the module's text): a test's own writes can no longer empty a cache after this."""
    if runtime.change_listener is not None and runtime.change_listener.live:
        await _heard_everything(runtime.database, runtime.change_listener)


async def _heard_everything(database: Database, listener: ChangeListener) -> None:
    marker = f"~reset-{uuid.uuid4().hex}"
    channels = (CONTENT_CHANNEL, AUTH_CHANNEL)
    heard = {channel: asyncio.Event() for channel in channels}

    def hear(channel: str):
        def callback(payload: str) -> None:
            if payload == marker:
                heard[channel].set()

        return callback

    callbacks = {channel: hear(channel) for channel in channels}
    for channel, callback in callbacks.items():
        listener.subscribe(channel, callback)
    try:
        async with database.write() as conn:
            for channel in channels:
                await conn.execute(
                    text("SELECT pg_notify(:channel, :marker)"),
                    {"channel": channel, "marker": marker},
                )
        async with asyncio.timeout(10):
            for event in heard.values():
                await event.wait()
    finally:
        for channel, callback in callbacks.items():
            listener.unsubscribe(channel, callback)


async def _owned_sequences(conn: AsyncConnection, tables: list[str]) -> dict[str, str]:
    """``{table: sequence}`` for the identity/serial sequences of ``tables``."""
    names = ", ".join(f"'{name}'" for name in tables)
    rows = await conn.execute(
        text(
            "SELECT t.relname, s.relname FROM pg_class s "
            "JOIN pg_depend d ON d.objid = s.oid AND d.deptype IN ('a', 'i') "
            "JOIN pg_class t ON t.oid = d.refobjid "
            f"WHERE s.relkind = 'S' AND t.relname IN ({names})"
        )
    )
    return {table: sequence for table, sequence in rows}


async def _state(
    conn: AsyncConnection, plan: _Plan, postgres: bool
) -> tuple[set[str], dict[str, object]]:
    """In one statement: the tables holding rows and ``{sequence: position}`` of moved ones.

    On SQLite a sequence is a row of ``sqlite_sequence`` named after its table.
    """
    null = "NULL::bigint" if postgres else "NULL"  # PostgreSQL types a UNION's columns
    probes = [
        f"SELECT '{name}', {null} WHERE EXISTS (SELECT 1 FROM \"{name}\")" for name in plan.tables
    ]
    if postgres:
        probes += [
            f"SELECT '~{seq}', last_value FROM \"{seq}\" WHERE is_called"
            for seq in plan.sequence_of_table.values()
        ]
    filled: set[str] = set()
    moved: dict[str, object] = {}
    for name, position in await conn.execute(text(" UNION ALL ".join(probes))):
        if name.startswith("~"):
            moved[name[1:]] = position
        else:
            filled.add(name)
    if not postgres and await _has_sqlite_sequence(conn):
        for name, position in await conn.execute(text("SELECT name, seq FROM sqlite_sequence")):
            moved[name] = position
    return filled, moved


async def _has_sqlite_sequence(conn: AsyncConnection) -> bool:
    found = await conn.execute(text("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'"))
    return found.first() is not None


async def _unchanged(conn: AsyncConnection, baseline: _Baseline, moved: dict[str, object]) -> bool:
    """Whether the start-up-filled tables hold exactly their rows and sequence positions."""
    for name, position in baseline.sequences.items():
        if moved.get(name) != position:
            return False
    for name in baseline.tables:
        rows = list(await conn.execute(text(f'SELECT * FROM "{name}" ORDER BY 1')))
        if rows != baseline.rows[name]:
            return False
    return True


async def _empty(
    conn: AsyncConnection, tables: list[str], sequences: list[str], postgres: bool
) -> None:
    if postgres:
        # one DO block, one round trip: DELETE on small tables is far cheaper than TRUNCATE
        deletes = " ".join(f'DELETE FROM "{name}";' for name in tables)
        restarts = " ".join(f'ALTER SEQUENCE "{seq}" RESTART;' for seq in sequences)
        await conn.execute(text(f"DO $$ BEGIN {deletes} {restarts} END $$"))
        return
    for name in tables:
        await conn.execute(text(f'DELETE FROM "{name}"'))
    if sequences:
        names = ", ".join(f"'{name}'" for name in sequences)
        await conn.execute(text(f"DELETE FROM sqlite_sequence WHERE name IN ({names})"))


async def _snapshot(conn: AsyncConnection, plan: _Plan, postgres: bool) -> _Baseline:
    filled, moved = await _state(conn, plan, postgres)
    tables = tuple(name for name in plan.tables if name in filled)
    baseline = _Baseline(tables)
    for name in tables:
        baseline.rows[name] = list(await conn.execute(text(f'SELECT * FROM "{name}" ORDER BY 1')))
    owned = {plan.sequence_of_table.get(name, name) if postgres else name for name in tables}
    baseline.sequences = {seq: moved.get(seq) for seq in owned}
    return baseline
