"""The columns a populated level reads and the entry dicts its rows become.

Shared by every reader of the populator (relations, media, components, the batched
PostgreSQL path): which ``(column, attribute name)`` pairs a model's populated rows select,
the labels of the parent id and the per-parent rank in those statements, and the one dict
comprehension that turns a row into an entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contentapi.caching import COLUMN_PAIRS, BoundedCache
from contentapi.query.fields import readable_names, scalar_field
from contentapi.schema.model import Model

__all__ = ["PARENT", "ROW", "Entry", "select_columns", "to_entry"]

Entry = dict[str, Any]
#: label of the parent's id in a populated relation's or media's rows
PARENT = "__parent"
#: label of a row's rank among its parent's rows (``ROW_NUMBER() OVER (PARTITION BY parent)``)
ROW = "__row"


#: (id(model), fields) → (model, pairs): the pairs are asked for once per row of a component
#: or related list, so they are computed once per model and field set. The model is kept and
#: compared, so a recycled ``id()`` of another registry's model never matches.
_COLUMNS: BoundedCache[tuple[int, tuple[str, ...] | None], tuple[Model, list[tuple[str, str]]]] = (
    BoundedCache(COLUMN_PAIRS)
)


def select_columns(model: Model, fields: Sequence[str] | None) -> list[tuple[str, str]]:
    """``(column, attribute name)`` pairs to read: ``id`` and the requested readable names."""
    key = (id(model), None if fields is None else tuple(fields))
    found = _COLUMNS.get(key)
    if found is not None and found[0] is model:
        return found[1]
    names = readable_names(model) if fields is None else [n for n in fields if n != "id"]
    pairs = [("id", "id")]
    for name in names:
        field = scalar_field(model, name)
        assert field is not None
        pairs.append((field.column, name))
    _COLUMNS.put(key, (model, pairs))
    return pairs


def to_entry(row: Any, columns: Sequence[tuple[str, str]]) -> Entry:
    """A row (mapping by column) as an entry keyed by attribute name, in ``columns`` order."""
    return {name: row[column] for column, name in columns}
