"""Relation writes: the ``connect`` / ``disconnect`` / ``set`` algebra over ordered id lists.

Two pure stages and one storage stage:

1. ``parse_relation_value`` turns what a client sent for ``data.<relation>`` (a bare id, ``null``,
   a bare array, or an operator object with shorthand or longhand items) into a
   ``RelationWrite`` — or field errors naming the offending path;
2. ``apply_relation_write`` applies it to the current ordered list of related ids: ``set``
   replaces; otherwise ``disconnect`` first, then each ``connect`` item in turn at its position
   (``before``/``after`` an id already in the list, ``start``, or ``end`` by default);
3. ``store_relation`` (in ``relation_store.py``) writes the final list to the link table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from contentapi.errors import FieldError
from contentapi.values import entry_id_of

__all__ = [
    "ConnectItem",
    "Position",
    "PositionError",
    "RelationWrite",
    "apply_relation_write",
    "parse_relation_value",
]

Path = tuple[str | int, ...]
_OPERATORS = ("connect", "disconnect", "set")


@dataclass(frozen=True, slots=True)
class Position:
    """Where a connected id goes: ``before``/``after`` an id, or the ``start``/``end``."""

    kind: Literal["before", "after", "start", "end"] = "end"
    anchor: int | None = None


@dataclass(frozen=True, slots=True)
class ConnectItem:
    id: int
    position: Position
    path: Path


@dataclass(slots=True)
class RelationWrite:
    """A validated relation update: a full ``set``, or ``disconnect`` then ``connect``."""

    path: Path
    set_ids: list[int] | None = None
    connect: list[ConnectItem] = field(default_factory=list)
    disconnect: list[int] = field(default_factory=list)

    def referenced_ids(self) -> list[int]:
        """Ids that must exist in the target table (what is connected or set)."""
        if self.set_ids is not None:
            return list(self.set_ids)
        return [item.id for item in self.connect]


class PositionError(ValueError):
    """A ``before``/``after`` anchor that is not among the relations at that point."""

    def __init__(self, item: ConnectItem) -> None:
        super().__init__(
            f"There was a problem connecting relation with id {item.id} at position "
            f"{{{item.position.kind}: {item.position.anchor}}}: "
            f"{item.position.anchor} is not among the relations"
        )
        self.item = item


def _parse_id(value: Any) -> int | None:
    """An entry id: a positive integer, or its decimal string (clients send both), that fits
    the id columns (``values.entry_id_of``)."""
    return entry_id_of(value)


def _parse_item(
    value: Any, path: Path, errors: list[FieldError], *, allow_position: bool
) -> tuple[int, Position] | None:
    """A shorthand id or a longhand ``{id, position?}``; returns (id, position) or None."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"id", "position"}
        if unknown:
            errors.append(FieldError(path, f"Invalid key {sorted(unknown)[0]!r} in a relation"))
            return None
        entry_id = _parse_id(value.get("id"))
        if entry_id is None:
            errors.append(FieldError(path, "A relation needs a valid entry id"))
            return None
        position = Position()
        if "position" in value and value["position"] is not None:
            if not allow_position:
                errors.append(FieldError(path, "A position is only allowed in connect"))
                return None
            parsed = _parse_position(value["position"], (*path, "position"), errors)
            if parsed is None:
                return None
            position = parsed
        return entry_id, position
    entry_id = _parse_id(value)
    if entry_id is None:
        errors.append(FieldError(path, "A relation needs a valid entry id"))
        return None
    return entry_id, Position()


def _parse_position(value: Any, path: Path, errors: list[FieldError]) -> Position | None:
    if not isinstance(value, Mapping) or len(value) != 1:
        errors.append(FieldError(path, "A position takes exactly one of before, after, start, end"))
        return None
    ((key, anchor),) = value.items()
    if key in ("start", "end"):
        if anchor is not True:
            errors.append(FieldError(path, f"position.{key} must be true"))
            return None
        return Position(key)
    if key in ("before", "after"):
        anchor_id = _parse_id(anchor)
        if anchor_id is None:
            errors.append(FieldError(path, f"position.{key} must be an entry id"))
            return None
        return Position(key, anchor_id)
    errors.append(FieldError(path, "A position takes exactly one of before, after, start, end"))
    return None


