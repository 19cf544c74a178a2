"""Which replica a read may go to, and the lag it is judged by (``db/replicas.py``), without a
database: WAL positions as text and numbers (``db/lsn.py``), the choice among replicas, and
the settings that configure them."""

from __future__ import annotations

import math
from typing import Any, cast

import pytest
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError

from contentapi.config import Settings
from contentapi.db.lsn import format_lsn, parse_lsn
from contentapi.db.replicas import Replica, ReplicaMissed, ReplicaSet
from contentapi.errors import NotFoundError


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("0/0", 0),
        ("0/3000148", 0x3000148),
        ("16/B374D848", 0x16_B374D848),
        ("FFFFFFFF/FFFFFFFF", 2**64 - 1),
        (" 0/1 ", 1),
    ],
)
def test_lsn_text_reads_as_its_byte_position(text: str, position: int) -> None:
    assert parse_lsn(text) == position
    assert parse_lsn(format_lsn(position)) == position


@pytest.mark.parametrize("text", ["", "0", "0/", "/1", "G/1", "1/2/3", "123456789/0", "0/-1"])
def test_a_malformed_lsn_is_none(text: str) -> None:
    assert parse_lsn(text) is None


def _replica(name: str, replayed: int, *, usable: bool = True) -> Replica:
    engine = cast(Any, None)
    return Replica(name, engine, engine, engine, replayed=replayed, usable=usable)


def _set(*replicas: Replica, max_lag: float = 5) -> ReplicaSet:
    return ReplicaSet(replicas, cast(Any, None), max_lag=max_lag)


def test_reads_without_a_token_take_the_usable_replicas_in_turn() -> None:
    first, down, second = _replica("a", 10), _replica("b", 10, usable=False), _replica("c", 10)
    replicas = _set(first, down, second)
    picked = [replicas.pick(0) for _ in range(4)]
    assert {choice[0].name for choice in picked if choice} == {"a", "c"}
    assert all(choice is not None and choice[1] is False for choice in picked)


def test_a_token_goes_to_a_replica_known_past_it_without_a_check() -> None:
    replicas = _set(_replica("behind", 5), _replica("past", 20))
    assert [replicas.pick(15) for _ in range(2)] == [(replicas.replicas[1], False)] * 2


def test_a_token_beyond_every_replica_checks_the_furthest() -> None:
    replicas = _set(_replica("a", 5), _replica("b", 8), _replica("c", 50, usable=False))
    assert replicas.pick(10) == (replicas.replicas[1], True)


def test_no_usable_replica_means_the_primary() -> None:
    assert _set(_replica("a", 50, usable=False)).pick(0) is None


def test_lag_is_how_long_ago_the_primary_was_where_the_replica_is() -> None:
    replicas = _set(_replica("a", 0), max_lag=5)
    assert replicas.lag(100) == math.inf  # nothing seen of the primary yet
    for seen, position in [(1.0, 100), (2.0, 100), (3.0, 300), (4.0, 400)]:
        replicas._note_primary(seen, position)
    assert replicas.lag(400) == 0  # current, however long the primary has been idle
    assert replicas.lag(500) == 0
    assert replicas.lag(300) == 1.0
    assert replicas.lag(299) == 2.0  # the primary was at 100 until 2.0
    assert replicas.lag(99) == math.inf


def test_the_primary_positions_kept_cover_the_max_lag() -> None:
    replicas = _set(_replica("a", 0), max_lag=1)
    for tick in range(100):
        replicas._note_primary(tick * 0.1, tick)
    kept = [seen for seen, _ in replicas._positions]
    assert kept[-1] - kept[0] <= 1.2 + 1e-9 and kept[-1] - kept[0] >= 1


_PG = "postgresql+asyncpg://u@db:5432/content"


def test_replica_urls_are_a_comma_separated_list_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", _PG)
    monkeypatch.setenv(
        "CONTENTAPI_DATABASE_REPLICA_URLS", "postgres://u@r1/content, postgresql://u@r2/content"
    )
    assert Settings().database_replica_urls == [
        "postgresql+asyncpg://u@r1/content",
        "postgresql+asyncpg://u@r2/content",
    ]


