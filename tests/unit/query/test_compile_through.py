"""The SQL a filter through relations compiles to (``query/compile.py``): the related entry's
table is joined only where the filter reads one of its columns other than ``id``; otherwise the
link row stands for it, so PostgreSQL can probe a nested relation filter per candidate row
(docs/benchmarks.md, deep filter)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from contentapi.db.dialect import dialect_named
from contentapi.db.tables import build_tables
from contentapi.query.compile import Compiler
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.query.qs import parse_query
from contentapi.schema import load_registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"


@pytest.fixture(scope="module")
def compile_filter():
    registry = load_registry(MODELS)
    tables = build_tables(registry)
    parser = QueryParser(registry, QueryLimits())

    def sql(query: str, dialect: str = "postgresql") -> str:
        article = registry.content_types["api::article.article"]
        node = parser.filters(article, parse_query(query)["filters"])
        compiler = Compiler(registry, tables, dialect_named(dialect))
        where = compiler.where(article, tables.entity(article.uid), node)
        chosen = postgresql.dialect() if dialect == "postgresql" else sqlite.dialect()
        return str(where.compile(dialect=chosen))

    return sql


@pytest.mark.parametrize("dialect", ["postgresql", "sqlite"])
def test_nested_relation_filter_correlates_on_the_link(compile_filter, dialect):
    sql = compile_filter("filters[author][articles][title][$eq]=x", dialect)
    assert " authors " not in sql and "authors AS" not in sql, sql
    assert "articles_author_links_2.author_id = articles_author_links_1.author_id" in sql, sql


def test_ids_and_null_read_the_link_alone(compile_filter):
    for query in (
        "filters[author][id][$eq]=2",
        "filters[author]=2",
        "filters[categories][$in][0]=3",
        "filters[author][profile][$null]=true",
        "filters[categories][$or][0][id]=3&filters[categories][$or][1][parent][id]=1",
    ):
        sql = compile_filter(query)
        assert "authors AS" not in sql and "categories AS" not in sql, (query, sql)


def test_a_column_of_the_related_entry_joins_its_table(compile_filter):
    sql = compile_filter("filters[author][name][$eq]=Bob")
    assert "authors AS authors_1" in sql, sql
    mixed = compile_filter(
        "filters[categories][$or][0][name]=Tech&filters[categories][$or][1][parent][id]=1"
    )
    assert "categories AS categories_1" in mixed, mixed
    # components are joined always: their join rows are no foreign keys of component tables
    assert "components_shared_seos AS" in compile_filter("filters[seo][id][$eq]=1")
