"""What a populated component or dynamic-zone field reads of each component type.

Pure decisions shared by the per-type component reads (``components.py``) and the batched
PostgreSQL one (``batched.py``): which component types a dynamic zone's ``on`` keeps, what is
populated inside an item of a type, and whether a field's filters or sort need a statement of
its own.
"""

from __future__ import annotations

from typing import Any

from contentapi.query.ast import ComponentPopulate, DynamicZonePopulate
from contentapi.schema.model import Model

__all__ = ["own_batch", "wanted", "zone_choices", "zone_spec"]


def wanted(node: ComponentPopulate | DynamicZonePopulate, uid: str) -> bool:
    """The ``on`` strategy returns only the dynamic-zone components it names."""
    return not isinstance(node, DynamicZonePopulate) or node.on is None or uid in node.on


def zone_spec(node: DynamicZonePopulate, component: Model) -> ComponentPopulate:
    """What to populate inside a dynamic-zone item of ``component``: what ``on`` names for
    it, else the shared populate's keys that are attributes of it."""
    if node.on is not None:
        return node.on.get(component.uid, ComponentPopulate())
    shared = {name: spec for name, spec in node.shared.items() if name in component.attributes}
    return ComponentPopulate(None, shared)


def own_batch(specs: dict[tuple[str, str], ComponentPopulate], field: str, uid: str) -> str | None:
    """The field whose filters or sort need its own statement, or ``None`` (shared)."""
    spec = specs[(field, uid)]
    return field if spec.filters is not None or spec.sort else None


def zone_choices(nodes: dict[str, ComponentPopulate | DynamicZonePopulate]) -> Any:
    """What the dynamic-zone nodes restrict (``on``), as part of a statement's key."""
    return tuple(
        (name, None if node.on is None else tuple(sorted(node.on)))
        for name, node in nodes.items()
        if isinstance(node, DynamicZonePopulate)
    )