def test_replica_urls_are_a_list_in_the_toml_file() -> None:
    settings = Settings(database_url=_PG, database_replica_urls=["postgresql://u@r1/content"])
    assert settings.database_replica_urls == ["postgresql+asyncpg://u@r1/content"]
    assert Settings(database_url=_PG).database_replica_urls == []


def test_replicas_of_a_sqlite_database_are_refused() -> None:
    with pytest.raises(ValidationError, match="needs a PostgreSQL CONTENTAPI_DATABASE_URL"):
        Settings(
            database_url="sqlite+aiosqlite:///x.db",
            database_replica_urls=["postgresql://u@r1/content"],
        )


def test_a_replica_url_must_be_postgresql() -> None:
    with pytest.raises(ValidationError, match="postgresql:// URLs only"):
        Settings(database_url=_PG, database_replica_urls=["sqlite:///x.db"])


class _FakeEngine:
    """``connect()`` hands out a stand-in connection that answers ``pg_last_wal_replay_lsn()``
    with ``replayed`` (and counts the statements)."""

    def __init__(self, replayed: int = 0) -> None:
        self.replayed = replayed
        self.statements = 0

    def connect(self) -> Any:
        engine = self

        class _Connection:
            async def __aenter__(self) -> Any:
                return engine

            async def __aexit__(self, *exc: object) -> None:
                return None

        return _Connection()

    async def exec_driver_sql(self, statement: str) -> Any:
        self.statements += 1
        replayed = format_lsn(self.replayed)

        class _Result:
            def scalar(self) -> str:
                return replayed

        return _Result()


def _served_by(replica: Replica, replayed: int = 0) -> ReplicaSet:
    replica.autocommit = cast(Any, _FakeEngine(replayed))
    return _set(replica)


async def _answer(conn: Any) -> str:
    return "from the replica"


async def test_a_token_past_the_known_position_is_checked_on_the_replica_itself() -> None:
    replica = _replica("a", 10)
    replicas = _served_by(replica, replayed=30)
    assert await replicas.read(replica, True, 25, _answer) == "from the replica"
    assert replica.replayed == 30  # what the check saw is kept for the next picks


async def test_a_replica_still_behind_the_token_is_a_miss() -> None:
    replica = _replica("a", 10)
    replicas = _served_by(replica, replayed=20)
    with pytest.raises(ReplicaMissed):
        await replicas.read(replica, True, 25, _answer)
    assert replica.usable  # behind is not down


async def test_a_known_position_past_the_token_costs_no_check() -> None:
    replica = _replica("a", 30)
    replicas = _served_by(replica, replayed=30)
    assert await replicas.read(replica, False, 25, _answer) == "from the replica"
    assert cast(Any, replica.autocommit).statements == 0


async def test_a_replica_failing_midway_is_a_miss_and_rests() -> None:
    replica = _replica("a", 10)
    replicas = _served_by(replica)

    async def dropped(conn: Any) -> None:
        raise ConnectionResetError("the replica went away")

    with pytest.raises(ReplicaMissed):
        await replicas.read(replica, False, 0, dropped)
    assert not replica.usable and replica.resting_until > 0


async def test_a_statement_cancelled_on_the_replica_is_a_miss_that_keeps_it() -> None:
    replica = _replica("a", 10)
    replicas = _served_by(replica)

    async def conflict(conn: Any) -> None:
        cause = Exception("canceling statement due to conflict with recovery")
        cause.sqlstate = "40001"  # type: ignore[attr-defined]
        raise DBAPIError("SELECT 1", {}, cause)

    with pytest.raises(ReplicaMissed):
        await replicas.read(replica, False, 0, conflict)
    assert replica.usable


async def test_the_reads_own_errors_pass_through() -> None:
    replica = _replica("a", 10)
    replicas = _served_by(replica)

    async def missing(conn: Any) -> None:
        raise NotFoundError()

    with pytest.raises(NotFoundError):
        await replicas.read(replica, False, 0, missing)
    assert replica.usable
