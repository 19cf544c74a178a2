"""``db/dialect.py``: the SQL each database's ``Dialect`` writes, and that no other module asks
which database it talks to."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    Double,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import asyncpg

from contentapi.db.dialect import Dialect, PostgreSQL, SQLite, dialect_named
from contentapi.db.types import json_type

SRC = Path(__file__).resolve().parents[2] / "src" / "contentapi"

#: Migrations are a frozen record: they do not import the application's code.
_NOT_YET = ("migrations/",)

_BRANCH = re.compile(
    r"""dialect(\.name)?\s*[!=]=|is_sqlite|is_postgres|get_backend_name\(\)\s*[!=]=|"""
    r"""[!=]=\s*["'](sqlite|postgresql)["']"""
)

_table = Table(
    "things",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("name", String(255)),
    Column("data", json_type()),
    Column("flag", Boolean),
)


def _sql(expression: object, dialect: Dialect) -> str:
    chosen = postgresql.dialect() if dialect.name == "postgresql" else sqlite.dialect()
    return str(select(expression).compile(dialect=chosen)).split("\n")[0]  # type: ignore[call-overload]


def test_each_database_has_its_dialect() -> None:
    assert isinstance(dialect_named("sqlite"), SQLite)
    assert isinstance(dialect_named("postgresql"), PostgreSQL)
    with pytest.raises(KeyError):
        dialect_named("mysql")


@pytest.mark.parametrize(
    ("build", "on_postgresql", "on_sqlite"),
    [
        (
            lambda d: d.matches(_table.c.name, "x", "anywhere"),
            "name LIKE __[",
            "instr(things.name,",
        ),
        (lambda d: d.matches(_table.c.name, "x", "start"), "name LIKE __[", "substr(things.name, "),
        (lambda d: d.matches(_table.c.name, "x", "end"), "name LIKE __[", "length(things.name)"),
        (lambda d: d.lower(_table.c.name), "lower(things.name)", "pg_lower(things.name)"),
        (lambda d: d.byte_order(_table.c.name), 'things.name COLLATE "C"', "SELECT things.name"),
        (lambda d: d.text_of(_table.c.id, "float"), "CAST(things.id AS VARCHAR)", "pg_text("),
        (lambda d: d.text_of(_table.c.id, "date"), "CAST(things.id AS VARCHAR)", "CAST(things.id"),
        (lambda d: d.json_text(_table.c.data), "CAST(things.data AS VARCHAR)", "jsonb_out("),
        (lambda d: d.json_sortable(_table.c.data), "SELECT things.data", "jsonb_key(things.data)"),
        (lambda d: d.json_value({"a": 1}), "AS JSONB)", "SELECT ?"),
        (lambda d: d.boolean_extreme(_table.c.flag, True), "bool_or(things.flag)", "max("),
        (lambda d: d.boolean_extreme(_table.c.flag, False), "bool_and(things.flag)", "min("),
        (lambda d: d.json_extreme(_table.c.data, False), "array_agg(things.data ORDER BY", "min("),
        (lambda d: d.extreme(_table.c.id, True), "max(things.id)", "max(things.id)"),
    ],
)
def test_expressions(build: Callable[[Dialect], Any], on_postgresql: str, on_sqlite: str) -> None:
    assert on_postgresql in _sql(build(dialect_named("postgresql")), dialect_named("postgresql"))
    assert on_sqlite in _sql(build(dialect_named("sqlite")), dialect_named("sqlite"))


@pytest.mark.parametrize(
    ("where", "pattern"),
    [
        ("start", r"'a\%b\_c\\d''e%'"),
        ("end", r"'%a\%b\_c\\d''e'"),
        ("anywhere", r"'%a\%b\_c\\d''e%'"),
    ],
)
def test_like_patterns_hold_the_value_literally_on_postgresql(where: str, pattern: str) -> None:
    """`%`, `_` and `\\` are escaped (PostgreSQL's default escape), a quote doubled; the pattern
    is written into the statement, so the planner estimates it (db/dialect.py)."""
    condition = PostgreSQL().matches(_table.c.name, "a%b_c\\d'e", where)  # type: ignore[arg-type]
    sql = str(
        select(_table.c.id)
        .where(condition)
        .compile(dialect=asyncpg.dialect(), compile_kwargs={"literal_binds": True})
    )
    assert sql.endswith(f"WHERE things.name LIKE {pattern}"), sql


_numbers = Table(
    "numbers",
    MetaData(),
    Column("count", Integer),
    Column("price", Numeric(10, 2, asdecimal=False)),
    Column("score", Double),
    Column("title", String(255)),
    Column("day", Date),
    Column("at", DateTime),
)


