"""What every reader of the populator shares: its collaborators and the built statements.

``Populator`` (``level.py``) is one class made of one reader per concept (relations, counts,
media, components, the batched PostgreSQL path), each a base class in its own module. They are
bases of one object rather than separate objects so that a reader populating the level below
calls ``self.run`` and every reader shares one cache of built statements through plain
attribute lookups — no delegation on the per-row paths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from contentapi.caching import RELATION_STATEMENTS, BoundedCache
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.driver import KeptStatements
from contentapi.db.tables import ContentTables
from contentapi.query.ast import Populate
from contentapi.query.compile import Compiler
from contentapi.query.populate.columns import Entry
from contentapi.schema.model import Model
from contentapi.schema.registry import Registry

__all__ = ["Level", "PopulatorBase"]


@dataclass(frozen=True, slots=True)
class Level:
    """One level being populated, as every reader of it needs it: the connection, the model
    and rows of the level, the rows' ids (each once, in order) and the publication state the
    request asked for."""

    conn: AsyncConnection
    model: Model
    entries: Sequence[Entry]
    ids: list[int]
    publication_state: str


@dataclass(eq=False)
class PopulatorBase:
    """The registry, tables, compiler and kept statements of a populator, and its caches (a
    dataclass without slots: the readers are its subclasses, and tests patch their methods
    on an instance)."""

    registry: Registry
    tables: ContentTables
    compiler: Compiler
    #: runs the statements kept in ``_statements`` (through asyncpg where it can)
    kept: KeptStatements
    #: component uid → its columns read back from ``to_jsonb`` (``_from_json``)
    _readers: dict[str, tuple[tuple[str, Callable[[Any], Any]], ...]] = field(
        init=False, default_factory=dict
    )
    #: built relation, media and component statements
    _statements: BoundedCache[Any, Any] = field(
        init=False, default_factory=lambda: BoundedCache(RELATION_STATEMENTS)
    )

    async def run(
        self,
        conn: AsyncConnection,
        model: Model,
        entries: Sequence[Entry],
        populate: Populate,
        publication_state: str,
    ) -> None:
        """Populate one level (``level.py``): declared here so each reader can populate the
        level below the rows it read."""
        raise NotImplementedError

    def _keep(self, key: Any, statement: Any) -> Any:
        """Remember a built statement."""
        return self._statements.put(key, statement)
