"""Documents that cannot run, and scalar inputs, answered exactly as the reference Strapi 4.25.

``fixtures/strapi-4.25-errors.json`` holds the reference's answers (status, and the whole body:
``message``, ``locations``, ``path``, ``extensions.code``) recorded over HTTP with the example
models and empty content tables: graphql-js's quotes and wording (issue 24 class 2), variables
printed by graphql-js's ``inspect`` (class 6), graphql-scalars' and Strapi's scalar messages for
``Date``, ``DateTime``, ``Long``, ``Time`` (classes 5, 7) and ``I18NLocaleCode`` checked against
the ISO locale list (class 4), dynamic-zone inputs, syntax errors in graphql-js 15's words.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.api.graphql.conftest import ADMIN

CASES = json.loads((Path(__file__).parent / "fixtures" / "strapi-4.25-errors.json").read_text())[
    "cases"
]


async def test_answers_recorded_from_the_reference(app, client):
    mismatches = []
    for case in CASES:
        response = await client.post("/graphql", json=case["request"], headers=ADMIN)
        got = (response.status_code, response.json())
        if got != (case["status"], case["response"]):
            mismatches.append({"request": case["request"], "expected": case, "got": got})
    assert mismatches == [], json.dumps(mismatches[:3], indent=1)
    assert len(CASES) > 300


async def test_each_class_of_issue_24(app, client):
    """One readable example per class (the fixture holds the full set)."""

    async def errors(body: dict) -> list:
        response = await client.post("/graphql", json=body, headers=ADMIN)
        assert response.status_code == 400, response.text
        return response.json()["errors"]

    # class 2: graphql-js's quotes
    assert await errors({"query": "{ articles { data { id attributes { titl } } } }"}) == [
        {
            "message": 'Cannot query field "titl" on type "Article". Did you mean "title"?',
            "locations": [{"line": 1, "column": 37}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    # class 6: the invalid variable printed by graphql-js's inspect
    query = "query Q($f: ArticleFiltersInput) { articles(filters: $f) { data { id } } }"
    assert await errors({"query": query, "variables": {"f": {"nosuch": {"eq": "x"}}}}) == [
        {
            "message": 'Variable "$f" got invalid value { nosuch: { eq: "x" } }; '
            'Field "nosuch" is not defined by type "ArticleFiltersInput".',
            "locations": [{"line": 1, "column": 9}],
            "extensions": {"code": "BAD_USER_INPUT"},
        }
    ]
    # class 5: graphql-scalars' words, located on the literal
    query = '{ articles(filters: {eventDate: {eq: "2020-13-01"}}) { data { id } } }'
    assert await errors({"query": query}) == [
        {
            "message": "Date cannot represent an invalid date-string 2020-13-01.",
            "locations": [{"line": 1, "column": 38}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    # class 7: a malformed Time literal fails validation
    query = '{ articles(filters: {eventTime: {eq: "25:00"}}) { data { id } } }'
    assert await errors({"query": query}) == [
        {
            "message": 'Expected value of type "Time", found "25:00"; '
            "Invalid time format, expected HH:mm:ss.SSS",
            "locations": [{"line": 1, "column": 38}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    # class 4: a well-formed code outside Strapi's ISO list
    assert await errors({"query": '{ articles(locale: "en-ZZ") { data { id } } }'}) == [
        {
            "message": 'Expected value of type "I18NLocaleCode", found "en-ZZ"; '
            "Unknown locale supplied",
            "locations": [{"line": 1, "column": 20}],
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]


async def test_iso_locale_codes_are_accepted_and_read(blog, client):
    """A listed code the database does not hold is a valid literal that matches nothing."""
    response = await client.post(
        "/graphql",
        json={"query": '{ articles(locale: "fr-FR") { data { id } } }'},
        headers=ADMIN,
    )
    assert response.json() == {"data": {"articles": {"data": []}}}
    response = await client.post(
        "/graphql",
        json={"query": '{ articles(locale: "en") { data { id } } }'},
        headers=ADMIN,
    )
    assert [entry["id"] for entry in response.json()["data"]["articles"]["data"]] == ["1", "2"]
