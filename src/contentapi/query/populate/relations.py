"""Populated relations read one statement per relation and level (and localizations, read as
a relation of an entry to the other entries of its localization group).

``_relation_parts`` is what reading a relation joins, keeps and orders by; the one-relation
statement here and the batched PostgreSQL one (``batched.py``) and the counts
(``counts.py``) are built on it. A per-parent limit numbers each parent's rows
(``ROW_NUMBER() OVER (PARTITION BY parent …)``) and keeps the window asked for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import FromClause, Select, func, select

from contentapi.query.ast import RelationPopulate, attribute_of
from contentapi.query.compile import localizations_link
from contentapi.query.parse import LOCALIZATIONS
from contentapi.query.populate.base import Level, PopulatorBase
from contentapi.query.populate.columns import PARENT, ROW, Entry, select_columns
from contentapi.schema.model import ContentType, Model, RelationAttribute

__all__ = ["RelationParts", "RelationReader"]


@dataclass(frozen=True, slots=True)
class RelationParts:
    """What reading one populated relation joins (``source``), keeps (``conditions``, the
    parent ids bound as ``ids``) and orders by (``order``, the parent first)."""

    source: Any
    conditions: list[Any]
    order: list[Any]
    parent: Any
    columns: list[tuple[str, str]]
    target: ContentType
    target_table: Any
    to_many: bool


class RelationReader(PopulatorBase):
    """Reads populated relations, one statement per relation of a level."""

    def _relation_parts(
        self, model: Model, name: str, node: RelationPopulate, publication_state: str
    ) -> RelationParts:
        """What reading a populated relation joins, keeps and orders by (for the parent ids
        bound as ``ids``); ``_relation_statement``, ``_relations_together`` and ``_count``
        build on it."""
        name = attribute_of(name)  # the key may name another reading of the attribute
        if name == LOCALIZATIONS:
            assert isinstance(model, ContentType)
            link = localizations_link(self.tables, model)
            link_table: FromClause = self.tables.localizations[model.uid]
            target: ContentType = model
            to_many = True
        else:
            attribute = model.attributes[name]
            assert isinstance(attribute, RelationAttribute)
            link = model.links[name]
            link_table = self.tables.link(link)
            target = self.registry.content_types[attribute.target]
            to_many = attribute.is_to_many
        target_table = self.tables.entity(target.uid)
        columns = select_columns(target, node.fields)
        parent = link_table.c[link.source_column]
        order: list[Any] = [parent]
        if node.sort:
            order += self.compiler.order_by(target, target_table, node.sort)
        else:
            if link.order_column:
                order.append(link_table.c[link.order_column])
            order += [link_table.c.id]
        conditions = [
            self.compiler.sql.among(parent),
            self.compiler.visible(target, target_table, publication_state, "all", None),
            self.compiler.where(target, target_table, node.filters),
        ]
        source = link_table.join(
            target_table, target_table.c.id == link_table.c[link.target_column]
        )
        return RelationParts(
            source, conditions, order, parent, columns, target, target_table, to_many
        )

    def _relation_statement(
        self, model: Model, name: str, node: RelationPopulate, publication_state: str
    ) -> Any:
        """The statement reading a populated relation for the parent ids bound as ``ids``
        (built once per relation, node and publication state: ``_relation`` caches it, so a
        repeated request skips building it and SQLAlchemy's cache-key walk), as
        ``(statement, columns, target, to_many)``."""
        parts = self._relation_parts(model, name, node, publication_state)
        source, conditions, order, parent = (
            parts.source,
            parts.conditions,
            parts.order,
            parts.parent,
        )
        columns, target, target_table = parts.columns, parts.target, parts.target_table
        to_many = parts.to_many
        selected = [parent.label(PARENT), *(target_table.c[c] for c, _ in columns)]
        statement: Select[Any]
        if node.limit is not None and to_many:
            numbered = (
                select(
                    *selected,
                    func.row_number().over(partition_by=parent, order_by=order[1:]).label(ROW),
                )
                .select_from(source)
                .where(*conditions)
                .subquery()
            )
            statement = (
                select(numbered)
                .where(numbered.c[ROW] > node.offset, numbered.c[ROW] <= node.offset + node.limit)
                .order_by(numbered.c[PARENT], numbered.c[ROW])
            )
        else:
            statement = select(*selected).select_from(source).where(*conditions).order_by(*order)
        return statement, columns, target, to_many

    async def _relation(self, level: Level, name: str, node: RelationPopulate) -> None:
        conn, model, ids = level.conn, level.model, level.ids
        publication_state = node.publication_state or level.publication_state
        key = (model.uid, name, node.fields, node.filters, node.sort, node.limit, node.offset)
        cache_key: tuple[Any, ...] | None = (*key, node.publication_state, publication_state)
        try:
            cached = self._statements.get(cache_key)
        except TypeError:  # a filter value that cannot be hashed (a list): not cached
            cached, cache_key = None, None
        if cached is None:
            cached = self._relation_statement(model, name, node, publication_state)
            if cache_key is not None:
                self._keep(cache_key, cached)
        statement, columns, target, to_many = cached
        # plain rows: the parent id first, then the columns in ``columns`` order
        names = [name for _, name in columns]
        stop = 1 + len(names)
        if cache_key is not None:
            rows = await self.kept.rows(conn, statement, {"ids": ids})
        else:
            rows = (await conn.execute(statement, {"ids": ids})).all()
        by_parent: dict[int, list[Entry]] = defaultdict(list)
        related: list[Entry] = []
        for row in rows:
            entry = dict(zip(names, row[1:stop], strict=True))
            by_parent[int(row[0])].append(entry)
            related.append(entry)
        for entry in level.entries:
            mine = by_parent.get(int(entry["id"]), [])
            entry[name] = mine if to_many else (mine[0] if mine else None)
        await self.run(conn, target, related, node.populate, publication_state)
