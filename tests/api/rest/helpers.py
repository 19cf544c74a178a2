"""Shared helpers of the REST write tests: creating entries, reading back nested state."""

from __future__ import annotations

import itertools
from typing import Any

_counter = itertools.count(1)

UIDS = {
    "articles": "api::article.article",
    "authors": "api::author.author",
    "categories": "api::category.category",
    "profiles": "api::profile.profile",
    "ships": "api::ship.ship",
    "people": "api::person.person",
    "docks": "api::dock.dock",
}


def minimal(plural: str) -> dict[str, Any]:
    """The smallest valid body of each content type (unique values where needed)."""
    n = next(_counter)
    return {
        "articles": {"title": f"Article {n}"},
        "authors": {"name": f"Author {n}", "email": f"author{n}@example.com"},
        "categories": {"name": f"Category {n}", "slug": f"category-{n}"},
        "profiles": {"headline": f"Profile {n}"},
        "ships": {"name": f"Ship {n}"},
        "people": {"name": f"Person {n}"},
        "docks": {"name": f"Dock {n}"},
    }[plural]


async def create(client, admin, plural: str, **data: Any) -> int:
    response = await client.post(
        f"/api/{plural}", json={"data": {**minimal(plural), **data}}, headers=admin
    )
    assert response.status_code == 200, response.text
    return int(response.json()["data"]["id"])


async def create_many(client, admin, plural: str, count: int) -> list[int]:
    return [await create(client, admin, plural) for _ in range(count)]


async def nested(app, plural: str, entry_id: int) -> dict[str, Any]:
    return await app.runtime.entries.nested_state(UIDS[plural], entry_id)
