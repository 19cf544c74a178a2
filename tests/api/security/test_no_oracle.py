"""No oracle on hidden data (the class of Strapi's CVE-2023-22894 and CVE-2023-34235): a
filter, sort, ``fields`` or populate filter on a private attribute or on a user's ``password``,
``resetPasswordToken`` or ``confirmationToken`` — directly, through relations (to-one, to-many,
self, localizations) and components (a dynamic zone's component relation), inside
``$or``/``$and``/``$not``, inside a populate, or through a relation whose target the caller
may not read — answers exactly the same whether or not the
value matches: 400 ``Invalid parameter <name>`` in REST, a validation error (the field does not
exist in ``…FiltersInput``) or ``BAD_USER_INPUT`` in GraphQL. ``createdBy``/``updatedBy`` are
not attributes of the example models (no ``populateCreatorFields``): naming them is the same
400 as any unknown key.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update

from tests.api.graphql.conftest import gql

#: What the seeded data holds, and a value that matches nothing.
NOTES, EMAIL, TOKEN, CONFIRMATION = "secret note", "ada@example.com", "reset-me", "confirm-me"
MISS = "no-such-value"


@pytest.fixture
async def hidden(app, client, admin) -> dict[str, int]:
    """An author with a private e-mail and a password, her article with private editor notes
    (and its French localization), a category linking it, and a user with reset and
    confirmation tokens."""
    author = await client.post(
        "/api/authors",
        json={"data": {"name": "Ada", "email": EMAIL, "password": "Secret123"}},
        headers=admin,
    )
    author_id = author.json()["data"]["id"]
    article = await client.post(
        "/api/articles",
        json={"data": {"title": "Notes", "editorNotes": NOTES, "author": author_id}},
        headers=admin,
    )
    article_id = article.json()["data"]["id"]
    french = await client.post(
        f"/api/articles/{article_id}/localizations",
        json={"title": "Notes fr", "locale": "fr", "editorNotes": NOTES},
        headers=admin,
    )
    assert french.status_code == 200, french.text
    category = await client.post(
        "/api/categories",
        json={"data": {"name": "Cat", "slug": "cat", "articles": [article_id]}},
        headers=admin,
    )
    assert category.status_code == 200, category.text
    user = await client.post(
        "/api/auth/local/register",
        json={"username": "alice", "email": "alice@example.com", "password": "Secret123"},
    )
    user_id = user.json()["user"]["id"]
    users = app.runtime.tables.entity("plugin::users-permissions.user")
    async with app.runtime.database.write() as conn:
        await conn.execute(
            update(users)
            .where(users.c.id == user_id)
            .values(reset_password_token=TOKEN, confirmation_token=CONFIRMATION)
        )
    return {"author": author_id, "article": article_id, "user": user_id}


def _other(match: str) -> str:
    """A value of the same kind that matches nothing (or sorts the other way)."""
    return {"asc": "desc", "desc": "asc", "false": "true", "name": "bio", "username": "email"}.get(
        match, MISS
    )


#: (query string with VALUE in place of the hidden value, the value that matches it)
REST_QUERIES = [
    # private attributes, directly and combined
    ("/api/articles?filters[editorNotes][$eq]=VALUE", NOTES),
    ("/api/articles?filters[editorNotes]=VALUE", NOTES),
    ("/api/articles?filters[editorNotes][$startsWith]=VALUE", NOTES[:3]),
    ("/api/articles?filters[$or][0][editorNotes][$eq]=VALUE&filters[$or][1][id][$lt]=0", NOTES),
    ("/api/articles?filters[$and][0][editorNotes][$eq]=VALUE&filters[$and][1][id][$gt]=0", NOTES),
    ("/api/articles?filters[$not][editorNotes][$eq]=VALUE", NOTES),
    ("/api/articles?filters[$not][$or][0][$not][editorNotes][$containsi]=VALUE", NOTES),
    ("/api/authors?filters[email][$eq]=VALUE", EMAIL),
    ("/api/authors?filters[email][$endsWith]=VALUE", "example.com"),
    ("/api/authors?filters[password][$startsWith]=VALUE", "$argon2"),
    ("/api/authors?filters[password][$null]=VALUE", "false"),
    # through relations: to-one, to-many, self, localizations, two levels
    ("/api/articles?filters[author][email][$eq]=VALUE", EMAIL),
    ("/api/articles?filters[author][password][$null]=VALUE", "false"),
    ("/api/categories?filters[articles][editorNotes][$eq]=VALUE", NOTES),
    ("/api/categories?filters[articles][author][email][$eq]=VALUE", EMAIL),
    ("/api/articles?filters[related][editorNotes][$eq]=VALUE", NOTES),
    ("/api/articles?filters[localizations][editorNotes][$eq]=VALUE&locale=fr", NOTES),
    ("/api/authors?filters[articles][$or][0][editorNotes][$eq]=VALUE", NOTES),
    # sort, fields, populate filters, populate sort
    ("/api/articles?sort=editorNotes:VALUE", "asc"),
    ("/api/articles?sort=author.email:VALUE", "desc"),
    ("/api/articles?fields[0]=editorNotes&fields[1]=VALUE", "title"),
    ("/api/authors?populate[articles][filters][editorNotes][$eq]=VALUE", NOTES),
    ("/api/categories?populate[articles][populate][author][filters][email][$eq]=VALUE", EMAIL),
    ("/api/articles?populate[author][sort]=email:VALUE", "asc"),
    ("/api/articles?populate[author][fields][0]=email&populate[author][fields][1]=VALUE", "name"),
    ("/api/articles/ARTICLE?populate[author][filters][password][$null]=VALUE", "false"),
    # through components: a dynamic zone's component relation, populated with filters or sort
    (
        "/api/articles?populate[blocks][on][blocks.quote][populate][author][filters][email][$eq]"
        "=VALUE",
        EMAIL,
    ),
    ("/api/articles?populate[blocks][on][blocks.quote][populate][author][sort]=email:VALUE", "asc"),
    ("/api/articles?populate[blocks][populate][author][filters][password][$null]=VALUE", "false"),
    # creator fields (not attributes here): the same 400 as any unknown key
    ("/api/articles?filters[createdBy][email][$eq]=VALUE", EMAIL),
    ("/api/articles?filters[updatedBy][password][$null]=VALUE", "false"),
    # users: password, reset and confirmation tokens, directly and through the role
    ("/api/users?filters[password][$startsWith]=VALUE", "$argon2"),
    ("/api/users?filters[password][$null]=VALUE", "false"),
    ("/api/users?filters[resetPasswordToken][$eq]=VALUE", TOKEN),
    ("/api/users?filters[confirmationToken][$eq]=VALUE", CONFIRMATION),
    ("/api/users?filters[$or][0][resetPasswordToken][$eq]=VALUE&filters[$or][1][id][$lt]=0", TOKEN),
    ("/api/users?filters[role][users][resetPasswordToken][$eq]=VALUE", TOKEN),
    ("/api/users?populate[role][populate][users][filters][password][$null]=VALUE", "false"),
    ("/api/users?sort=resetPasswordToken:VALUE", "asc"),
    ("/api/users/count?filters[confirmationToken][$eq]=VALUE", CONFIRMATION),
    ("/api/users?fields[0]=password&fields[1]=VALUE", "username"),
]


@pytest.mark.parametrize(("query", "match"), REST_QUERIES, ids=[q for q, _ in REST_QUERIES])
async def test_rest_answers_the_same_whether_a_hidden_value_matches(
    client, admin, hidden, query, match
):
    query = query.replace("ARTICLE", str(hidden["article"]))
    matching = await client.get(query.replace("VALUE", match), headers=admin)
    missing = await client.get(query.replace("VALUE", _other(match)), headers=admin)
    assert matching.status_code == 400, matching.text
    assert matching.json() == missing.json()
    error = matching.json()["error"]
    assert error["name"] == "ValidationError"
    assert error["message"].startswith("Invalid parameter "), error


async def test_a_relation_the_caller_may_not_read_is_no_oracle(client, hidden, make_token):
    """A token that may read articles but not authors: filtering or sorting on the author is
    400 whatever the value, and a populate of it is left out with its filters."""
    token = await make_token("custom", ("api::article.article.find",))
    for query, match in (
        ("/api/articles?filters[author][name][$eq]=VALUE", "Ada"),
        ("/api/articles?filters[$or][0][author][id][$eq]=VALUE&filters[$or][1][id][$lt]=0", "1"),
        ("/api/articles?sort=author.name:VALUE", "asc"),
    ):
        matching = await client.get(query.replace("VALUE", match), headers=token)
        missing = await client.get(query.replace("VALUE", _other(match)), headers=token)
        assert matching.status_code == 400, (query, matching.text)
        assert matching.json() == missing.json(), query
    # A populate of it is left out, its own filters with it: one answer whatever they say.
    answers = []
    for query in (
        "populate=author",
        "populate[author][filters][name][$eq]=Ada",
        f"populate[author][filters][name][$eq]={MISS}",
    ):
        populated = await client.get(f"/api/articles?{query}", headers=token)
        assert populated.status_code == 200, populated.text
        assert "author" not in populated.json()["data"][0]["attributes"]
        answers.append(populated.json())
    assert answers[0] == answers[1] == answers[2]


#: (document with VALUE in place of the hidden value, the value that matches it)
GRAPHQL_DOCUMENTS = [
    ('{ articles(filters: {editorNotes: {eq: "VALUE"}}) { data { id } } }', NOTES),
    (
        '{ articles(filters: {or: [{editorNotes: {eq: "VALUE"}}, {id: {lt: 0}}]}) '
        "{ data { id } } }",
        NOTES,
    ),
    ('{ articles(filters: {not: {editorNotes: {eq: "VALUE"}}}) { data { id } } }', NOTES),
    ('{ articles(filters: {author: {email: {eq: "VALUE"}}}) { data { id } } }', EMAIL),
    ("{ articles(filters: {author: {password: {null: VALUE}}}) { data { id } } }", "false"),
    ('{ articles(sort: "editorNotes:VALUE") { data { id } } }', "asc"),
    ('{ articles(sort: "author.email:VALUE") { data { id } } }', "asc"),
    ('{ authors(filters: {email: {endsWith: "VALUE"}}) { data { id } } }', "example.com"),
    ('{ authors(sort: "password:VALUE") { data { id } } }', "asc"),
    (
        '{ authors { data { attributes { articles(filters: {editorNotes: {eq: "VALUE"}}) '
        "{ data { id } } } } } }",
        NOTES,
    ),
    (
        '{ authors { data { attributes { articles(sort: "editorNotes:VALUE") '
        "{ data { id } } } } } }",
        "asc",
    ),
    ('{ usersPermissionsUsers(filters: {password: {startsWith: "VALUE"}}) { data { id } } }', "$"),
    (
        '{ usersPermissionsUsers(filters: {resetPasswordToken: {eq: "VALUE"}}) { data { id } } }',
        TOKEN,
    ),
    (
        '{ usersPermissionsUsers(filters: {confirmationToken: {eq: "VALUE"}}) { data { id } } }',
        CONFIRMATION,
    ),
    (
        "{ usersPermissionsUsers(filters: {role: {users: "
        '{resetPasswordToken: {eq: "VALUE"}}}}) { data { id } } }',
        TOKEN,
    ),
    ('{ usersPermissionsUsers(sort: "resetPasswordToken:VALUE") { data { id } } }', "asc"),
    (
        '{ usersPermissionsRoles { data { attributes { users(sort: "password:VALUE") '
        "{ data { id } } } } } }",
        "asc",
    ),
]


@pytest.mark.parametrize(
    ("document", "match"), GRAPHQL_DOCUMENTS, ids=[d for d, _ in GRAPHQL_DOCUMENTS]
)
async def test_graphql_answers_the_same_whether_a_hidden_value_matches(
    client, admin, hidden, document, match
):
    responses = [
        await client.post(
            "/graphql", json={"query": document.replace("VALUE", value)}, headers=admin
        )
        for value in (match, _other(match))
    ]
    matching, missing = (response.json() for response in responses)
    assert matching["errors"], matching
    assert responses[0].status_code == responses[1].status_code
    codes = {error["extensions"]["code"] for error in matching["errors"]}
    assert codes <= {"GRAPHQL_VALIDATION_FAILED", "BAD_USER_INPUT"}, matching
    assert not (matching.get("data") or {}).get("articles"), matching
    # The messages name the field, never the value; with it masked, both answers are one.
    assert _masked(matching, match) == _masked(missing, match)


def _masked(body: dict, match: str) -> list[tuple[str, str]]:
    return [
        (error["extensions"]["code"], error["message"].replace(match, "VALUE"))
        for error in body["errors"]
    ]


async def test_graphql_populated_relation_is_left_forbidden_not_filtered(client, hidden):
    """A public caller: filtering users by their reset token is refused before any read."""
    body = await gql(
        client,
        f'{{ usersPermissionsUsers(filters: {{resetPasswordToken: {{eq: "{TOKEN}"}}}}) '
        "{ data { id } } }",
        headers=None,
        status=400,
    )
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
