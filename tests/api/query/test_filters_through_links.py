"""Filters through relations that need nothing of the related entry but its id.

``query/compile.py`` reads the link table alone there (the link's target column is the related
entry's id): ids, filters through the related entry's own relations, ``$null``, nested in
``$and``/``$or``/``$not`` and chained. These answers are the ones of the joined form before
that rewrite, computed from the data set of ``conftest.py``; the statement test shows which
form each query takes.
"""

from __future__ import annotations

import pytest

CASES = [
    # to-one, then to-many: the articles whose author wrote an article titled so (drafts too:
    # a filter through a relation does not apply the publication state to related entries)
    ("filters[author][articles][title][$eq]=hello again", [2]),
    ("filters[author][articles][title][$eq]=Draft Article", [2]),
    ("filters[author][articles][readingTime][$gt]=8", [2]),
    # row-wise, as Strapi's LEFT JOIN: Bob's other article is not titled so; no author, no row
    ("filters[$not][author][articles][title][$eq]=hello again", [1, 2, 3, 6]),
    # three relations deep
    ("filters[author][articles][categories][name][$eq]=Life", [1, 2, 3, 6]),
    ("filters[author][articles][categories][parent][id][$eq]=1", [1, 3, 6]),
    # to-many, then to-one
    ("filters[categories][parent][id][$eq]=1", [1, 3, 4]),
    ("filters[categories][parent][name][$eq]=Tech", [1, 3, 4]),
    ("filters[categories][id][$eq]=2", [1, 3, 4]),
    # row-wise too: a category without parent has no parent row to negate
    ("filters[categories][$not][parent][name][$eq]=Tech", []),
    ("filters[categories][$or][0][id]=3&filters[categories][$or][1][parent][name]=Nope", [2, 3]),
    # ids and relations together, and with a column of the related entry (joined)
    (
        "filters[author][$and][0][articles][title]=ZEBRA notes&filters[author][$and][1][id][$ne]=2",
        [1, 3, 6],
    ),
    (
        "filters[author][$or][0][name]=Bob&filters[author][$or][1][articles][title]=ZEBRA notes",
        [1, 2, 3, 6],
    ),
    ("filters[author][id][$in][0]=2&filters[author][id][$in][1]=3", [2]),
    ("filters[author][id][$null]=true", [4]),
    ("filters[author][profile][$null]=true", [2, 4]),
    ("filters[author][profile][$null]=false", [1, 3, 6]),
]


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_filter_through_a_relation_by_id_or_further_relations(ids, query, expected):
    assert await ids(query + "&pagination[pageSize]=100") == expected


async def test_from_the_inverse_side(ids):
    assert await ids("filters[articles][author][name][$eq]=Bob", "categories") == [1, 3]
    assert await ids("filters[articles][author][id][$eq]=2", "categories") == [1, 3]
    assert await ids("filters[articles][author][articles][title]=ZEBRA notes", "categories") == [
        1,
        2,
        3,
    ]
