"""What a relation write reads before it stores anything: which of the referenced targets
exist (Strapi's error names those that do not). The entry's current link rows are read by
``relation_store.LinkStore``, with the statements that write them.

``RelationReads`` builds each statement once per target table and runs it through
``KeptStatements`` — on PostgreSQL straight on the driver, inside the transaction that holds
the entry's row lock, where every microsecond counts; an update's target check may instead
ride on the entry's ``UPDATE`` (``target_reads``). Apart from ``writer.py``, which decides
when these reads run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, func, select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.dialect import Dialect
from contentapi.db.driver import KeptStatements
from contentapi.db.tables import ContentTables
from contentapi.entries.relations import RelationWrite
from contentapi.entries.write_plan import ModelWrite
from contentapi.errors import FieldError, ValidationError
from contentapi.schema.model import Model, RelationAttribute

__all__ = ["RelationReads", "check_existing", "fail"]


def check_existing(
    attribute: RelationAttribute, write: RelationWrite, existing: Sequence[Any]
) -> None:
    """Strapi's error for relation targets that do not exist, ``existing`` being those that do."""
    found = {int(entry_id) for entry_id in existing}
    missing = [entry_id for entry_id in write.referenced_ids() if entry_id not in found]
    if missing:
        raise fail(
            write.path,
            f"{len(missing)} relation(s) of type {attribute.target} associated with this "
            f"entity do not exist: {', '.join(map(str, missing))}",
        )


def fail(path: tuple[str | int, ...], message: str) -> ValidationError:
    """One problem at ``path`` as the ``ValidationError`` a write raises (the writer's too),
    which rolls its transaction back."""
    return ValidationError.from_errors([FieldError(path, message)])


class RelationReads:
    """The target checks relation writes make, their statements kept per target."""

    def __init__(self, tables: ContentTables, *, dialect: Dialect, kept: KeptStatements) -> None:
        self.tables = tables
        self.dialect = dialect
        #: runs the target checks, built once per target: on PostgreSQL straight on the
        #: driver, inside the transaction that holds the entry's row lock
        self.kept = kept
        self._reads: dict[Any, Any] = {}

    async def check_targets(
        self, conn: AsyncConnection, attribute: RelationAttribute, write: RelationWrite
    ) -> None:
        """The targets ``write`` references exist, or Strapi's error naming those that do not."""
        referenced = write.referenced_ids()
        if not referenced:
            return
        target = self.tables.entity(attribute.target)
        existing = [row[0] for row in await self.existing(conn, target, referenced)]
        check_existing(attribute, write, existing)

    def target_reads(
        self, model: Model, write: ModelWrite
    ) -> list[tuple[RelationAttribute, RelationWrite, list[int]]]:
        """The relation writes that reference targets, with the ids they reference: their
        ``target_read``s return with the entry's ``UPDATE``."""
        reads: list[tuple[RelationAttribute, RelationWrite, list[int]]] = []
        for name, relation in write.relations.items():
            attribute = model.attributes[name]
            assert isinstance(attribute, RelationAttribute)
            referenced = relation.referenced_ids()
            if referenced:
                reads.append((attribute, relation, list(referenced)))
        return reads

    def target_read(self, attribute: RelationAttribute, name: str) -> Any:
        """The ids among those bound as ``name`` that exist as targets of ``attribute``, as a
        scalar subquery (an array, ``NULL`` for none)."""
        target = self.tables.entity(attribute.target)
        among = self.dialect.among(target.c.id, name=name)
        return select(func.array_agg(target.c.id)).where(among).scalar_subquery().label(name)

    async def existing(
        self, conn: AsyncConnection, target: Table, ids: Sequence[int]
    ) -> Sequence[Sequence[Any]]:
        """The rows of ``ids`` that exist in ``target`` (their ids)."""
        statement = self._reads.get(("exists", target.name))
        if statement is None:
            among = self.dialect.among(target.c.id)
            statement = self._reads[("exists", target.name)] = select(target.c.id).where(among)
        return await self.kept.rows(conn, statement, {"ids": list(ids)})
