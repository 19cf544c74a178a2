"""The statements the populator builds (``query/populate/``), compiled without a database:
ids bound per dialect, a relation's join and order, the per-parent limit window, PostgreSQL's
one statement per level for relations (``UNION ALL`` of ``jsonb_build_object`` rows) and for
components (``to_jsonb`` in a ``CASE``), and when a level falls back to one statement each."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Integer, String, column, table

from contentapi.db.dialect import dialect_named
from contentapi.query.ast import (
    Comparison,
    ComponentPopulate,
    DynamicZonePopulate,
    RelationPopulate,
    SortKey,
)
from contentapi.query.populate.batched import APART
from contentapi.schema.model import ContentType
from tests.unit.query.populate_fakes import ARTICLE, AUTHOR, parameters, populator, schema, sql

#: the populated component and dynamic-zone fields of a level
ComponentNodes = dict[str, ComponentPopulate | DynamicZonePopulate]

THINGS = table("things", column("id", Integer), column("field", String))


def article() -> ContentType:
    registry, _ = schema()
    return registry.content_types[ARTICLE]


# ------------------------------------------------------------------ the dialect's id lists


def test_ids_bound_later_are_one_array_on_postgresql_and_expanding_on_sqlite() -> None:
    assert sql(THINGS.select().where(dialect_named("postgresql").among(THINGS.c.id))).endswith(
        "WHERE things.id = ANY (%(ids)s::INTEGER[])"
    )
    assert sql(
        THINGS.select().where(dialect_named("sqlite").among(THINGS.c.id)), "sqlite"
    ).endswith("WHERE things.id IN (__[POSTCOMPILE_ids])")


def test_ids_given_now_are_bound_as_one_array_on_postgresql() -> None:
    statement = THINGS.select().where(dialect_named("postgresql").among(THINGS.c.id, (3, 1, 2)))
    assert "things.id = ANY (%(param_1)s::INTEGER[])" in sql(statement)
    assert parameters(statement) == {"param_1": [3, 1, 2]}
    on_sqlite = THINGS.select().where(dialect_named("sqlite").among(THINGS.c.id, [3, 1]))
    assert parameters(on_sqlite, "sqlite") == {"id_1": [3, 1]}


def test_a_fixed_list_of_values_is_one_array_on_postgresql() -> None:
    statement = THINGS.select().where(
        dialect_named("postgresql").among(THINGS.c.field, ("seo", "blocks"))
    )
    assert "things.field = ANY (%(param_1)s::VARCHAR[])" in sql(statement)
    assert parameters(statement) == {"param_1": ["seo", "blocks"]}
    assert "things.field IN (__[POSTCOMPILE_field_1])" in sql(
        THINGS.select().where(dialect_named("sqlite").among(THINGS.c.field, ["seo"])), "sqlite"
    )


def test_only_postgresql_reads_a_level_as_json_rows() -> None:
    assert dialect_named("postgresql").json_rows
    assert not dialect_named("sqlite").json_rows


# ------------------------------------------------------------------ one relation


@pytest.mark.parametrize("dialect", ["postgresql", "sqlite"])
def test_a_relation_reads_parent_and_columns_through_its_link_in_stored_order(dialect: str) -> None:
    statement, columns, target, to_many = populator(dialect)._relation_statement(
        article(), "categories", RelationPopulate(fields=("name",)), "live"
    )
    assert columns == [("id", "id"), ("name", "name")]
    assert target.uid == "api::category.category" and to_many
    text = sql(statement, dialect)
    assert text.startswith(
        "SELECT articles_categories_links.article_id AS __parent, categories.id, categories.name"
        " FROM articles_categories_links JOIN categories"
        " ON categories.id = articles_categories_links.category_id"
    )
    assert text.endswith(
        "ORDER BY articles_categories_links.article_id,"
        " articles_categories_links.category_order, articles_categories_links.id"
    )
    assert "ROW_NUMBER" not in text.upper()


def test_a_relation_to_draft_and_publish_entries_keeps_the_published_ones_when_live() -> None:
    registry, _ = schema()
    author = registry.content_types[AUTHOR]
    live, *_ = populator()._relation_statement(author, "articles", RelationPopulate(), "live")
    preview, *_ = populator()._relation_statement(author, "articles", RelationPopulate(), "preview")
    assert "articles.published_at IS NOT NULL" in sql(live)
    assert "published_at IS NOT NULL" not in sql(preview)


def test_a_sorted_relation_orders_by_the_parent_then_the_sort() -> None:
    sort = (SortKey((), "name", "string", descending=True),)
    statement, *_ = populator()._relation_statement(
        article(), "categories", RelationPopulate(sort=sort), "live"
    )
    order = sql(statement).partition("ORDER BY ")[2]
    assert order.startswith("articles_categories_links.article_id, ")
    assert order.index('categories.name COLLATE "C" DESC') < order.index("categories.id ASC")
    assert "category_order" not in order


def test_a_per_parent_limit_keeps_a_window_of_row_numbers() -> None:
    statement, *_ = populator()._relation_statement(
        article(), "categories", RelationPopulate(fields=("name",), limit=2, offset=1), "live"
    )
    text = sql(statement)
    assert (
        "row_number() OVER (PARTITION BY articles_categories_links.article_id"
        " ORDER BY articles_categories_links.category_order, articles_categories_links.id)"
        " AS __row"
    ) in text
    assert text.endswith(
        "WHERE anon_1.__row > %(row_1)s::INTEGER AND anon_1.__row <= %(row_2)s::INTEGER"
        " ORDER BY anon_1.__parent, anon_1.__row"
    )
    bound = parameters(statement)
    assert (bound["row_1"], bound["row_2"]) == (1, 3)  # ranks 2 and 3: offset 1, limit 2


def test_a_limit_on_a_to_one_relation_numbers_nothing() -> None:
    statement, _, _, to_many = populator()._relation_statement(
        article(), "author", RelationPopulate(limit=1, offset=5), "live"
    )
    assert not to_many
    assert "row_number" not in sql(statement)


def test_localizations_read_the_entries_own_table_through_the_localizations_link() -> None:
    statement, columns, target, to_many = populator()._relation_statement(
        article(), "localizations", RelationPopulate(fields=("title",)), "preview"
    )
    assert target.uid == ARTICLE and to_many
    assert columns == [("id", "id"), ("title", "title")]
    assert (
        "FROM articles_localizations_links JOIN articles"
        " ON articles.id = articles_localizations_links.inv_article_id"
    ) in sql(statement)


def test_another_reading_of_an_attribute_reads_the_attribute() -> None:
    first, *_ = populator()._relation_statement(article(), "categories", RelationPopulate(), "live")
    second, *_ = populator()._relation_statement(
        article(), "categories#1", RelationPopulate(), "live"
    )
    assert sql(first) == sql(second)


# ------------------------------------------------------------------ relations together


def two_relations(**categories: Any) -> dict[str, RelationPopulate]:
    return {
        "author": RelationPopulate(fields=("name", "born")),
        "categories": RelationPopulate(fields=("name",), **categories),
    }


def test_relations_of_a_level_are_one_union_of_json_rows_on_postgresql() -> None:
    together = populator()._relations_together(article(), two_relations(limit=2), "live")
    assert together is not None
    text = sql(together.statement)
    assert text.startswith("SELECT anon_1.relation, anon_1.__parent, anon_1.row FROM (SELECT 0")
    assert text.count(" UNION ALL ") == 1
    assert "jsonb_build_object('id', authors.id, 'name', authors.name, 'born', authors.born)" in (
        text
    )
    assert "jsonb_build_object('id', categories.id, 'name', categories.name)" in text
    assert text.endswith("ORDER BY anon_1.relation, anon_1.__parent, anon_1.__row")
    # only the limited to-many arm keeps a window of ranks
    assert text.count("__row > %(row_1)s") == 1
    assert (parameters(together.statement)["row_1"], parameters(together.statement)["row_2"]) == (
        0,
        2,
    )
    author, categories = together.members
    assert (author.name, author.to_many, author.columns) == (
        "author",
        False,
        (("id", "id"), ("name", "name"), ("born", "born")),
    )
    assert [column for column, _ in author.readers] == ["born"]  # a date comes back as text
    assert (categories.name, categories.to_many, categories.readers) == ("categories", True, ())


def test_relations_together_are_built_once_per_shape() -> None:
    reader = populator()
    first = reader._relations_together(article(), two_relations(), "live")
    assert reader._relations_together(article(), two_relations(), "live") is first
    assert reader._relations_together(article(), two_relations(), "preview") is not first


@pytest.mark.parametrize(
    "nodes",
    [
        {"author": RelationPopulate()},  # one relation: its own statement
        {"author": RelationPopulate(), "categories": RelationPopulate(count=True)},
        {"author": RelationPopulate(), "localizations": RelationPopulate()},
    ],
)
def test_some_levels_keep_one_statement_per_relation(nodes: Any) -> None:
    assert populator()._relations_together(article(), nodes, "live") is None


def test_sqlite_reads_one_statement_per_relation() -> None:
    assert populator("sqlite")._relations_together(article(), two_relations(), "live") is None


def test_a_filter_value_that_cannot_be_hashed_reads_one_by_one() -> None:
    listed = Comparison("name", "string", "$in", ["a", "b"])
    nodes = two_relations(filters=listed)
    assert populator()._relations_together(article(), nodes, "live") is None


def test_a_level_kept_apart_stays_apart() -> None:
    reader = populator()
    nodes = two_relations()
    key_of_level = reader._relations_together(article(), nodes, "live")
    assert key_of_level is not None
    (key,) = reader._statements.keys()
    reader._statements.put(key, APART)  # as a target of more than 45 columns leaves it
    assert reader._relations_together(article(), nodes, "live") is None


# ------------------------------------------------------------------ components together


def test_components_of_a_level_are_one_statement_with_to_jsonb_on_postgresql() -> None:
    nodes: ComponentNodes = {
        "seo": ComponentPopulate(),
        "blocks": DynamicZonePopulate(on={"blocks.quote": ComponentPopulate()}),
    }
    text = sql(populator()._components_together(article(), nodes))
    assert text.startswith(
        "SELECT articles_components.entity_id, articles_components.field,"
        " articles_components.component_type, articles_components.component_id, CASE WHEN"
    )
    # the types the fields may hold, sorted; ``on`` leaves blocks.media and rich-text out
    assert text.index("to_jsonb(components_blocks_quotes)") < text.index(
        "to_jsonb(components_shared_seos)"
    )
    assert "components_blocks_media" not in text and "rich_texts" not in text
    assert text.endswith('ORDER BY articles_components."order", articles_components.id')


def test_components_together_are_keyed_by_the_zones_choices() -> None:
    reader = populator()
    quotes: ComponentNodes = {
        "blocks": DynamicZonePopulate(on={"blocks.quote": ComponentPopulate()})
    }
    every: ComponentNodes = {"blocks": DynamicZonePopulate()}
    first = reader._components_together(article(), quotes)
    assert reader._components_together(article(), quotes) is first
    assert reader._components_together(article(), every) is not first
    assert "components_blocks_media" in sql(reader._components_together(article(), every))


@pytest.mark.parametrize(
    "nodes",
    [
        {"links": ComponentPopulate(sort=(SortKey((), "label", "string"),))},
        {"links": ComponentPopulate(filters=Comparison("label", "string", "$eq", "x"))},
        {
            "blocks": DynamicZonePopulate(
                on={"blocks.quote": ComponentPopulate(sort=(SortKey((), "title", "string"),))}
            )
        },
    ],
)
def test_a_filtered_or_sorted_component_field_reads_per_type(nodes: Any) -> None:
    assert populator()._components_together(article(), nodes) is None


def test_sqlite_reads_components_per_type() -> None:
    assert populator("sqlite")._components_together(article(), {"seo": ComponentPopulate()}) is None