@pytest.mark.parametrize(
    ("column", "value", "written"),
    [
        ("count", 7, "7"),
        ("price", 4.5, "4.5"),
        ("price", Decimal("4.25"), "4.25"),
        ("score", 3, "3"),
        ("title", "it's", "'it''s'"),
    ],
)
def test_range_operands_are_written_into_the_statement_on_postgresql(
    column: str, value: Any, written: str
) -> None:
    """A number or string of a range filter is part of the statement's text on PostgreSQL, so
    a prepared statement never settles on a generic plan built for a third of the rows
    (``Dialect.range_operand``); the value's text is the column type's own literal."""
    target = _numbers.c[column]
    condition = target <= PostgreSQL().range_operand(target, value)
    compiled: Any = select(_numbers.c.count).where(condition).compile(dialect=asyncpg.dialect())
    assert compiled.literal_execute_params, compiled.string
    expanded = compiled.construct_expanded_state(compiled.construct_params(_check=False))
    assert expanded.statement.endswith(f"WHERE numbers.{column} <= {written}"), expanded.statement


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("day", date(2026, 11, 27)),
        ("at", datetime(2026, 11, 27, 12, 0)),
        ("score", float("inf")),
        ("score", float("nan")),
        ("price", Decimal("NaN")),
        ("count", "7"),
        ("title", 7),
    ],
)
def test_other_range_operands_stay_parameters(column: str, value: Any) -> None:
    """Dates, times, non-finite numbers and a value of another type than its column stay
    parameters on PostgreSQL; SQLite binds every value (it plans each statement anyway)."""
    target = _numbers.c[column]
    assert PostgreSQL().range_operand(target, value) is value
    assert SQLite().range_operand(target, 7) == 7


def test_decimals_are_compared_as_decimals_on_postgresql() -> None:
    """``$eq``/``$ne`` and ``$in``/``$notIn`` of a decimal column bind ``NUMERIC`` on
    PostgreSQL — a Python float would be typed ``FLOAT``, casting the column (no index serves
    it, and the comparison would be a float's); other columns and SQLite keep the value."""
    chosen, dialect = asyncpg.dialect(), PostgreSQL()
    price, score = _numbers.c.price, _numbers.c.score

    def sql(condition: Any) -> str:
        compiled = select(_numbers.c.count).where(condition).compile(dialect=chosen)
        return str(compiled.string)

    assert sql(price == dialect.comparand(price, 8.25)).endswith("numbers.price = $1::NUMERIC")
    assert sql(price == 8.25).endswith("numbers.price = $1::FLOAT")  # what it would be
    listed = sql(price.in_(dialect.comparands(price, [8.25, 1e30])))
    assert listed.endswith("numbers.price IN (__[POSTCOMPILE_param_1])"), listed
    assert dialect.comparands(price, [8.25, 1e30]).value == [Decimal("8.25"), Decimal("1e+30")]
    assert dialect.comparands(price, [8.25, None]) == [8.25, None]
    assert dialect.comparand(price, True) is True
    assert math.isnan(dialect.comparand(price, float("nan")))
    assert dialect.comparand(score, 8.25) == 8.25
    assert SQLite().comparand(price, 8.25) == 8.25
    assert SQLite().comparands(price, [8.25]) == [8.25]


def test_id_lists_are_one_array_parameter_on_postgresql() -> None:
    """One statement text whatever the number of ids (asyncpg reuses its prepared statement)."""
    for values in (None, [1, 2, 3]):
        chosen = postgresql.dialect()
        among = PostgreSQL().among(_table.c.id, values)
        sql = str(select(_table.c.id).where(among).compile(dialect=chosen))
        assert "things.id = ANY (%(" in sql and "::INTEGER[])" in sql, sql
    sql = str(select(_table.c.id).where(SQLite().among(_table.c.id, [1, 2])).compile())
    assert "things.id IN (__[POSTCOMPILE_id_1])" in sql


def test_upserts_are_each_databases_insert() -> None:
    assert type(dialect_named("postgresql").insert(_table)) is postgresql.Insert
    assert type(dialect_named("sqlite").insert(_table)) is sqlite.Insert


def test_capabilities() -> None:
    pg, lite = dialect_named("postgresql"), dialect_named("sqlite")
    assert (pg.has_arrays, pg.json_rows, pg.notifies, pg.reads_in_autocommit) == (True,) * 4
    assert (lite.has_arrays, lite.json_rows, lite.notifies, lite.reads_in_autocommit) == (
        False,
    ) * 4
    assert lite.local_file and not pg.local_file


def test_no_module_outside_the_seam_tests_which_database_it_is() -> None:
    """Everything that differs between SQLite and PostgreSQL is asked of the ``Dialect``."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative == "db/dialect.py" or relative.startswith(_NOT_YET):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if _BRANCH.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
