"""What every part of the parser reads against: the registry's models and what one caller may
``find``.

A relation to a content type the caller may not ``find`` is left out of ``populate`` and is a
400 in ``filters`` and ``sort`` (``readable``): never a silent strip that would turn the query
into an oracle on hidden data (docs/differences-from-strapi.md).
"""

from __future__ import annotations

from collections.abc import Callable

from contentapi.schema.model import ComponentAttribute, RelationAttribute
from contentapi.schema.registry import Registry

__all__ = ["LOCALIZATIONS", "ModelScope", "everything"]

#: A populate pseudo-attribute of localized content types (the other locales of an entry).
LOCALIZATIONS = "localizations"


def everything(uid: str) -> bool:
    """``may_find`` of a parser not restricted to a caller."""
    return True


class ModelScope:
    """The registry a parser reads names in, and the caller's ``may_find(uid)``."""

    __slots__ = ("may_find", "registry")

    def __init__(self, registry: Registry, may_find: Callable[[str], bool] = everything) -> None:
        self.registry = registry
        self.may_find = may_find

    def _readable(self, attribute: RelationAttribute | ComponentAttribute) -> bool:
        return not isinstance(attribute, RelationAttribute) or self.may_find(attribute.target)
