"""``CONTENTAPI_REST_COST_LIMIT``: a populate fan-out over the budget is a 400 before any SQL."""

from __future__ import annotations

import pytest

ADMIN = {"Authorization": "Bearer test-admin-token"}

COSTLY = {
    # 100 articles x 100 categories x 100 articles: a million entries
    "nested limits": "pagination[pageSize]=100&populate[categories][limit]=100"
    "&populate[categories][populate][articles][limit]=100",
    # every relation of every level, three levels deep, on a page of 100
    "populate everything, nested": "pagination[pageSize]=100&populate[categories][populate]"
    "[articles][populate][categories][populate]=*",
    # dotted paths through a dynamic zone
    "dotted paths": "pagination[pageSize]=100&populate[0]=categories.articles.categories"
    "&populate[1]=related.related.related",
}


@pytest.mark.parametrize("name", list(COSTLY))
async def test_a_costly_populate_is_refused_before_any_statement(app, statements, name):
    async with statements.recording() as recorded:
        response = await app.client.get(f"/api/articles?{COSTLY[name]}", headers=ADMIN)
    assert response.status_code == 400, response.text
    ran = [s for s in recorded if not s.startswith("BEGIN") and "strapi_api_tokens" not in s]
    assert ran == []
    error = response.json()["error"]
    assert response.json()["data"] is None
    assert error["status"] == 400
    assert error["name"] == "ValidationError"
    assert error["details"]["limit"] == 100_000
    assert error["details"]["cost"] > 100_000
    assert f"costs {error['details']['cost']}, more than the limit of 100000" in error["message"]


async def test_the_same_populate_on_one_entry_or_a_small_page_is_answered(app):
    one = "populate[categories][limit]=100&populate[categories][populate][articles][limit]=100"
    response = await app.client.get(f"/api/articles?pagination[pageSize]=5&{one}", headers=ADMIN)
    assert response.status_code == 200, response.text


async def test_the_limit_is_configurable(start_app):
    handle = await start_app(rest_cost_limit=50)
    answered = await handle.client.get("/api/articles?populate=author", headers=ADMIN)
    assert answered.status_code == 200  # 25 x 2
    refused = await handle.client.get("/api/articles?populate=categories", headers=ADMIN)
    assert refused.status_code == 400  # 25 x 11
    assert refused.json()["error"]["details"] == {"cost": 275, "limit": 50}
