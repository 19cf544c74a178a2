"""Query AST → SQLAlchemy expressions: WHERE, ORDER BY, and the visibility of entries.

- A filter through a relation or component compiles to ``EXISTS (…)`` correlated on the outer
  row, so a parent matching through several related rows appears once and ``count(*)`` over the
  same WHERE is exact.
- Where a filter through a relation needs nothing of the related entry but its id (conditions on
  ``id``, filters through its own relations or components, ``$null``), the ``EXISTS`` reads the
  link table alone: the link's target column *is* that id (a foreign key, ``ON DELETE CASCADE``,
  in Strapi's layout too, so a link row always has its entry). Besides a join less, this lets
  PostgreSQL probe a nested relation filter per candidate row: for
  ``filters[author][books][pages][$gt]=900`` the page joined ``authors`` and the planner
  materialized "authors having such a book" for all authors (1,700 index probes, 2.8 ms at
  50,000 books); correlated on ``books_author_links.author_id`` it stops at the first match of
  each candidate book's author (200 probes, 0.6 ms at 5,000 and 50,000 books alike).
- A sort through a relation or component compiles to a correlated ``MIN`` (ascending) or
  ``MAX`` (descending) sub-query, so each parent appears once even through a to-many relation.
  A list page sorted through to-one relations only (``sort=author.name``) joins them instead
  (``LEFT OUTER JOIN``: at most one row each, so the same order and no duplicates):
  PostgreSQL evaluated the sub-query once per book, 5,000 probes for a page, and answered 26
  requests a second where Strapi's join answered 152 (``bench/random_queries.py``).
- Long ``$or``/``$and`` lists (an array of up to 1,000 values given to a non-array operator, or
  as many ``$or`` branches) compile to a balanced tree of parenthesised halves: SQLite parses
  ``a OR b OR …`` into a tree as deep as the list is long and refuses a statement deeper than
  1,000 ("Expression tree is too large"), which answered 500.
- Every ORDER BY ends with the primary key; ``NULLS LAST`` ascending and ``NULLS FIRST``
  descending (PostgreSQL's defaults) and byte-wise string order (``COLLATE "C"`` on PostgreSQL,
  SQLite's ``BINARY``) make SQLite and PostgreSQL return the same order for the same data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Boolean,
    ColumnElement,
    FromClause,
    Select,
    and_,
    exists,
    not_,
    or_,
    select,
    true,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlalchemy.sql.elements import UnaryExpression
from sqlalchemy.sql.visitors import InternalTraversal

from contentapi.db.dialect import Dialect
from contentapi.db.tables import ContentTables
from contentapi.query.ast import And, Comparison, Filter, Not, Or, SortKey, Through
from contentapi.query.jsonb import JSON_KINDS, json_condition
from contentapi.query.operators import OPERATORS, STRING_KINDS
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    Model,
    RelationAttribute,
    RelationLink,
)
from contentapi.schema.naming import snake_case
from contentapi.schema.registry import Registry

__all__ = ["Compiler", "localizations_link", "through_relations_alone"]

#: a row's columns by name: a table's ``.c``, or ``{"id": link column}`` (``Compiler._exists``)
Columns = Mapping[str, Any] | ReadOnlyColumnCollection[str, Any]


def localizations_link(tables: ContentTables, model: Model) -> RelationLink:
    """The localizations of a localized content type, seen as a to-many relation to itself."""
    assert isinstance(model, ContentType)
    own = snake_case(f"{model.singular_name}_id")
    return RelationLink(
        table=tables.localizations[model.uid].name,
        source_column=own,
        target_column=f"inv_{own}",
        order_column=snake_case(f"{model.singular_name}_order"),
        inverse_order_column=None,
        owner=True,
    )


class Compiler:
    """Compiles filters and sorts of any model of the registry for one SQL dialect."""

    def __init__(self, registry: Registry, tables: ContentTables, dialect: Dialect) -> None:
        self.registry = registry
        self.tables = tables
        #: what the SQL differs in between the databases (``db/dialect.py``)
        self.sql = dialect

    def model(self, uid: str) -> Model:
        return self.registry.model(uid)

    # ------------------------------------------------------------ visibility

    def visible(
        self,
        content_type: ContentType,
        table: FromClause,
        publication_state: str,
        locale: str | None,
        default_locale: str | None,
    ) -> ColumnElement[bool]:
        """Rows a read may see: published ones in ``live``; one locale when localized."""
        conditions: list[ColumnElement[bool]] = []
        if self.hides_drafts(content_type, publication_state):
            conditions.append(table.c.published_at.is_not(None))
        if self._holds_to_locale(content_type, locale, default_locale):
            wanted = default_locale if locale is None else locale
            conditions.append(table.c.locale == wanted)
        return and_(true(), *conditions)

    def sees_every_row(
        self,
        content_type: ContentType,
        publication_state: str,
        locale: str | None,
        default_locale: str | None,
    ) -> bool:
        """Whether ``visible`` asks nothing of a row: no drafts hidden, no locale held to."""
        return not self.hides_drafts(content_type, publication_state) and not self._holds_to_locale(
            content_type, locale, default_locale
        )

    @staticmethod
    def _holds_to_locale(
        content_type: ContentType, locale: str | None, default_locale: str | None
    ) -> bool:
        wanted = default_locale if locale is None else locale
        return content_type.localized and locale != "all" and wanted is not None

    @staticmethod
    def hides_drafts(content_type: ContentType, publication_state: str) -> bool:
        """Whether a read in ``publication_state`` sees only the published rows."""
        return content_type.draft_and_publish and publication_state == "live"

    # ------------------------------------------------------------ filters

    def where(self, model: Model, table: FromClause, node: Filter | None) -> ColumnElement[bool]:
        if node is None:
            return true()
        return self._where(model, table.c, node)

    def _where(self, model: Model, columns: Columns, node: Filter) -> ColumnElement[bool]:
        """``node`` on the row whose columns are ``columns`` (a table's, or only ``id``: the
        link column standing for a related entry, ``_exists``)."""
        if isinstance(node, Comparison):
            operator = OPERATORS[node.operator]
            column: Any = columns[node.column]
            if node.kind in JSON_KINDS:
                return json_condition(column, node.operator, node.value, self.sql)
            if node.text_of is not None:
                column = self.sql.text_of(column, node.text_of)
            return operator.build(column, node.value, self.sql)
        if isinstance(node, And):
            return _balanced(and_, [self._where(model, columns, item) for item in node.items])
        if isinstance(node, Or):
            return _balanced(or_, [self._where(model, columns, item) for item in node.items])
        if isinstance(node, Not):
            return not_(self._where(model, columns, node.item))
        return self._exists(model, columns["id"], node)

    def _exists(
        self, model: Model, outer_id: ColumnElement[Any], node: Through
    ) -> ColumnElement[bool]:
        attribute = model.attributes.get(node.attribute)
        target = self.model(node.target)
        if attribute is None or isinstance(attribute, RelationAttribute):
            link = (
                model.links[node.attribute]
                if attribute is not None
                else localizations_link(self.tables, model)
            )
            link_table = (
                self.tables.link(link).alias()
                if attribute is not None
                else self.tables.localizations[model.uid].alias()
            )
            condition = link_table.c[link.source_column] == outer_id
            if node.filter is None:
                found = exists().where(condition)
            elif _needs_only_id(node.filter):  # the link row stands for the entry (module doc)
                target_id = link_table.c[link.target_column]
                found = exists().where(
                    condition, self._where(target, {"id": target_id}, node.filter)
                )
            else:
                target_table = self.tables.entity(target.uid).alias()
                found = exists().where(
                    condition,
                    target_table.c.id == link_table.c[link.target_column],
                    self._where(target, target_table.c, node.filter),
                )
        else:
            # component join rows are not foreign keys of the component tables: always joined
            assert isinstance(attribute, ComponentAttribute)
            join = self.tables.component_joins[model.uid].alias()
            condition = and_(
                join.c.entity_id == outer_id,
                join.c.field == node.attribute,
                join.c.component_type == target.uid,
            )
            if node.filter is None:
                found = exists().where(condition)
            else:
                target_table = self.tables.entity(target.uid).alias()
                found = exists().where(
                    condition,
                    target_table.c.id == join.c.component_id,
                    self._where(target, target_table.c, node.filter),
                )
        return not_(found) if node.negated else found

    # ------------------------------------------------------------ sort

    def sorted_page(
        self, statement: Select[Any], model: Model, table: FromClause, keys: Sequence[SortKey]
    ) -> Select[Any]:
        """``statement`` (rows of ``table``) ordered by ``keys``, then the primary key; a key
        through to-one relations only is read through outer joins (module doc)."""
        terms: list[UnaryExpression[Any]] = []
        for key in keys:
            if key.path and self._to_one_path(model, key.path):
                statement, related = self._join_path(statement, model, table, key.path)
                terms.append(_directed(self._sortable(related.c[key.column], key.kind), key))
            else:
                terms += self.sort_terms(model, table, [key])
        return statement.order_by(*terms, table.c.id.asc())

    @staticmethod
    def sorts_unindexed(model: Model, keys: Sequence[SortKey]) -> bool:
        """Whether ``keys`` sort on columns of the row itself, the first of which no index
        serves: such a page is best found on the ids alone (``entries/reads.py``). A first
        key with an index is read in the index's order, a few rows, and a key through a
        relation is its own sub-query: neither gains from it."""
        if not keys or any(key.path for key in keys):
            return False
        first = keys[0].column
        if first == "id":
            return False
        for attribute in model.scalars():
            if attribute.column == first and (attribute.indexed or attribute.type == "uid"):
                return False
        indexes = model.indexes if isinstance(model, ContentType) else ()
        return not any(index[0] == first for index in indexes)

    @staticmethod
    def sorts_on_id(keys: Sequence[SortKey]) -> bool:
        """Whether ``keys`` sort on the row's id alone (or nothing: the default order)."""
        return all(not key.path and key.column == "id" for key in keys)

    def _to_one_path(self, model: Model, path: Sequence[str]) -> bool:
        """Whether every step of ``path`` is a to-one relation."""
        current: Model = model
        for step in path:
            attribute = current.attributes.get(step)
            if not isinstance(attribute, RelationAttribute) or attribute.is_to_many:
                return False
            current = self.registry.content_types[attribute.target]
        return True

    def _join_path(
        self, statement: Select[Any], model: Model, table: FromClause, path: Sequence[str]
    ) -> tuple[Select[Any], FromClause]:
        """``statement`` outer-joined through the to-one relations of ``path``; the last
        related table."""
        current: Model = model
        source: Any = table.c.id
        target_table: FromClause = table
        for step in path:
            attribute = current.attributes[step]
            assert isinstance(attribute, RelationAttribute)
            link = current.links[step]
            link_table = self.tables.link(link).alias()
            current = self.registry.content_types[attribute.target]
            target_table = self.tables.entity(current.uid).alias()
            statement = statement.outerjoin(
                link_table, link_table.c[link.source_column] == source
            ).outerjoin(target_table, target_table.c.id == link_table.c[link.target_column])
            source = target_table.c.id
        return statement, target_table

    def order_by(
        self, model: Model, table: FromClause, keys: Sequence[SortKey]
    ) -> list[UnaryExpression[Any]]:
        """ORDER BY terms for ``keys``, always ending with the primary key."""
        return [*self.sort_terms(model, table, keys), table.c.id.asc()]

    def sort_terms(
        self, model: Model, table: FromClause, keys: Sequence[SortKey]
    ) -> list[UnaryExpression[Any]]:
        """ORDER BY terms for ``keys`` alone, for a caller that breaks ties its own way
        (populated components and media: by their attached order, as Strapi's join does)."""
        terms: list[UnaryExpression[Any]] = []
        for key in keys:
            if key.path:
                expression: Any = self._related_value(model, table, key)
            else:
                expression = self._sortable(table.c[key.column], key.kind)
            terms.append(_directed(expression, key))
        return terms

    def _related_value(self, model: Model, outer: FromClause, key: SortKey) -> Any:
        """Correlated ``MIN``/``MAX`` of a column reached through relations or components."""
        current: Model = model
        source: Any = outer.c.id
        joins: list[tuple[FromClause, ColumnElement[bool]]] = []
        anchor: ColumnElement[bool] | None = None
        target_table: FromClause | None = None
        for step in key.path:
            attribute = current.attributes[step]
            if isinstance(attribute, RelationAttribute):
                link = current.links[step]
                link_table = self.tables.link(link).alias()
                following: Model = self.registry.content_types[attribute.target]
                target_table = self.tables.entity(following.uid).alias()
                link_condition = link_table.c[link.source_column] == source
                step_join = target_table.c.id == link_table.c[link.target_column]
            else:
                assert isinstance(attribute, ComponentAttribute)
                link_table = self.tables.component_joins[current.uid].alias()
                following = self.registry.components[attribute.component]
                target_table = self.tables.entity(following.uid).alias()
                link_condition = and_(
                    link_table.c.entity_id == source,
                    link_table.c.field == step,
                    link_table.c.component_type == following.uid,
                )
                step_join = target_table.c.id == link_table.c.component_id
            if anchor is None:
                anchor = link_condition
                joins.append((link_table, true()))
            else:
                joins.append((link_table, link_condition))
            joins.append((target_table, step_join))
            source = target_table.c.id
            current = following
        assert anchor is not None and target_table is not None
        from_clause: Any = joins[0][0]
        for joined, on in joins[1:]:
            from_clause = from_clause.join(joined, on)
        column = self._sortable(target_table.c[key.column], key.kind)
        if key.kind in JSON_KINDS:
            aggregate = self.sql.json_extreme(column, key.descending)
        elif key.kind == "boolean":  # `sort=featured.featured` on categories
            aggregate = self.sql.boolean_extreme(column, key.descending)
        else:
            aggregate = self.sql.extreme(column, key.descending)
        return select(aggregate).select_from(from_clause).where(anchor).scalar_subquery()

    def _sortable(self, column: Any, kind: str) -> Any:
        """Strings compare byte-wise on PostgreSQL as on SQLite (inside the aggregate, so the
        minimum of related values is the byte-wise one too)."""
        if kind in STRING_KINDS:
            return self.sql.byte_order(column)
        if kind in JSON_KINDS:
            return self.sql.json_sortable(column)
        return column


