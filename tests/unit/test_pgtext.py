"""``db/pgtext.py`` against what PostgreSQL 15 printed for the same values (``SELECT v::text``)."""

from __future__ import annotations

import pytest

from contentapi.db.pgtext import pg_float_text, pg_text

FLOATS = [
    (0.0, "0"),
    (-0.0, "-0"),
    (4.5, "4.5"),
    (100.0, "100"),
    (-123.456, "-123.456"),
    (0.1 + 0.2, "0.30000000000000004"),
    (1e14, "100000000000000"),
    (999999999999999.9, "999999999999999.9"),
    (1e15, "1e+15"),
    (123456789012345678.0, "1.2345678901234568e+17"),
    (1e22, "1e+22"),
    (0.00012, "0.00012"),
    (2.5e-5, "2.5e-05"),
    (1.5e-7, "1.5e-07"),
    (1.5e-300, "1.5e-300"),
    (float("inf"), "Infinity"),
]


@pytest.mark.parametrize(("value", "text"), FLOATS, ids=[t for _, t in FLOATS])
def test_floats_print_as_float8out(value, text):
    assert pg_float_text(value) == text


@pytest.mark.parametrize(
    ("kind", "stored", "text"),
    [
        ("decimal", 10, "10.00"),
        ("decimal", 8.25, "8.25"),
        ("decimal", -0.5, "-0.50"),
        ("decimal", "7.1", "7.10"),
        ("float", 3, "3"),
        ("time", "10:20:30.500000", "10:20:30.5"),
        ("time", "10:20:30.000000", "10:20:30"),
        ("datetime", "2024-01-10 04:00:00.120000", "2024-01-10 04:00:00.12"),
        ("timestamp", "2024-01-10 04:00:00.000000", "2024-01-10 04:00:00"),
        ("date", "2024-01-10", "2024-01-10"),
        ("float", None, None),
    ],
)
def test_sqlite_values_print_as_postgresql(kind, stored, text):
    assert pg_text(kind, stored) == text
