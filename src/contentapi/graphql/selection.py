"""What planning a selection set produces and reads (``plan.py``): the ``Selection`` of a
level (fields, populate keys, shaper), the ``Page`` a list root hands its shaper, and the
``PlanContext`` of one request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphql import FragmentDefinitionNode, GraphQLSchema

from contentapi.graphql.shape import Shaper
from contentapi.query.ast import Populate, PopulateNode, variant_key
from contentapi.query.pagination import Window
from contentapi.query.parse import QueryParser

__all__ = ["Page", "PlanContext", "Selection"]


@dataclass(slots=True)
class Page:
    """What a list root hands to its shaper."""

    entries: list[dict[str, Any]]
    total: int | None
    window: Window


@dataclass(slots=True)
class Selection:
    """What one selection reads (``fields`` of its model, ``populate``) and its shaper."""

    fields: list[str] = field(default_factory=list)
    populate: Populate = field(default_factory=dict)
    shaper: Shaper = lambda value, errors: None
    counts: bool = False  # a list root: whether meta.pagination is selected
    #: whether the shaped value holds ``Deferred`` fields (extensions' resolvers)
    deferred: bool = False

    def add_populate(self, name: str, node: PopulateNode) -> str:
        """The populate key ``node`` is read under: ``name``, or the key of an equal reading
        already planned at this level (aliases with the same arguments and sub-fields are read
        once), or a new ``name#n`` (an alias with other ones: graphql-js allows it, and each
        distinct reading is one more statement per level, never per row)."""
        number = 0
        while True:
            key = variant_key(name, number)
            existing = self.populate.get(key)
            if existing is None:
                self.populate[key] = node
                return key
            if existing == node:
                return key
            number += 1


@dataclass(slots=True)
class PlanContext:
    """One request's view of the document: variables, fragments and the caller's rights."""

    schema: GraphQLSchema
    fragments: dict[str, FragmentDefinitionNode]
    variables: dict[str, Any]
    parser: QueryParser
    may_find: Callable[[str], bool]
    #: set while planning when a field is left to an extension's resolver
    deferred: bool = False
