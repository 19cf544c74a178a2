"""PostgreSQL's one statement per level: relations as a ``UNION ALL`` of ``jsonb_build_object``
rows, components as their join rows with ``to_jsonb``, and reading those JSON values back.

SQLite reads one statement per relation (``relations.py``) and per component type
(``components.py``); the dialect's ``json_rows`` (``db/dialect.py``) says which path a level takes.
Dates, times, floats and decimals come back from JSON as text or JSON numbers; the readers
made by ``json_readers`` turn them into what the column would have given.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from sqlalchemy import (
    Date,
    DateTime,
    Float,
    Numeric,
    Time,
    case,
    func,
    literal_column,
    null,
    select,
    union_all,
)

from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    RelationPopulate,
    attribute_of,
)
from contentapi.query.parse import LOCALIZATIONS
from contentapi.query.populate.base import Level, PopulatorBase
from contentapi.query.populate.columns import PARENT, ROW, Entry
from contentapi.query.populate.component_specs import wanted, zone_choices
from contentapi.query.populate.relations import RelationReader
from contentapi.schema.model import ComponentAttribute, ContentType, DynamicZoneAttribute, Model

__all__ = [
    "APART",
    "ComponentsBatch",
    "Member",
    "RelationsBatch",
    "RelationsTogether",
    "json_readers",
]

#: kept for a level whose relations cannot be read together (``_relations_together``)
APART = object()
#: at most this many columns of a target in ``jsonb_build_object`` (which takes at most 100
#: arguments: a name and a value per column)
MAX_JSON_COLUMNS = 45


@dataclass(frozen=True, slots=True)
class Member:
    """One relation of ``RelationsTogether``: where its rows go and how they are read."""

    name: str
    target: ContentType
    to_many: bool
    columns: tuple[tuple[str, str], ...]
    readers: tuple[tuple[str, Callable[[Any], Any]], ...]


@dataclass(frozen=True, slots=True)
class RelationsTogether:
    """The one statement of a level's relations and, by its ``relation`` column, its members."""

    statement: Any
    members: tuple[Member, ...]


def json_readers(
    table: Any, columns: Sequence[tuple[str, str]]
) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """How each selected column's value is read back from JSON, by its SQL type (the JSON
    form of the others is their Python one)."""
    readers: list[tuple[str, Callable[[Any], Any]]] = []
    for column, _ in columns:
        kind = table.c[column].type
        if isinstance(kind, DateTime):
            readers.append((column, datetime.fromisoformat))
        elif isinstance(kind, Date):
            readers.append((column, date.fromisoformat))
        elif isinstance(kind, Time):
            readers.append((column, time.fromisoformat))
        elif isinstance(kind, Numeric | Float):  # decimals; floats (not a Numeric in 2.1)
            readers.append((column, float))
    return tuple(readers)


class RelationsBatch(RelationReader):
    """Reads two or more populated relations of a level in one PostgreSQL statement."""

    def _relations_together(
        self, model: Model, nodes: dict[str, RelationPopulate], publication_state: str
    ) -> RelationsTogether | None:
        """On PostgreSQL, two or more populated relations of a level in one statement: each
        relation's own join, conditions and order (``_relation_parts``) as one arm of a
        ``UNION ALL`` that selects the relation's number, the parent id, the row's rank
        among its parent's (a per-parent limit keeps the ranks it asks for, as GraphQL's
        relation pagination does) and the related row as ``jsonb_build_object``. Not for
        counts, localizations or a target of more than 45 columns (a function takes at most
        100 arguments). ``None``: one statement per relation."""
        if not self.compiler.sql.json_rows or len(nodes) < 2:
            return None
        for name, node in nodes.items():
            if node.count or attribute_of(name) == LOCALIZATIONS:
                return None
        key = (
            "relations together",
            model.uid,
            tuple(
                (
                    name,
                    node.fields,
                    node.filters,
                    node.sort,
                    node.limit,
                    node.offset,
                    node.publication_state,
                )
                for name, node in nodes.items()
            ),
            publication_state,
        )
        try:
            found = self._statements.get(key)
        except TypeError:  # a filter value that cannot be hashed (a list): one by one
            return None
        if found is not None:
            return None if found is APART else found
        arms = []
        members: list[Member] = []
        for index, (name, node) in enumerate(nodes.items()):
            parts = self._relation_parts(
                model, name, node, node.publication_state or publication_state
            )
            if len(parts.columns) > MAX_JSON_COLUMNS:
                self._keep(key, APART)
                return None
            pairs: list[Any] = []
            for column, _ in parts.columns:
                pairs += [literal_column(f"'{column}'"), parts.target_table.c[column]]
            # ``order`` starts with the parent: the rank within each parent is the same order
            numbered = (
                select(
                    parts.parent.label(PARENT),
                    func.row_number()
                    .over(partition_by=parts.parent, order_by=parts.order[1:])
                    .label(ROW),
                    func.jsonb_build_object(*pairs).label("row"),
                )
                .select_from(parts.source)
                .where(*parts.conditions)
                .subquery()
            )
            arm = select(
                literal_column(str(index)).label("relation"),
                numbered.c[PARENT],
                numbered.c[ROW],
                numbered.c.row,
            )
            if node.limit is not None and parts.to_many:
                arm = arm.where(
                    numbered.c[ROW] > node.offset, numbered.c[ROW] <= node.offset + node.limit
                )
            arms.append(arm)
            members.append(
                Member(
                    name,
                    parts.target,
                    parts.to_many,
                    tuple(parts.columns),
                    json_readers(parts.target_table, parts.columns),
                )
            )
        union = union_all(*arms).subquery()
        statement = select(union.c.relation, union.c[PARENT], union.c.row).order_by(
            union.c.relation, union.c[PARENT], union.c[ROW]
        )
        return self._keep(key, RelationsTogether(statement, tuple(members)))

    async def _relations_at_once(
        self, level: Level, together: RelationsTogether, nodes: dict[str, RelationPopulate]
    ) -> None:
        """Run ``_relations_together``'s statement and attach each relation as ``_relation``
        does, then populate inside each (in the order asked) as this request's ``nodes`` say
        (the kept statement's key leaves nested populates out)."""
        by_parent: list[dict[int, list[Entry]]] = [defaultdict(list) for _ in together.members]
        related: list[list[Entry]] = [[] for _ in together.members]
        conn = level.conn
        for index, parent, values in await self.kept.rows(
            conn, together.statement, {"ids": level.ids}
        ):
            member = together.members[index]
            for column, read in member.readers:
                value = values[column]
                if value is not None:
                    values[column] = read(value)
            entry = {name: values[column] for column, name in member.columns}
            by_parent[index][int(parent)].append(entry)
            related[index].append(entry)
        for index, member in enumerate(together.members):
            for entry in level.entries:
                found = by_parent[index].get(int(entry["id"]), [])
                entry[member.name] = found if member.to_many else (found[0] if found else None)
        for index, member in enumerate(together.members):
            node = nodes[member.name]
            await self.run(
                conn,
                member.target,
                related[index],
                node.populate,
                node.publication_state or level.publication_state,
            )


