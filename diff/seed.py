"""Seeding a server through its public REST API, remembering which id each natural key got."""

from __future__ import annotations

from typing import Any

import httpx

from diff.dataset import Dataset, Ref

__all__ = ["Ids", "seed"]


class Ids:
    """kind → natural key → id on one server, and the way back."""

    def __init__(self) -> None:
        self.by_key: dict[str, dict[str, int]] = {}
        self.by_id: dict[str, dict[int, str]] = {}

    def add(self, kind: str, key: str, entry_id: int) -> None:
        self.by_key.setdefault(kind, {})[key] = entry_id
        self.by_id.setdefault(kind, {})[entry_id] = key

    def key(self, kind: str, entry_id: Any) -> str:
        return self.by_id.get(kind, {}).get(int(entry_id), f"?{entry_id}")


def _resolved(value: Any, ids: Ids) -> Any:
    """``value`` with every ``Ref`` inside replaced by the id its natural key got."""
    if isinstance(value, Ref):
        return ids.by_key[value.kind][value.key]
    if isinstance(value, dict):
        return {key: _resolved(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item, ids) for item in value]
    return value


async def seed(client: httpx.AsyncClient, data: Dataset) -> Ids:
    ids = Ids()
    for name, content in data.files.items():
        response = await client.post("/api/upload", files={"files": (name, content, "image/png")})
        if response.status_code not in (200, 201):
            raise RuntimeError(f"uploading {name}: {response.status_code} {response.text[:300]}")
        ids.add("files", name, int(response.json()[0]["id"]))
    for step in data.steps:
        body = _resolved(dict(step.data), ids)
        for name, (kind, keys) in step.refs.items():
            if isinstance(keys, list):
                body[name] = [ids.by_key[kind][key] for key in keys]
            else:
                body[name] = ids.by_key[kind][keys]
        if step.localize is not None:
            source = ids.by_key["articles"][step.localize]
            response = await client.post(
                f"/api/articles/{source}/localizations", json={**body, "locale": step.locale}
            )
            created = response.json()
        elif step.update:
            entry_id = ids.by_key[step.kind][step.key]
            response = await client.put(f"/api/{step.kind}/{entry_id}", json={"data": body})
            created = None
        else:
            response = await client.post(f"/api/{step.kind}", json={"data": body})
            created = response.json().get("data")
        if response.status_code != 200:
            raise RuntimeError(
                f"seeding {step.kind} {step.key}: {response.status_code} {response.text[:400]}"
            )
        if created is not None:
            ids.add(step.kind, step.key, int(created["id"]))
    return ids
