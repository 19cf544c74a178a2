"""Lifecycle hooks (``app.lifecycles.subscribe``) around the entry flows of both protocols,
inside the write's transaction, and change-feed listeners (``app.events.on``) after the commit
— through ``tests/support/lifecycle_extension.py``."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import func, select

from contentapi.db.system import events
from tests.conftest import ADMIN_TOKEN
from tests.support import lifecycle_extension as extension
from tests.support.waiting import eventually

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
ARTICLE = extension.ARTICLE
TITLE = "data { attributes { title } }"


@pytest.fixture
async def hooked(reused_app):
    handle = await reused_app(
        extensions="tests.support.lifecycle_extension", events_poll_interval=0.05
    )
    extension.forget()
    yield handle
    extension.forget()


async def _create(client, title: str, **more):
    return await client.post(
        "/api/articles", json={"data": {"title": title, **more}}, headers=ADMIN
    )


async def _graphql(client, query: str, **variables):
    answer = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=ADMIN
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _stored(handle) -> tuple[int, int]:
    """Articles and events in the database."""
    tables = handle.runtime.tables
    async with handle.runtime.database.read() as conn:
        articles = await conn.scalar(select(func.count()).select_from(tables.entity(ARTICLE)))
        recorded = await conn.scalar(select(func.count()).select_from(events))
    return int(articles or 0), int(recorded or 0)


async def test_a_before_hook_changes_the_data_of_both_protocols(hooked):
    created = await _create(hooked.client, "shout: hello")
    assert created.status_code == 200, created.text
    assert created.json()["data"]["attributes"]["title"] == "HELLO"
    article_id = created.json()["data"]["id"]
    updated = await hooked.client.put(
        f"/api/articles/{article_id}", json={"data": {"title": "shout: again"}}, headers=ADMIN
    )
    assert updated.json()["data"]["attributes"]["title"] == "AGAIN"
    mutation = f"mutation($t: String) {{ createArticle(data: {{title: $t}}) {{ {TITLE} }} }}"
    answer = await _graphql(hooked.client, mutation, t="shout: graphql")
    assert answer["data"]["createArticle"]["data"]["attributes"]["title"] == "GRAPHQL"
    # each subscription's before and after ran, in order, with its own state kept between them
    assert extension.CALLS.count(("before_create", ARTICLE)) == 4  # two subscriptions, two creates
    assert ("after_update", ARTICLE) in extension.CALLS
    assert extension.STATES == [
        {"before": "before_create"},
        {"before": "before_update"},
        {"before": "before_create"},
    ]


async def test_a_before_hook_refuses_a_write_in_the_contracts_shape(hooked):
    refused = await _create(hooked.client, "refuse")
    assert refused.status_code == 400
    assert refused.json()["error"]["name"] == "ValidationError"
    assert refused.json()["error"]["message"] == "This title is refused by an extension"
    mutation = 'mutation { createArticle(data: {title: "refuse"}) { data { id } } }'
    answer = await _graphql(hooked.client, mutation)
    assert answer["data"]["createArticle"] is None
    assert answer["errors"][0]["message"] == "This title is refused by an extension"
    assert answer["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    created = await _create(hooked.client, "kept")
    article_id = created.json()["data"]["id"]
    update = await hooked.client.put(
        f"/api/articles/{article_id}", json={"data": {"title": "refuse"}}, headers=ADMIN
    )
    assert update.status_code == 400
    extension.PROTECTED.add(article_id)
    deleted = await hooked.client.delete(f"/api/articles/{article_id}", headers=ADMIN)
    assert (
        deleted.status_code == 400
        and deleted.json()["error"]["message"] == "This article is protected"
    )
    found = await hooked.client.get(f"/api/articles/{article_id}", headers=ADMIN)
    assert found.json()["data"]["attributes"]["title"] == "kept"
    assert await _stored(hooked) == (1, 1)  # the one create's event, nothing of the refusals


async def test_an_exception_after_the_write_rolls_it_back(hooked):
    before = await _stored(hooked)
    # the answers a client gets (the test client would raise the extension's exception)
    transport = httpx.ASGITransport(app=hooked.app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        exploded = await _create(client, "explode")
        assert exploded.status_code == 500
        assert exploded.json()["error"]["status"] == 500  # the contract's shape, no trace
        mutation = (
            'mutation { createArticle(data: {title: "explode"}) { data { attributes { title } } } }'
        )
        answer = await _graphql(client, mutation)
        assert answer["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
        created = await _create(client, "fine")
        article_id = created.json()["data"]["id"]
        exploded = await client.put(
            f"/api/articles/{article_id}", json={"data": {"title": "explode"}}, headers=ADMIN
        )
        assert exploded.status_code == 500
        found = await client.get(f"/api/articles/{article_id}", headers=ADMIN)
    assert found.json()["data"]["attributes"]["title"] == "fine"
    # neither the rows nor the events of the rolled-back writes
    assert await _stored(hooked) == (before[0] + 1, before[1] + 1)


async def test_after_find_hooks_change_what_both_protocols_read(hooked):
    created = await _create(hooked.client, "secret")
    article_id = created.json()["data"]["id"]
    await _create(hooked.client, "open")
    listed = await hooked.client.get("/api/articles?sort=id", headers=ADMIN)
    assert [a["attributes"]["title"] for a in listed.json()["data"]] == ["[hidden]", "open"]
    one = await hooked.client.get(f"/api/articles/{article_id}", headers=ADMIN)
    assert one.json()["data"]["attributes"]["title"] == "[hidden]"
    answer = await _graphql(
        hooked.client,
        '{ articles(sort: "id") { data { attributes { title } } } '
        f"article(id: {article_id}) {{ data {{ attributes {{ title }} }} }} }}",
    )
    titles = [a["attributes"]["title"] for a in answer["data"]["articles"]["data"]]
    assert titles == ["[hidden]", "open"]
    assert answer["data"]["article"]["data"]["attributes"]["title"] == "[hidden]"
    assert extension.CALLS.count(("before_find_many", ARTICLE)) == 2
    assert extension.CALLS.count(("after_find_one", ARTICLE)) == 2


async def test_localizations_and_other_models_run_the_hooks(hooked):
    created = await _create(hooked.client, "source", locale="en")
    article_id = created.json()["data"]["id"]
    localized = await hooked.client.post(
        f"/api/articles/{article_id}/localizations",
        json={"title": "shout: bonjour", "locale": "fr"},
        headers=ADMIN,
    )
    assert localized.status_code == 200, localized.text
    assert localized.json()["title"] == "BONJOUR"
    refused = await hooked.client.post(
        f"/api/articles/{article_id}/localizations",
        json={"title": "refuse", "locale": "fr"},
        headers=ADMIN,
    )
    assert refused.status_code == 400
    single = await hooked.client.put(
        "/api/global", json={"data": {"siteName": "Site"}}, headers=ADMIN
    )
    assert single.status_code == 200, single.text
    # the subscription on every model saw the single type's create; the articles' one did not
    assert ("before_create", "api::global.global") in extension.CALLS
    assert ("after_create", "api::global.global") not in extension.CALLS


async def test_listeners_hear_committed_events_only(hooked):
    created = await _create(hooked.client, "heard")
    await _create(hooked.client, "refuse")
    await _create(hooked.client, "explode")
    article_id = created.json()["data"]["id"]
    await hooked.client.delete(f"/api/articles/{article_id}", headers=ADMIN)

    async def heard_both() -> bool:
        return ("listener *", "entry.delete") in extension.CALLS

    await eventually(heard_both, "the listeners")
    assert [(e.event, e.entry_id) for e in extension.HEARD] == [("entry.create", article_id)]
    heard = extension.HEARD[0]
    assert heard.uid == ARTICLE and heard.payload["entry"]["title"] == "heard"
    assert [c for c in extension.CALLS if c[0] == "listener *"] == [
        ("listener *", "entry.create"),
        ("listener *", "entry.delete"),
    ]
