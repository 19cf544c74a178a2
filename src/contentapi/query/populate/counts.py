"""``populate[relation][count]=true``: the number of related entries instead of them.

One grouped statement per counted relation and level, on the same join and conditions as
reading the relation (``RelationReader._relation_parts``); each entry gets a
``RelationCount``, which the serializer writes as ``{"count": n}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contentapi.query.ast import RelationPopulate
from contentapi.query.populate.columns import Entry
from contentapi.query.populate.relations import RelationReader
from contentapi.schema.model import Model

__all__ = ["CountReader", "RelationCount"]


@dataclass(frozen=True, slots=True)
class RelationCount:
    """``populate[relation][count]=true``: the number of related entries instead of them."""

    count: int


class CountReader(RelationReader):
    """Counts populated relations, one statement per counted relation of a level."""

    async def _count(
        self,
        conn: AsyncConnection,
        model: Model,
        name: str,
        node: RelationPopulate,
        entries: Sequence[Entry],
        ids: list[int],
        publication_state: str,
    ) -> None:
        publication_state = node.publication_state or publication_state
        parts = self._relation_parts(model, name, node, publication_state)
        parent = parts.parent
        counted = (
            select(parent, func.count())
            .select_from(parts.source)
            .where(*parts.conditions)
            .group_by(parent)
        )
        found = await conn.execute(counted, {"ids": ids})
        totals: dict[int, int] = {int(p): int(n) for p, n in found.all()}
        for entry in entries:
            entry[name] = RelationCount(int(totals.get(int(entry["id"]), 0)))
