"""How the populator turns rows into populated attributes (``query/populate/``), with canned
rows instead of a database: rows grouped per parent in the order read, to-one relations as
their first row, counts, components and dynamic zones placed per parent, media per attribute,
and PostgreSQL's JSON rows read back to the values the columns would have given."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from contentapi.query.ast import (
    Comparison,
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    Populate,
    RelationPopulate,
)
from contentapi.query.populate import RelationCount
from contentapi.query.populate.base import Level
from contentapi.query.populate.batched import json_readers
from contentapi.schema.model import ContentType
from tests.unit.query.populate_fakes import (
    ARTICLE,
    NO_CONNECTION,
    FakeConnection,
    FakeKept,
    populator,
    schema,
    sql,
)


def article() -> ContentType:
    registry, _ = schema()
    return registry.content_types[ARTICLE]


def entries(*ids: int) -> list[dict[str, Any]]:
    return [{"id": entry_id} for entry_id in ids]


# ------------------------------------------------------------------ JSON read-back


def test_json_readers_turn_back_dates_times_floats_and_decimals_only() -> None:
    _, tables = schema()
    articles = tables.entity(ARTICLE)
    readers = dict(json_readers(articles, [(c.name, c.name) for c in articles.c]))
    assert set(readers) == {
        "rating",
        "price",
        "event_date",
        "event_time",
        "scheduled_at",
        "reviewed_at",
        "created_at",
        "updated_at",
        "published_at",
    }
    # only the selected columns are read back
    assert [c for c, _ in json_readers(articles, [("id", "id"), ("rating", "rating")])] == [
        "rating"
    ]


def test_a_to_jsonb_row_reads_back_as_the_columns_would() -> None:
    reader = populator()
    values = {
        "id": 1,
        "title": "x",
        "rating": 4,  # a float PostgreSQL wrote as an integer
        "price": 12.5,
        "views": 9007199254740993,  # a biginteger stays exact
        "event_date": "2024-01-10",
        "event_time": "12:30:00.123",
        "scheduled_at": "2024-03-01T10:00:00.5+00:00",
        "reviewed_at": None,
        "metadata": {"a": [1, None]},
        "featured": True,
    }
    read = reader._from_json(ARTICLE, values)
    assert read is values  # in place
    assert read["rating"] == 4.0 and type(read["rating"]) is float
    assert read["price"] == 12.5
    assert read["views"] == 9007199254740993
    assert read["event_date"] == date(2024, 1, 10)
    assert read["event_time"] == time(12, 30, 0, 123000)
    assert read["scheduled_at"] == datetime(2024, 3, 1, 10, 0, 0, 500000, tzinfo=UTC)
    assert read["reviewed_at"] is None
    assert read["metadata"] == {"a": [1, None]} and read["featured"] is True
    assert ARTICLE in reader._readers  # worked out once per model


# ------------------------------------------------------------------ one relation per statement


async def test_relation_rows_are_grouped_per_parent_in_the_order_read() -> None:
    kept = FakeKept([(2, 12, "Life"), (1, 10, "Tech"), (1, 11, "Science"), (2, 10, "Tech")])
    found = entries(1, 2, 3)
    await populator("sqlite", kept)._relation(
        Level(NO_CONNECTION, article(), found, [1, 2, 3], "live"),
        "categories",
        RelationPopulate(fields=("name",)),
    )
    assert found == [
        {"id": 1, "categories": [{"id": 10, "name": "Tech"}, {"id": 11, "name": "Science"}]},
        {"id": 2, "categories": [{"id": 12, "name": "Life"}, {"id": 10, "name": "Tech"}]},
        {"id": 3, "categories": []},
    ]
    assert kept.calls[0][1] == {"ids": [1, 2, 3]}


async def test_a_to_one_relation_is_its_first_row_or_none() -> None:
    kept = FakeKept([(1, 5, "Alice")])
    found = entries(1, 2)
    await populator("sqlite", kept)._relation(
        Level(NO_CONNECTION, article(), found, [1, 2], "live"),
        "author",
        RelationPopulate(fields=("name",)),
    )
    assert found == [{"id": 1, "author": {"id": 5, "name": "Alice"}}, {"id": 2, "author": None}]


async def test_a_relation_statement_is_built_once_and_kept() -> None:
    kept = FakeKept([], [])
    reader = populator("sqlite", kept)
    node = RelationPopulate(fields=("name",))
    for _ in range(2):
        await reader._relation(
            Level(NO_CONNECTION, article(), entries(1), [1], "live"), "author", node
        )
    assert kept.calls[0][0] is kept.calls[1][0]


async def test_a_filter_that_cannot_be_hashed_runs_a_statement_built_for_the_request() -> None:
    conn: Any = FakeConnection([(1, 5, "Alice")])
    kept = FakeKept()
    node = RelationPopulate(fields=("name",), filters=Comparison("name", "string", "$in", ["A"]))
    found = entries(1)
    await populator("sqlite", kept)._relation(
        Level(conn, article(), found, [1], "live"), "author", node
    )
    assert found == [{"id": 1, "author": {"id": 5, "name": "Alice"}}]
    assert kept.calls == [] and conn.calls[0][1] == {"ids": [1]}


# ------------------------------------------------------------------ relations together


async def test_relations_read_together_are_grouped_per_relation_and_parent() -> None:
    kept = FakeKept()
    reader = populator("postgresql", kept)
    nodes = {
        "author": RelationPopulate(fields=("name", "born")),
        "categories": RelationPopulate(fields=("name",)),
    }
    together = reader._relations_together(article(), nodes, "live")
    assert together is not None
    kept.answers.append(
        [
            (0, 1, {"id": 5, "name": "Alice", "born": "1990-05-01"}),
            (0, 3, {"id": 6, "name": "Bob", "born": None}),
            (1, 1, {"id": 10, "name": "Tech"}),
            (1, 1, {"id": 11, "name": "Science"}),
            (1, 2, {"id": 12, "name": "Life"}),
        ]
    )
    found = entries(1, 2, 3)
    await reader._relations_at_once(
        Level(NO_CONNECTION, article(), found, [1, 2, 3], "live"), together, nodes
    )
    assert found == [
        {
            "id": 1,
            "author": {"id": 5, "name": "Alice", "born": date(1990, 5, 1)},
            "categories": [{"id": 10, "name": "Tech"}, {"id": 11, "name": "Science"}],
        },
        {"id": 2, "author": None, "categories": [{"id": 12, "name": "Life"}]},
        {"id": 3, "author": {"id": 6, "name": "Bob", "born": None}, "categories": []},
    ]


# ------------------------------------------------------------------ the level loop and counts


async def test_a_level_sets_its_keys_in_the_order_asked_and_counts_per_parent() -> None:
    conn: Any = FakeConnection([(1, 3)])
    kept = FakeKept([(2, 5, "Alice")])
    found = [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}, {"id": 1, "title": "a again"}]
    populate: Populate = {
        "categories": RelationPopulate(count=True),
        "author": RelationPopulate(fields=("name",)),
    }
    await populator("postgresql", kept).run(conn, article(), found, populate, "live")
    assert [list(entry) for entry in found] == [["id", "title", "categories", "author"]] * 3
    assert [entry["categories"] for entry in found] == [
        RelationCount(3),
        RelationCount(0),
        RelationCount(3),
    ]
    assert [entry["author"] for entry in found] == [None, {"id": 5, "name": "Alice"}, None]
    # parent ids once each, in the entries' order
    assert conn.calls[0][1] == {"ids": [1, 2]} and kept.calls[0][1] == {"ids": [1, 2]}
    assert "count(*)" in sql(conn.calls[0][0]) and "GROUP BY" in sql(conn.calls[0][0])


async def test_nothing_to_populate_reads_nothing() -> None:
    conn: Any = FakeConnection()
    kept = FakeKept()
    reader = populator("postgresql", kept)
    await reader.run(conn, article(), [], {"author": RelationPopulate()}, "live")
    found = entries(1)
    await reader.run(conn, article(), found, {}, "live")
    assert found == [{"id": 1}] and conn.calls == [] and kept.calls == []


# ------------------------------------------------------------------ components


async def test_components_read_together_are_placed_per_parent_field_and_zone() -> None:
    rows = [
        (1, "seo", "shared.seo", 10, {"id": 10, "meta_title": "T", "meta_description": None}),
        (1, "links", "shared.link", 21, {"id": 21, "label": "b", "url": "/b", "new_tab": False}),
        (1, "links", "shared.link", 20, {"id": 20, "label": "a", "url": "/a", "new_tab": True}),
        (1, "blocks", "blocks.media", 30, {"id": 30}),  # not in ``on``
        (1, "blocks", "blocks.quote", 31, {"id": 31, "title": "Q", "body": "…"}),
        (2, "blocks", "blocks.gone", 32, None),  # a type no longer in the schema
    ]
    found = entries(1, 2)
    nodes: dict[str, ComponentPopulate | DynamicZonePopulate] = {
        "seo": ComponentPopulate(),
        "links": ComponentPopulate(fields=("label",)),
        "blocks": DynamicZonePopulate(on={"blocks.quote": ComponentPopulate(fields=("title",))}),
    }
    await populator("postgresql", FakeKept(rows))._components(
        Level(NO_CONNECTION, article(), found, [1, 2], "live"), nodes
    )
    assert found == [
        {
            "id": 1,
            "seo": {"id": 10, "metaTitle": "T", "metaDescription": None},
            "links": [{"id": 21, "label": "b"}, {"id": 20, "label": "a"}],
            "blocks": [{"id": 31, "__component": "blocks.quote", "title": "Q"}],
        },
        {"id": 2, "seo": None, "links": [], "blocks": []},
    ]


async def test_components_read_per_type_keep_the_join_order() -> None:
    join_rows = [
        (1, "links", "shared.link", 21),
        (1, "links", "shared.link", 20),
        (2, "links", "shared.link", 22),
    ]
    component_rows = [
        {"id": 20, "label": "a", "url": "/a", "new_tab": True},
        {"id": 21, "label": "b", "url": "/b", "new_tab": False},
        {"id": 22, "label": "c", "url": "/c", "new_tab": None},
    ]
    kept = FakeKept(join_rows, component_rows)
    found = entries(1, 2)
    await populator("sqlite", kept)._components(
        Level(NO_CONNECTION, article(), found, [1, 2], "live"),
        {"links": ComponentPopulate(fields=("label",))},
    )
    assert found == [
        {"id": 1, "links": [{"id": 21, "label": "b"}, {"id": 20, "label": "a"}]},
        {"id": 2, "links": [{"id": 22, "label": "c"}]},
    ]
    assert kept.calls[0][1] == {"ids": [1, 2]}
    assert kept.calls[1][1] == {"ids": [20, 21, 22]}  # one statement for the type


# ------------------------------------------------------------------ media


async def test_media_of_a_level_are_grouped_per_parent_and_attribute() -> None:
    rows = [
        {"__parent": 1, "__field": "cover", "id": 7, "name": "c.png"},
        {"__parent": 1, "__field": "gallery", "id": 8, "name": "g1.png"},
        {"__parent": 1, "__field": "gallery", "id": 7, "name": "c.png"},
        {"__parent": 2, "__field": "gallery", "id": 9, "name": "g2.png"},
    ]
    kept = FakeKept(rows)
    found = entries(1, 2, 3)
    media = {
        "cover": MediaPopulate(fields=("name",)),
        "gallery": MediaPopulate(fields=("name",)),
    }
    await populator("postgresql", kept)._media(
        Level(NO_CONNECTION, article(), found, [1, 2, 3], "live"), media
    )
    assert found == [
        {
            "id": 1,
            "cover": {"id": 7, "name": "c.png"},
            "gallery": [{"id": 8, "name": "g1.png"}, {"id": 7, "name": "c.png"}],
        },
        {"id": 2, "cover": None, "gallery": [{"id": 9, "name": "g2.png"}]},
        {"id": 3, "cover": None, "gallery": []},
    ]
    assert kept.calls[0][1] == {"ids": [1, 2, 3]}
    assert "files_related_morphs.field = ANY" in sql(kept.calls[0][0])
