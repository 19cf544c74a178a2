"""Relation writes: every relation kind by operator form by create/update, both sides in order."""

from __future__ import annotations

import asyncio

import pytest

from tests.api.rest.helpers import create, create_many, nested

# (source plural, attribute, target plural, inverse attribute or None, to-many?)
RELATIONS = [
    ("articles", "author", "authors", "articles", False),  # manyToOne, owner
    ("authors", "articles", "articles", "author", True),  # oneToMany, inverse side
    ("articles", "categories", "categories", "articles", True),  # manyToMany, owner
    ("categories", "articles", "articles", "categories", True),  # manyToMany, inverse side
    ("articles", "related", "articles", None, True),  # oneToMany one-way, self
    ("authors", "profile", "profiles", "author", False),  # oneToOne, owner
    ("profiles", "author", "authors", "profile", False),  # oneToOne, inverse side
    ("categories", "parent", "categories", "children", False),  # manyToOne, self
    ("categories", "children", "categories", "parent", True),  # oneToMany, self inverse
    ("categories", "featured", "articles", None, False),  # oneToOne one-way
    ("ships", "crew", "people", "vessel", True),  # oneToMany, owner
    ("people", "vessel", "ships", "crew", False),  # manyToOne, inverse side
    ("ships", "port", "docks", None, False),  # manyToOne one-way
    ("ships", "docks", "docks", None, True),  # manyToMany one-way
]

TO_MANY_FORMS = {
    "bare array": lambda ids: ids,
    "connect shorthand": lambda ids: {"connect": ids},
    "connect longhand": lambda ids: {"connect": [{"id": i} for i in ids]},
    "set shorthand": lambda ids: {"set": ids},
    "set longhand": lambda ids: {"set": [{"id": i} for i in ids]},
    "string ids": lambda ids: [str(i) for i in ids],
}
TO_ONE_FORMS = {
    "bare id": lambda ids: ids[-1],
    "bare longhand": lambda ids: {"id": ids[-1]},
    "connect shorthand": lambda ids: {"connect": ids[-1:]},
    "connect longhand": lambda ids: {"connect": [{"id": ids[-1]}]},
    "set shorthand": lambda ids: {"set": ids[-1:]},
    "bare array": lambda ids: ids[-1:],
}

CASES = [
    pytest.param(relation, form, when, id=f"{relation[0]}.{relation[1]}-{form}-{when}")
    for relation in RELATIONS
    for form in (TO_MANY_FORMS if relation[4] else TO_ONE_FORMS)
    for when in ("create", "update")
]


@pytest.mark.parametrize(("relation", "form", "when"), CASES)
async def test_relation_write_is_visible_on_both_sides_in_order(
    app, client, admin, relation, form, when
):
    source_plural, attribute, target_plural, inverse, to_many = relation
    value_of = (TO_MANY_FORMS if to_many else TO_ONE_FORMS)[form]
    if source_plural == target_plural:
        source = await create(client, admin, source_plural)
        targets = await create_many(client, admin, target_plural, 3)
    else:
        targets = await create_many(client, admin, target_plural, 3)
        source = None
    chosen = [targets[2], targets[0]] if to_many else [targets[1]]
    value = value_of(chosen)
    if when == "create" and source is None:
        source = await create(client, admin, source_plural, **{attribute: value})
    else:
        if source is None:
            source = await create(client, admin, source_plural)
        response = await client.put(
            f"/api/{source_plural}/{source}", json={"data": {attribute: value}}, headers=admin
        )
        assert response.status_code == 200, response.text

    state = await nested(app, source_plural, source)
    assert state[attribute] == (chosen if to_many else chosen[0])
    if inverse is not None:
        for target in chosen:
            other = (await nested(app, target_plural, target))[inverse]
            assert other == [source] if isinstance(other, list) else other == source
        untouched = (await nested(app, target_plural, targets[1] if to_many else targets[0]))[
            inverse
        ]
        assert untouched in ([], None) or source not in (
            untouched if isinstance(untouched, list) else [untouched]
        )


