"""Writing a corpus data set (``diff/corpus_data.py``) to a server through its public REST
API — the reference Strapi or contentapi — and remembering which id each key got.

A write that fails is recorded and the seeding goes on (what depends on it is left out): a
server that cannot take part of a project still answers the rest of its requests.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

import httpx

from diff.corpus_data import Entry, Plan
from diff.corpus_models import USER, Project

__all__ = ["Seeded", "grant_public_reads", "seed_project"]


@dataclass
class Seeded:
    #: uid (``files`` for uploads) → key → id on this server
    ids: dict[str, dict[str, int]] = field(default_factory=dict)
    #: one line per failed write
    failures: list[str] = field(default_factory=list)

    def key(self, uid: str, entry_id: Any) -> str:
        for key, value in self.ids.get(uid, {}).items():
            if str(value) == str(entry_id):
                return key
        return f"?{entry_id}"

    def id_of(self, key: str) -> int | None:
        uid = key.split("#")[0] if "#" in key else "files"
        return self.ids.get(uid, {}).get(key)


def _files(value: Any, seeded: Seeded) -> Any:
    """``{"$file": name}`` → the file's id on this server (None when its upload failed)."""
    if isinstance(value, dict):
        if set(value) == {"$file"}:
            return seeded.ids.get("files", {}).get(value["$file"])
        return {k: _files(v, seeded) for k, v in value.items()}
    if isinstance(value, list):
        files = any(isinstance(item, dict) and set(item) == {"$file"} for item in value)
        items = [_files(item, seeded) for item in value]
        return [v for v in items if v is not None] if files else items
    return value


def _with_relations(entry: Entry, body: dict[str, Any], seeded: Seeded) -> dict[str, Any]:
    for path, _target, keys, many in entry.relations:
        ids = [i for i in (seeded.id_of(k) for k in keys) if i is not None]
        node: Any = body
        for part in path[:-1]:
            node = node[part] if isinstance(node, list) else node.get(part)
            if node is None:
                break
        if isinstance(node, dict):
            node[path[-1]] = ids if many else (ids[0] if ids else None)
    return body


async def _write(
    client: httpx.AsyncClient, method: str, url: str, body: Any, what: str, seeded: Seeded
) -> Any:
    response = await client.request(method, url, json=body)
    if response.status_code >= 300:
        seeded.failures.append(
            f"{what}: {method} {url} → {response.status_code} {response.text[:300]}"
        )
        return None
    payload = response.json()
    if isinstance(payload, dict) and isinstance(payload.get("data"), dict):
        return payload["data"].get("id")
    return payload.get("id") if isinstance(payload, dict) else None


async def seed_project(client: httpx.AsyncClient, project: Project, plan: Plan) -> Seeded:
    seeded = Seeded()
    for name, (content, mime) in plan.files.items():
        response = await client.post("/api/upload", files={"files": (name, content, mime)})
        if response.status_code >= 300:
            seeded.failures.append(f"upload {name} → {response.status_code} {response.text[:300]}")
            continue
        seeded.ids.setdefault("files", {})[name] = int(response.json()[0]["id"])
    roles = (await client.get("/api/users-permissions/roles")).json().get("roles") or []
    role = next((r["id"] for r in roles if r.get("type") == "authenticated"), None)
    for entry in plan.entries:  # pass 1: everything but relations
        model = project.types[entry.uid]
        body = _files(deepcopy(entry.data), seeded)
        if entry.uid == USER:
            body["role"] = role
            made = await _write(client, "POST", "/api/users", body, entry.key, seeded)
        elif entry.locale is not None:
            source = seeded.id_of(entry.of or "")
            url = (
                f"{model.path}/{source}/localizations"
                if model.kind == "collectionType"
                else f"{model.path}/localizations"
            )
            if model.kind == "collectionType" and source is None:
                seeded.failures.append(f"{entry.key}: its source entry is missing")
                continue
            made = await _write(
                client, "POST", url, {**body, "locale": entry.locale}, entry.key, seeded
            )
        elif model.kind == "collectionType":
            made = await _write(client, "POST", model.path, {"data": body}, entry.key, seeded)
        else:
            made = await _write(client, "PUT", model.path, {"data": body}, entry.key, seeded)
        if made is not None:
            seeded.ids.setdefault(entry.uid, {})[entry.key] = int(made)
    for entry in plan.entries:  # pass 2: the same again with the relations
        entry_id = seeded.id_of(entry.key)
        if not entry.relations or entry_id is None:
            continue
        model = project.types[entry.uid]
        body = _with_relations(entry, _files(deepcopy(entry.data), seeded), seeded)
        body.pop("publishedAt", None)
        if entry.uid == USER:
            body.pop("password", None)
            await _write(client, "PUT", f"/api/users/{entry_id}", body, entry.key, seeded)
        elif model.kind == "collectionType":
            await _write(
                client, "PUT", f"{model.path}/{entry_id}", {"data": body}, entry.key, seeded
            )
        else:
            suffix = f"?locale={entry.locale}" if entry.locale else ""
            await _write(client, "PUT", f"{model.path}{suffix}", {"data": body}, entry.key, seeded)
    return seeded


async def grant_public_reads(client: httpx.AsyncClient, project: Project, seeded: Seeded) -> None:
    """The public role may ``find`` and ``findOne`` every content type of the project, as each
    project's setup has it for its front end (which sends no token)."""
    roles = (await client.get("/api/users-permissions/roles")).json().get("roles") or []
    public = next((r for r in roles if r.get("type") == "public"), None)
    if public is None:
        seeded.failures.append("public role: not found")
        return
    permissions: dict[str, Any] = {}
    for uid, item in project.types.items():
        if not uid.startswith("api::"):
            continue
        api, name = uid.removeprefix("api::").split(".")
        actions = ("find", "findOne") if item.kind == "collectionType" else ("find",)
        controllers = permissions.setdefault(f"api::{api}", {"controllers": {}})["controllers"]
        controllers[name] = {action: {"enabled": True, "policy": ""} for action in actions}
    body = {
        "name": public["name"],
        "description": public["description"],
        "permissions": permissions,
    }
    await _write(
        client, "PUT", f"/api/users-permissions/roles/{public['id']}", body, "public role", seeded
    )
