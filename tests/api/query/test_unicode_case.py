"""Case-insensitive operators fold Unicode as PostgreSQL's ``lower()`` does, on both databases.

The reference Strapi 4.25 (PostgreSQL, UTF-8) found "Éditions" with ``$containsi=é`` and
``=ÉDITIONS``, "Straße" with ``=STRAßE`` and ``=straẞe`` but not ``=STRASSE``, "ΣΙΓΜΑ" with
``=σιγμα`` but not ``=σιγμας``; ``$eqi``, ``$nei``, ``$startsWithi``, ``$endsWithi`` and
``$notContainsi`` likewise. SQLite's own ``lower()`` folds ASCII only.
"""

from __future__ import annotations

import pytest

NAMES = ["Éditions", "Straße", "ΟΔΟΣ ΣΙΓΜΑ", "İstanbul", "plain"]

CASES = [
    ("$containsi", "é", ["Éditions"]),
    ("$containsi", "ÉDITIONS", ["Éditions"]),
    ("$containsi", "STRASSE", []),
    ("$containsi", "STRAßE", ["Straße"]),
    ("$containsi", "straẞe", ["Straße"]),
    ("$containsi", "σιγμα", ["ΟΔΟΣ ΣΙΓΜΑ"]),
    ("$containsi", "ΟΔΟΣ", ["ΟΔΟΣ ΣΙΓΜΑ"]),  # small sigma, never the final form, on both sides
    ("$containsi", "οδος", []),
    ("$containsi", "ISTANBUL", ["İstanbul"]),
    ("$contains", "é", []),
    ("$eqi", "ÉDITIONS", ["Éditions"]),
    ("$eqi", "οδοσ σιγμα", ["ΟΔΟΣ ΣΙΓΜΑ"]),
    ("$nei", "éditions", ["Straße", "ΟΔΟΣ ΣΙΓΜΑ", "İstanbul", "plain"]),
    ("$notContainsi", "É", ["Straße", "ΟΔΟΣ ΣΙΓΜΑ", "İstanbul", "plain"]),
    ("$startsWithi", "éD", ["Éditions"]),
    ("$startsWithi", "İS", ["İstanbul"]),
    ("$endsWithi", "ẞE", ["Straße"]),
    ("$endsWithi", "ΣΙΓΜΑ", ["ΟΔΟΣ ΣΙΓΜΑ"]),
]


@pytest.mark.parametrize(
    ("operator", "value", "expected"), CASES, ids=[f"{c[0]}={c[1]}" for c in CASES]
)
async def test_case_insensitive_operators_fold_unicode_like_postgresql(
    client, admin, operator, value, expected
):
    for index, name in enumerate(NAMES):
        created = await client.post(
            "/api/categories", json={"data": {"name": name, "slug": f"c{index}"}}, headers=admin
        )
        assert created.status_code == 200, created.json()
    response = await client.get(
        "/api/categories", params={f"filters[name][{operator}]": value, "sort": "id"}, headers=admin
    )
    assert response.status_code == 200, response.json()
    assert [e["attributes"]["name"] for e in response.json()["data"]] == expected
