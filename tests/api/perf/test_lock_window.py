"""What a PUT does while it holds its entry's row lock.

Concurrent writers of one entry queue on that lock, so the statements run between taking it
(the ``UPDATE … RETURNING``) and ``COMMIT`` bound how many writes of one entry a second the
server takes. Only the entry's link rows and the writes themselves belong there: the relation
targets are checked before (on PostgreSQL by the ``UPDATE`` itself, a round trip fewer), and
the answer comes back with the ``UPDATE``.
"""

from __future__ import annotations

import asyncio
import contextvars

from tests.conftest import ADMIN_TOKEN

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def _seed(app) -> None:
    entries = app.runtime.entries
    await entries.create("api::author.author", {"name": "Ann", "email": "a@x.io"})
    for number in (1, 2):
        await entries.create("api::category.category", {"name": f"c{number}", "slug": f"c{number}"})
    await entries.create("api::article.article", {"title": "Tea", "categories": [1]})


async def test_only_link_rows_and_writes_run_under_the_row_lock(app, statements, backend):
    await _seed(app)
    body = {"data": {"title": "Urn", "categories": {"connect": [2], "disconnect": [1]}}}
    async with statements.recording() as recorded:
        response = await app.client.put("/api/articles/1", json=body, headers=ADMIN)
    assert response.status_code == 200, response.text
    update = next(i for i, s in enumerate(recorded) if s.lstrip().startswith("UPDATE articles"))
    before, under_lock = recorded[:update], recorded[update + 1 :]
    if backend == "postgres":  # the targets, read by the UPDATE itself (once it finds the row)
        assert "FROM categories" in recorded[update], recorded[update]
        assert not any("FROM categories" in s for s in before), before
    else:  # the targets, checked first
        assert any("FROM categories" in s for s in before), before
    assert not any("FROM categories" in s for s in under_lock), under_lock
    assert not any(s.lstrip().startswith("SELECT articles.") for s in under_lock), under_lock
    # the link rows, their writes, (PostgreSQL) the other side's order lock per target and
    # the write's event (entries/events.py)
    link_work = ("articles_categories_links", "pg_advisory_xact_lock", "contentapi_events")
    assert all(any(part in s for part in link_work) for s in under_lock), "\n".join(under_lock)
    # the answer is the row the UPDATE returned
    attributes = response.json()["data"]["attributes"]
    assert attributes["title"] == "Urn"
    assert attributes["updatedAt"] >= attributes["createdAt"]
    read = await app.client.get("/api/articles/1?populate=categories", headers=ADMIN)
    assert read.json()["data"]["attributes"]["title"] == "Urn"
    categories = read.json()["data"]["attributes"]["categories"]["data"]
    assert [category["id"] for category in categories] == [2]
    assert {k: v for k, v in read.json()["data"]["attributes"].items() if k != "categories"} == (
        attributes
    )


async def test_the_answer_has_the_requested_fields_and_populate(app):
    await _seed(app)
    response = await app.client.put(
        "/api/articles/1?fields[0]=title&populate[categories][fields][0]=slug",
        json={"data": {"title": "Vat", "categories": {"connect": [2]}}},
        headers=ADMIN,
    )
    assert response.status_code == 200, response.text
    attributes = response.json()["data"]["attributes"]
    assert attributes["title"] == "Vat"
    assert set(attributes) == {"title", "categories"}
    slugs = [item["attributes"]["slug"] for item in attributes["categories"]["data"]]
    assert slugs == ["c1", "c2"]


async def test_a_missing_entry_is_404_before_its_missing_targets(app):
    await _seed(app)
    missing_both = await app.client.put(
        "/api/articles/99", json={"data": {"categories": {"connect": [42]}}}, headers=ADMIN
    )
    assert missing_both.status_code == 404, missing_both.text
    missing_target = await app.client.put(
        "/api/articles/1",
        json={"data": {"title": "Wax", "categories": {"connect": [42]}}},
        headers=ADMIN,
    )
    assert missing_target.status_code == 400, missing_target.text
    assert "do not exist: 42" in missing_target.json()["error"]["message"]
    unchanged = await app.client.get("/api/articles/1", headers=ADMIN)
    assert unchanged.json()["data"]["attributes"]["title"] == "Tea"


async def test_updates_of_one_entry_take_turns_in_a_worker(app):
    """Concurrent PUTs of one entry open their transactions one after the other in a worker
    (entries/turns.py); PUTs of different entries do not wait for each other."""
    await _seed(app)
    await app.runtime.entries.create("api::article.article", {"title": "Ink"})
    service = app.runtime.entries
    original = service.writes.writing
    current: contextvars.ContextVar[int] = contextvars.ContextVar("entry")
    open_now: dict[int, int] = {1: 0, 2: 0}
    most: dict[int, int] = {1: 0, 2: 0}

    def counting(uid):
        manager = original(uid)

        class Counted:
            async def __aenter__(self):
                conn = await manager.__aenter__()
                self.entry = current.get()
                open_now[self.entry] += 1
                most[self.entry] = max(most[self.entry], open_now[self.entry])
                await asyncio.sleep(0.01)  # others get every chance to start theirs meanwhile
                return conn

            async def __aexit__(self, *exc):
                open_now[self.entry] -= 1
                return await manager.__aexit__(*exc)

        return Counted()

    async def put(entry_id: int, n: int):
        current.set(entry_id)
        body = {"data": {"title": f"Title {n}", "categories": {"connect": [1 + n % 2]}}}
        return await app.client.put(f"/api/articles/{entry_id}", json=body, headers=ADMIN)

    service.writes.writing = counting
    try:
        answers = await asyncio.gather(*(put(1 + n % 2, n) for n in range(12)))
    finally:
        service.writes.writing = original
    assert [answer.status_code for answer in answers] == [200] * 12, answers[0].text
    assert most == {1: 1, 2: 1}
    assert len(service.turns) == 0  # nothing kept once the writes are done
    titles = {
        (await app.client.get(f"/api/articles/{n}", headers=ADMIN)).json()["data"]["attributes"][
            "title"
        ]
        for n in (1, 2)
    }
    assert titles <= {f"Title {n}" for n in range(12)}
