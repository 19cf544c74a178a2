"""Populate: load relations, media, components and dynamic zones for a page of entries, batched.

For each populated attribute at each level there is one statement for all parent rows — never
one per row: relations select ``(parent id, related columns)`` through the link table (with
``ROW_NUMBER() OVER (PARTITION BY parent …)`` when a per-parent limit is asked for); media read
``files_related_morphs`` joined to ``files`` once for all media attributes of a level;
components read their join table once per level and each component table once per type.
Results are attached to the entry dicts in place, keyed by attribute name.

The modules, one concept each: ``level`` (the loop over a level's attributes), ``columns``
(what rows select and become), ``relations``, ``counts``, ``media``, ``components`` with
``component_specs``, ``batched`` (PostgreSQL's one statement per level as JSON rows),
and ``base`` (shared state and built statements).
"""

from __future__ import annotations

from contentapi.query.populate.columns import select_columns
from contentapi.query.populate.counts import RelationCount
from contentapi.query.populate.level import Populator

__all__ = ["Populator", "RelationCount", "select_columns"]