async def test_to_one_keeps_the_last_relation(app, client, admin):
    authors = await create_many(client, admin, "authors", 3)
    article = await create(client, admin, "articles", author={"connect": authors})
    assert (await nested(app, "articles", article))["author"] == authors[-1]
    await client.put(
        f"/api/articles/{article}", json={"data": {"author": {"set": authors[:2]}}}, headers=admin
    )
    assert (await nested(app, "articles", article))["author"] == authors[1]
    await client.put(
        f"/api/articles/{article}",
        json={"data": {"author": {"disconnect": [authors[1]]}}},
        headers=admin,
    )
    assert (await nested(app, "articles", article))["author"] is None
    await client.put(
        f"/api/articles/{article}", json={"data": {"author": authors[0]}}, headers=admin
    )
    await client.put(f"/api/articles/{article}", json={"data": {"author": None}}, headers=admin)
    assert (await nested(app, "articles", article))["author"] is None
    assert (await nested(app, "authors", authors[0]))["articles"] == []


async def test_connect_and_disconnect_combine(app, client, admin):
    categories = await create_many(client, admin, "categories", 4)
    article = await create(client, admin, "articles", categories=categories[:3])
    response = await client.put(
        f"/api/articles/{article}",
        json={"data": {"categories": {"disconnect": [categories[0]], "connect": [categories[3]]}}},
        headers=admin,
    )
    assert response.status_code == 200
    assert (await nested(app, "articles", article))["categories"] == [
        categories[1],
        categories[2],
        categories[3],
    ]
    assert (await nested(app, "categories", categories[0]))["articles"] == []


async def test_one_to_one_owner_takes_the_target_from_its_previous_owner(app, client, admin):
    profile = await create(client, admin, "profiles")
    first = await create(client, admin, "authors", profile=profile)
    second = await create(client, admin, "authors", profile=profile)
    assert (await nested(app, "authors", first))["profile"] is None
    assert (await nested(app, "authors", second))["profile"] == profile
    assert (await nested(app, "profiles", profile))["author"] == second


async def test_one_to_many_owner_takes_the_target_from_its_previous_owner(app, client, admin):
    people = await create_many(client, admin, "people", 2)
    first = await create(client, admin, "ships", crew=people)
    second = await create(client, admin, "ships", crew={"connect": [people[0]]})
    assert (await nested(app, "ships", first))["crew"] == [people[1]]
    assert (await nested(app, "ships", second))["crew"] == [people[0]]
    assert (await nested(app, "people", people[0]))["vessel"] == second


async def test_writing_the_inverse_side_moves_entries_between_owners(app, client, admin):
    first = await create(client, admin, "authors")
    second = await create(client, admin, "authors")
    article = await create(client, admin, "articles", author=first)
    response = await client.put(
        f"/api/authors/{second}", json={"data": {"articles": [article]}}, headers=admin
    )
    assert response.status_code == 200
    assert (await nested(app, "articles", article))["author"] == second
    assert (await nested(app, "authors", first))["articles"] == []


async def test_one_way_one_to_one_lets_several_owners_share_a_target(app, client, admin):
    article = await create(client, admin, "articles")
    first = await create(client, admin, "categories", featured=article)
    second = await create(client, admin, "categories", featured=article)
    assert (await nested(app, "categories", first))["featured"] == article
    assert (await nested(app, "categories", second))["featured"] == article


async def test_inverse_side_keeps_its_own_order(app, client, admin):
    category = await create(client, admin, "categories")
    articles = await create_many(client, admin, "articles", 3)
    for article in (articles[2], articles[0], articles[1]):
        await client.put(
            f"/api/articles/{article}",
            json={"data": {"categories": {"connect": [category]}}},
            headers=admin,
        )
    assert (await nested(app, "categories", category))["articles"] == [
        articles[2],
        articles[0],
        articles[1],
    ]
    # Re-ordering an article's own list does not disturb the category's order.
    await client.put(
        f"/api/articles/{articles[2]}", json={"data": {"categories": [category]}}, headers=admin
    )
    assert (await nested(app, "categories", category))["articles"] == [
        articles[2],
        articles[0],
        articles[1],
    ]


