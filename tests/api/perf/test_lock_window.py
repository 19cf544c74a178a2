"""What a PUT does while it holds its entry's row lock.

Concurrent writers of one entry queue on that lock, so the statements run between taking it
(the ``UPDATE … RETURNING``) and ``COMMIT`` bound how many writes of one entry a second the
server takes. Only the entry's link rows and the writes themselves belong there: the relation
targets are checked before (on PostgreSQL by the ``UPDATE`` itself, a round trip fewer), and
the answer comes back with the ``UPDATE``.
"""

from __future__ import annotations

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
    # the link rows, their writes and (PostgreSQL) the other side's order lock per target
    link_work = ("articles_categories_links", "pg_advisory_xact_lock")
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
