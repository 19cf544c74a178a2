"""A level of components read in one statement on PostgreSQL (``to_jsonb`` of each component
row, query/populate/batched.py ``_components_together``): every attribute type comes back exactly as
the per-type statements read it — floats as large as 1e300, decimals, 2**53 + 1 as a
biginteger, times and timestamps with milliseconds, dates, JSON with nulls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

EVERY_TYPE = {
    "collectionName": "components_parts_every",
    "info": {"displayName": "Every"},
    "attributes": {
        "label": {"type": "string"},
        "note": {"type": "text"},
        "body": {"type": "richtext"},
        "mail": {"type": "email"},
        "size": {"type": "enumeration", "enum": ["small", "large"]},
        "count": {"type": "integer"},
        "big": {"type": "biginteger"},
        "ratio": {"type": "float"},
        "price": {"type": "decimal"},
        "on": {"type": "boolean"},
        "day": {"type": "date"},
        "at": {"type": "time"},
        "when": {"type": "datetime"},
        "stamp": {"type": "timestamp"},
        "extra": {"type": "json"},
    },
}
SMALL = {
    "collectionName": "components_parts_smalls",
    "info": {"displayName": "Small"},
    "attributes": {"weight": {"type": "float"}, "day": {"type": "date"}},
}
GADGET = {
    "kind": "collectionType",
    "collectionName": "gadgets",
    "info": {"singularName": "gadget", "pluralName": "gadgets", "displayName": "Gadget"},
    "options": {"draftAndPublish": False},
    "attributes": {
        "name": {"type": "string"},
        "main": {"type": "component", "repeatable": False, "component": "parts.every"},
        "spares": {"type": "component", "repeatable": True, "component": "parts.every"},
        "zone": {"type": "dynamiczone", "components": ["parts.every", "parts.small"]},
    },
}

ROW = {
    "label": "Ünïcode ✓",
    "note": "line\nbreak",
    "body": "# rich",
    "mail": "a@example.com",
    "size": "large",
    "count": -7,
    "big": "9007199254740993",
    "ratio": 1e300,
    "price": 12345678.99,
    "on": False,
    "day": "2026-02-28",
    "at": "09:30:15.250",
    "when": "2026-11-24T09:30:15.123Z",
    "stamp": "1999-12-31T23:59:59.000Z",
    "extra": {"list": [1, 2.5, None, "x"], "nothing": None, "deep": {"a": True}},
}
OTHER = {**ROW, "ratio": 0.1, "price": 0.5, "at": "00:00:00.000", "extra": None, "count": None}


def _write(folder: Path) -> None:
    (folder / "components" / "parts").mkdir(parents=True)
    (folder / "components" / "parts" / "every.json").write_text(json.dumps(EVERY_TYPE))
    (folder / "components" / "parts" / "small.json").write_text(json.dumps(SMALL))
    (folder / "gadget.json").write_text(json.dumps(GADGET))


async def _answers(client: Any, admin: dict[str, str]) -> list[Any]:
    answers = []
    for query in (
        "/api/gadgets?populate=*",
        "/api/gadgets/1?populate=*",
        "/api/gadgets?populate[zone][on][parts.small]=true&populate[main]=true",
        "/api/gadgets?populate[spares][fields][0]=ratio&populate[spares][fields][1]=at",
    ):
        response = await client.get(query, headers=admin)
        assert response.status_code == 200, response.text
        answers.append(response.json())
    return answers


async def test_components_read_together_answer_as_the_per_type_statements(
    start_app, tmp_path: Path, admin, backend, monkeypatch
):
    if backend != "postgres":
        pytest.skip("one statement per components level on PostgreSQL only")
    _write(tmp_path)
    handle = await start_app(tmp_path)
    created = await handle.client.post(
        "/api/gadgets",
        json={
            "data": {
                "name": "g",
                "main": ROW,
                "spares": [OTHER, ROW],
                "zone": [
                    {"__component": "parts.small", "weight": 2.5, "day": "2000-01-01"},
                    {"__component": "parts.every", **OTHER},
                ],
            }
        },
        headers=admin,
    )
    assert created.status_code == 200, created.text
    await handle.client.post("/api/gadgets", json={"data": {"name": "empty"}}, headers=admin)
    populator = handle.runtime.entries.populator

    together = await _answers(handle.client, admin)
    monkeypatch.setattr(populator, "_components_together", lambda model, nodes: None)
    one_by_one = await _answers(handle.client, admin)

    assert together == one_by_one
    main = together[1]["data"]["attributes"]["main"]
    assert main["ratio"] == 1e300 and isinstance(main["ratio"], float)
    assert main["price"] == 12345678.99 and main["big"] == "9007199254740993"
    assert main["when"] == "2026-11-24T09:30:15.123Z"
    assert main["extra"] == ROW["extra"]
    assert [item["__component"] for item in together[1]["data"]["attributes"]["zone"]] == [
        "parts.small",
        "parts.every",
    ]
