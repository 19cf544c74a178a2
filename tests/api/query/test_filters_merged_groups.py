"""A group (``$or``/``$and``) inside a relation's filters shares its parent's slot, as in Strapi.

Strapi's query builder merges a relation's processed filters into the object of the model it
is reached from (``Object.assign``), so a ``$or`` met through ``author`` — or deeper, through
``author.articles`` — and the parent's own ``$or`` are one key: the later in key order replaces
the other. REST orders keys as the query string does; GraphQL as the ``…FiltersInput`` type
does (attributes, then ``and``, ``or``, ``not``) whatever the document's order. Each answer
here is the reference Strapi 4.25's on the same shapes; the data set is ``conftest.py``'s
(Bob wrote the live article 2, Alice 1, 3 and 6; category 3 is on the live articles 2 and 3).
"""

from __future__ import annotations

import pytest

CASES = [
    # the parent's `$or` comes later and replaces the author's: only `id = 1` is left
    ("filters[author][$or][0][name]=Bob&filters[$or][0][id]=1", [1]),
    # the author's comes later and replaces the parent's
    ("filters[$or][0][id]=1&filters[author][$or][0][name]=Bob", [2]),
    # two relations: the later one's `$or` is the one left
    ("filters[author][$or][0][name]=Bob&filters[categories][$or][0][id]=3", [2, 3]),
    # from two relations deep too
    ("filters[author][articles][$or][0][title]=ZEBRA notes&filters[$or][0][id]=2", [2]),
    ("filters[$and][0][id]=1&filters[author][$and][0][name]=Alice Martin", [1, 3, 6]),
    # other keys of the relation stay with it: Alice wrote 1, 3 and 6, of which one is id 1
    (
        "filters[author][name]=Alice Martin&filters[author][articles][$or][0][id]=2"
        "&filters[$or][0][id]=1",
        [1],
    ),
]


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_a_relations_group_shares_the_parents_slot(ids, query, expected):
    assert await ids(query + "&sort=id&pagination[pageSize]=100") == expected


async def _graphql_ids(seeded, filters: str) -> list[int]:
    query = f'{{ articles(filters: {filters}, sort: "id") {{ data {{ id }} }} }}'
    answer = await seeded.client.post(
        "/graphql",
        json={"query": query},
        headers={"Authorization": "Bearer test-admin-token"},
    )
    body = answer.json()
    assert "errors" not in body, body
    return [int(entry["id"]) for entry in body["data"]["articles"]["data"]]


async def test_graphql_orders_keys_as_its_input_type(seeded):
    # `or` comes after `author` in ArticleFiltersInput, written first or last
    bob_or_first = '{or: [{title: {eq: "Hello World"}}], author: {or: [{name: {eq: "Bob"}}]}}'
    bob_or_last = '{author: {or: [{name: {eq: "Bob"}}]}, or: [{title: {eq: "Hello World"}}]}'
    assert await _graphql_ids(seeded, bob_or_first) == [1]
    assert await _graphql_ids(seeded, bob_or_last) == [1]


async def test_an_empty_group_replaces_the_slot_all_the_same(seeded):
    # `or: [{author: {}}]` holds no condition, yet it replaces the author's `or`: every live
    # article (the reference answers the same shape on authors with every author)
    filters = '{or: [{author: {}}], author: {or: [{name: {eq: "Bob"}}]}}'
    assert await _graphql_ids(seeded, filters) == [1, 2, 3, 4, 6]