def _parse_list(
    value: Any, path: Path, errors: list[FieldError], *, allow_position: bool
) -> list[tuple[int, Position, Path]] | None:
    if not isinstance(value, list):
        errors.append(FieldError(path, "must be an array of ids or of {id} objects"))
        return None
    items: list[tuple[int, Position, Path]] = []
    for index, element in enumerate(value):
        item_path = (*path, index)
        parsed = _parse_item(element, item_path, errors, allow_position=allow_position)
        if parsed is not None:
            items.append((parsed[0], parsed[1], item_path))
    return items


def _reject_duplicates(
    items: Sequence[tuple[int, Position, Path]], errors: list[FieldError]
) -> None:
    """The spec's rule 7: the same relation twice in one request is a validation error."""
    seen: set[int] = set()
    for entry_id, _, path in items:
        if entry_id in seen:
            errors.append(FieldError(path, f"Relation {entry_id} is connected more than once"))
        seen.add(entry_id)


def parse_relation_value(value: Any, path: Path, errors: list[FieldError]) -> RelationWrite | None:
    """What a client sent for a relation → ``RelationWrite`` (errors appended, ``None`` then)."""
    before = len(errors)
    write = RelationWrite(path)
    if value is None:
        write.set_ids = []
    elif isinstance(value, list):
        items = _parse_list(value, path, errors, allow_position=False)
        if items is not None:
            _reject_duplicates(items, errors)
            write.set_ids = [entry_id for entry_id, _, _ in items]
    elif isinstance(value, Mapping) and not ("id" in value and not set(value) & set(_OPERATORS)):
        unknown = set(value) - set(_OPERATORS)
        if unknown:
            errors.append(
                FieldError(
                    path, f"Invalid key {sorted(unknown)[0]!r}: use connect, disconnect or set"
                )
            )
            return None
        if "set" in value and ("connect" in value or "disconnect" in value):
            errors.append(FieldError(path, "set cannot be combined with connect or disconnect"))
            return None
        if "set" in value:
            items = _parse_list(value["set"], (*path, "set"), errors, allow_position=False)
            if items is not None:
                _reject_duplicates(items, errors)
                write.set_ids = [entry_id for entry_id, _, _ in items]
        if "disconnect" in value:
            items = _parse_list(
                value["disconnect"], (*path, "disconnect"), errors, allow_position=False
            )
            if items is not None:
                write.disconnect = [entry_id for entry_id, _, _ in items]
        if "connect" in value:
            items = _parse_list(value["connect"], (*path, "connect"), errors, allow_position=True)
            if items is not None:
                _reject_duplicates(items, errors)
                write.connect = [ConnectItem(i, p, item_path) for i, p, item_path in items]
    else:
        # A bare id (or a bare {id} object) sets a to-one relation.
        parsed = _parse_item(value, path, errors, allow_position=False)
        if parsed is not None:
            write.set_ids = [parsed[0]]
    return write if len(errors) == before else None


def apply_relation_write(
    current: Sequence[int], write: RelationWrite, *, to_one: bool
) -> list[int]:
    """The ordered list of related ids after ``write``; ``PositionError`` for a bad anchor.

    For a to-one relation the operator syntaxes are accepted and only the last relation is
    kept (the spec's rule 8): the last connected id, else the last id of ``set``, else what
    remains of the current relation after ``disconnect``.
    """
    if write.set_ids is not None:
        ids = list(write.set_ids)
        return ids[-1:] if to_one else ids
    disconnected = set(write.disconnect)
    ids = [entry_id for entry_id in current if entry_id not in disconnected]
    if to_one:
        return [write.connect[-1].id] if write.connect else ids[-1:]
    for item in write.connect:
        if item.id in ids:
            ids.remove(item.id)
        ids.insert(_index_for(ids, item), item.id)
    return ids


def _index_for(ids: list[int], item: ConnectItem) -> int:
    position = item.position
    if position.kind == "start":
        return 0
    if position.kind == "end":
        return len(ids)
    if position.anchor not in ids:
        raise PositionError(item)
    index = ids.index(position.anchor)
    return index if position.kind == "before" else index + 1