async def test_a_target_added_beside_kept_ones_goes_to_the_end_of_its_own_list(app, client, admin):
    """An entry that has link rows already rewrites them in one statement on PostgreSQL
    (``relation_store``): a target it adds still goes to the end of that target's own list,
    and the targets it keeps stay where they were in theirs."""
    first, second = await create_many(client, admin, "categories", 2)
    articles = await create_many(client, admin, "articles", 3)

    async def connect(article: int, category: int) -> None:
        response = await client.put(
            f"/api/articles/{article}",
            json={"data": {"categories": {"connect": [category]}}},
            headers=admin,
        )
        assert response.status_code == 200, response.text

    for article in articles:
        await connect(article, first)
    for article in (articles[1], articles[2], articles[0]):
        await connect(article, second)
    assert (await nested(app, "categories", first))["articles"] == articles
    assert (await nested(app, "categories", second))["articles"] == [
        articles[1],
        articles[2],
        articles[0],
    ]
    assert (await nested(app, "articles", articles[0]))["categories"] == [first, second]


POSITION_STEPS = [
    ({"set": [1, 2, 3]}, [1, 2, 3]),
    ({"connect": [{"id": 4, "position": {"before": 2}}]}, [1, 4, 2, 3]),
    ({"connect": [{"id": 5, "position": {"start": True}}]}, [5, 1, 4, 2, 3]),
    ({"connect": [{"id": 3, "position": {"after": 5}}]}, [5, 3, 1, 4, 2]),
    (
        {"connect": [{"id": 6, "position": {"end": True}}, {"id": 7, "position": {"before": 6}}]},
        [5, 3, 1, 4, 2, 7, 6],
    ),
    (
        {
            "connect": [
                {"id": 8, "position": {"after": 1}},
                {"id": 9, "position": {"after": 8}},
                {"id": 10, "position": {"before": 9}},
            ]
        },
        [5, 3, 1, 8, 10, 9, 4, 2, 7, 6],
    ),
    (
        {"disconnect": [5, 9], "connect": [{"id": 5, "position": {"before": 2}}, 9]},
        [3, 1, 8, 10, 4, 5, 2, 7, 6, 9],
    ),
    ({"connect": [2, {"id": 11}]}, [3, 1, 8, 10, 4, 5, 7, 6, 9, 2, 11]),
]


async def test_sequence_of_positioned_connects_produces_exact_order(app, client, admin):
    categories = await create_many(client, admin, "categories", 11)
    assert categories == list(range(1, 12))
    article = await create(client, admin, "articles")
    for operation, expected in POSITION_STEPS:
        response = await client.put(
            f"/api/articles/{article}", json={"data": {"categories": operation}}, headers=admin
        )
        assert response.status_code == 200, (operation, response.text)
        assert (await nested(app, "articles", article))["categories"] == expected, operation


async def test_positions_apply_on_create_too(app, client, admin):
    await create_many(client, admin, "categories", 3)
    article = await create(
        client,
        admin,
        "articles",
        categories={
            "connect": [
                1,
                {"id": 3, "position": {"start": True}},
                {"id": 2, "position": {"after": 3}},
            ]
        },
    )
    assert (await nested(app, "articles", article))["categories"] == [3, 2, 1]


async def test_concurrent_connects_lose_no_relation(app, client, admin):
    categories = await create_many(client, admin, "categories", 20)
    article = await create(client, admin, "articles")
    responses = await asyncio.gather(
        *(
            client.put(
                f"/api/articles/{article}",
                json={"data": {"categories": {"connect": [{"id": category}]}}},
                headers=admin,
            )
            for category in categories
        )
    )
    assert all(response.status_code == 200 for response in responses), [r.text for r in responses]
    related = (await nested(app, "articles", article))["categories"]
    assert sorted(related) == categories
    table = app.runtime.tables.links["articles_categories_links"]
    async with app.runtime.database.read() as conn:
        orders = [
            row.category_order
            for row in await conn.execute(
                table.select().where(table.c.article_id == article).order_by(table.c.category_order)
            )
        ]
    assert orders == [float(i) for i in range(1, 21)]  # a consistent order: 1..20, no ties
    for category in categories:
        assert (await nested(app, "categories", category))["articles"] == [article]