def _directed(expression: Any, key: SortKey) -> UnaryExpression[Any]:
    """``expression`` in ``key``'s direction, nulls where PostgreSQL puts them (module doc)."""
    return expression.desc().nulls_first() if key.descending else expression.asc().nulls_last()


def _needs_only_id(node: Filter) -> bool:
    """Whether ``node`` reads nothing of its row but the id: comparisons on ``id`` and filters
    through the row's own relations or components, however combined."""
    if isinstance(node, Comparison):
        return node.column == "id"
    if isinstance(node, And | Or):
        return all(_needs_only_id(item) for item in node.items)
    if isinstance(node, Not):
        return _needs_only_id(node.item)
    return True  # a Through: correlated on the id alone


#: Up to this many operands are joined flat; longer lists are split in halves.
_FLAT_OPERANDS = 32


def _balanced(
    combine: Callable[..., ColumnElement[bool]], parts: Sequence[ColumnElement[bool]]
) -> ColumnElement[bool]:
    """``combine(*parts)`` as a tree of parenthesised halves, ``log2(n)`` deep (module doc)."""
    if len(parts) <= _FLAT_OPERANDS:
        return combine(*parts)
    middle = len(parts) // 2
    return combine(
        _Parenthesised(_balanced(combine, parts[:middle])),
        _Parenthesised(_balanced(combine, parts[middle:])),
    )


class _Parenthesised(ColumnElement[bool]):
    """A condition rendered in parentheses that ``and_``/``or_`` keep (they flatten a
    ``Grouping`` of their own operator back into the list)."""

    inherit_cache = True
    _traverse_internals = [("clause", InternalTraversal.dp_clauseelement)]
    type = Boolean()

    def __init__(self, clause: ColumnElement[bool]) -> None:
        self.clause = clause


@compiles(_Parenthesised)
def _render_parenthesised(element: _Parenthesised, compiler: Any, **kw: Any) -> str:
    return f"({compiler.process(element.clause, **kw)})"


def through_relations_alone(node: Filter | None) -> bool:
    """Whether a filter asks only of related entries or components (``Through`` at every
    branch), nothing of the row's own columns."""
    if node is None:
        return False
    if isinstance(node, Through):
        return True
    if isinstance(node, And | Or):
        return bool(node.items) and all(through_relations_alone(item) for item in node.items)
    if isinstance(node, Not):
        return through_relations_alone(node.item)
    return False