class ComponentsBatch(PopulatorBase):
    """Reads a level's populated components in one PostgreSQL statement."""

    def _components_together(
        self, model: Model, nodes: dict[str, ComponentPopulate | DynamicZonePopulate]
    ) -> Any:
        """On PostgreSQL, when no populated component field filters or sorts its rows: one
        statement for the whole level — the join rows in their order, each with its
        component's row as ``to_jsonb`` (a ``CASE`` over the component tables the fields may
        hold, each a primary-key subquery). ``populate=*`` on a book with a component, a
        repeatable one and a two-type dynamic zone: one statement instead of five. ``None``
        otherwise."""
        if not self.compiler.sql.json_rows:
            return None
        for node in nodes.values():
            specs = [node] if isinstance(node, ComponentPopulate) else (node.on or {}).values()
            if any(spec.filters is not None or spec.sort for spec in specs):
                return None
        key = ("components together", model.uid, tuple(nodes), zone_choices(nodes))
        found = self._statements.get(key)
        if found is not None:
            return found
        types: set[str] = set()
        for name, node in nodes.items():
            attribute = model.attributes[attribute_of(name)]
            if isinstance(attribute, ComponentAttribute):
                types.add(attribute.component)
            elif isinstance(attribute, DynamicZoneAttribute):
                types.update(uid for uid in attribute.components if wanted(node, uid))
        join = self.tables.component_joins[model.uid]
        fields = list(dict.fromkeys(attribute_of(name) for name in nodes))
        cases = []
        for uid in sorted(uid for uid in types if uid in self.registry.components):
            # A scalar subquery per type inside the CASE: only the matching branch runs, one
            # primary-key probe per join row. (Outer joins of every component table let the
            # planner hash whole tables: 5.3 ms instead of 0.3 for 25 books.)
            table = self.tables.entity(uid)
            row = (
                select(func.to_jsonb(table.table_valued()))
                .where(table.c.id == join.c.component_id)
                .scalar_subquery()
            )
            cases.append((join.c.component_type == uid, row))
        values = case(*cases, else_=None) if cases else null()
        sql = self.compiler.sql
        statement = (
            select(join.c.entity_id, join.c.field, join.c.component_type, join.c.component_id)
            .add_columns(values)
            .where(sql.among(join.c.entity_id), sql.among(join.c.field, fields))
            .order_by(join.c.order, join.c.id)
        )
        return self._keep(key, statement)

    def _from_json(self, uid: str, values: dict[str, Any]) -> dict[str, Any]:
        """A component row read as ``to_jsonb``: the values of the columns whose JSON form is
        not their Python one turned back (dates and times from ISO text; floats and decimals,
        which PostgreSQL writes as exact decimals, possibly as integers, to ``float``)."""
        readers = self._readers.get(uid)
        if readers is None:
            table = self.tables.entity(uid)
            readers = json_readers(table, [(column.name, column.name) for column in table.c])
            self._readers[uid] = readers
        for column, convert in readers:
            value = values.get(column)
            if value is not None:
                values[column] = convert(value)
        return values
