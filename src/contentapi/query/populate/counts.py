"""``populate[relation][count]=true``: the number of related entries instead of them.

One grouped statement per counted relation and level, on the same join and conditions as
reading the relation (``RelationReader._relation_parts``); each entry gets a
``RelationCount``, which the serializer writes as ``{"count": n}``.

Where nothing is asked of the related entries (no ``filters``, no drafts to leave out), the
statement counts the link rows alone: a link's target column is a foreign key with
``ON DELETE CASCADE``, so each link row stands for one existing entry. PostgreSQL then reads
the link table's index on the parent column only, where joining the entries hashed every
related id (``populate[books][count]=true`` on two publishers: 1.1 ms → about 0.1 ms).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from contentapi.query.ast import RelationPopulate
from contentapi.query.populate.base import Level
from contentapi.query.populate.relations import RelationReader

__all__ = ["CountReader", "RelationCount"]


@dataclass(frozen=True, slots=True)
class RelationCount:
    """``populate[relation][count]=true``: the number of related entries instead of them."""

    count: int


class CountReader(RelationReader):
    """Counts populated relations, one statement per counted relation of a level."""

    async def _count(self, level: Level, name: str, node: RelationPopulate) -> None:
        publication_state = node.publication_state or level.publication_state
        parts = self._relation_parts(level.model, name, node, publication_state)
        parent = parts.parent
        if node.filters is None and not self.compiler.hides_drafts(parts.target, publication_state):
            source, conditions = parent.table, [self.compiler.sql.among(parent)]
        else:
            source, conditions = parts.source, parts.conditions
        counted = (
            select(parent, func.count()).select_from(source).where(*conditions).group_by(parent)
        )
        found = await level.conn.execute(counted, {"ids": level.ids})
        totals: dict[int, int] = {int(p): int(n) for p, n in found.all()}
        for entry in level.entries:
            entry[name] = RelationCount(int(totals.get(int(entry["id"]), 0)))
