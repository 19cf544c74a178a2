"""The populator's level loop: which reader loads each populated attribute of a level.

``Populator.run`` attaches the populated attributes of one level to its entries in place,
keyed by attribute name (in the order asked), and each reader populates the level below the
rows it read by calling ``run`` again.
"""

from __future__ import annotations

from collections.abc import Sequence

from contentapi.db.async_engine import AsyncConnection
from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    MorphPopulate,
    Populate,
    RelationPopulate,
)
from contentapi.query.populate.base import Level
from contentapi.query.populate.batched import RelationsBatch
from contentapi.query.populate.columns import Entry
from contentapi.query.populate.components import ComponentReader
from contentapi.query.populate.counts import CountReader
from contentapi.query.populate.media import MediaReader
from contentapi.schema.model import Model

__all__ = ["Populator"]


class Populator(RelationsBatch, CountReader, MediaReader, ComponentReader):
    """Attaches populated attributes to entries of any model."""

    async def run(
        self,
        conn: AsyncConnection,
        model: Model,
        entries: Sequence[Entry],
        populate: Populate,
        publication_state: str,
    ) -> None:
        if not entries or not populate:
            return
        level = Level(
            conn,
            model,
            entries,
            list(dict.fromkeys(int(entry["id"]) for entry in entries)),
            publication_state,
        )
        for entry in entries:  # populated keys follow the order they were asked in
            for name in populate:
                entry.setdefault(name, None)
        media: dict[str, MediaPopulate] = {}
        components: dict[str, ComponentPopulate | DynamicZonePopulate] = {}
        relations = {n: node for n, node in populate.items() if isinstance(node, RelationPopulate)}
        # never together when one of them is counted: a count has its own statement
        together = self._relations_together(model, relations, publication_state)
        if together is not None:
            await self._relations_at_once(level, together, relations)
        for name, node in populate.items():
            if isinstance(node, RelationPopulate):
                if node.count:
                    await self._count(level, name, node)
                elif together is None:
                    await self._relation(level, name, node)
            elif isinstance(node, MorphPopulate):
                await self._morph(level, name, node)
            elif isinstance(node, MediaPopulate):
                media[name] = node
            else:
                components[name] = node
        if media:
            await self._media(level, media)
        if components:
            await self._components(level, components)
