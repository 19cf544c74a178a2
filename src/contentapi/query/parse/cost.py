"""A REST query's cost: the entries and components its answer can hold, from the parsed
``ReadQuery`` alone, so that a query over the budget is refused before any statement.

A populated relation of a list is read for every entry of the page, and its own populate
for every entry of that: 100 articles, each with ``populate[categories][limit]=100`` and
their 100 articles each, are a million entries. The cost multiplies down the tree as
GitHub's node limit does (and as the GraphQL budget, ``graphql/cost.py``, does):

- the page counts its size (``pageSize``/``limit``, the default when none is asked); a
  single entry (``GET /api/P/:id``, a single type, a write's answer) counts 1;
- each populated attribute adds, per entry above it, its items times (1 + what they
  populate): a to-one relation, a single media or component 1 item; a to-many relation its
  ``limit`` when one is given; a relation's ``count`` 1;
- what the query does not bound — a to-many relation without ``limit``, a media list, a
  repeatable component, a dynamic zone, ``localizations`` — counts ``UNBOUNDED_ITEMS`` (10)
  items: an estimate, as Strapi reads them all; the statement timeout bounds the rest;
- a dynamic zone's item costs what its most costly component populates.

    >>> from contentapi.query.ast import ReadQuery, PagePagination
    >>> # query_cost(registry, article, ReadQuery(PagePagination(1, 25)), list_route=True) == 25
"""

from __future__ import annotations

from contentapi.errors import ValidationError
from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    MorphPopulate,
    OffsetPagination,
    PagePagination,
    Populate,
    PopulateNode,
    ReadQuery,
    RelationPopulate,
    attribute_of,
)
from contentapi.query.parse.scope import LOCALIZATIONS
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["UNBOUNDED_ITEMS", "check_cost", "query_cost"]

#: The items a populated list counts as when the query does not bound it.
UNBOUNDED_ITEMS = 10


def query_cost(registry: Registry, model: Model, query: ReadQuery, *, list_route: bool) -> int:
    """The entries and components the answer to ``query`` can hold."""
    rows = _page_rows(query) if list_route else 1
    return rows * (1 + _per_entry(registry, model, query.populate))


def check_cost(
    registry: Registry, model: Model, query: ReadQuery, limit: int, *, list_route: bool
) -> None:
    """400 ``ValidationError`` naming the cost and the limit when ``query`` costs more than
    ``limit`` (0: no limit)."""
    if not limit:
        return
    cost = query_cost(registry, model, query, list_route=list_route)
    if cost > limit:
        raise ValidationError(
            f"The query costs {cost}, more than the limit of {limit}: the page size times what "
            "each entry populates, down the tree (a list without a limit counts as "
            f"{UNBOUNDED_ITEMS}). Ask for fewer entries, populate less or set a limit in the "
            "populate.",
            details={"cost": cost, "limit": limit},
        )


def _page_rows(query: ReadQuery) -> int:
    pagination = query.pagination
    if isinstance(pagination, PagePagination):
        return pagination.page_size
    assert isinstance(pagination, OffsetPagination)
    return pagination.limit


def _per_entry(registry: Registry, model: Model, populate: Populate) -> int:
    """What one entry (or component) of ``model`` adds with ``populate``."""
    total = 0
    for key, node in populate.items():
        total += _populated(registry, model, attribute_of(key), node)
    return total


def _populated(registry: Registry, model: Model, name: str, node: PopulateNode) -> int:
    """One populated attribute of one entry: its items times (1 + what each populates)."""
    attribute = model.attributes.get(name)
    if isinstance(node, RelationPopulate):
        if node.count:
            return 1
        if name == LOCALIZATIONS and attribute is None:
            items, target = _items(node.limit, to_many=True), model
        else:
            assert isinstance(attribute, RelationAttribute)
            items = _items(node.limit, to_many=attribute.is_to_many)
            target = registry.content_types[attribute.target]
        return items * (1 + _per_entry(registry, target, node.populate))
    if isinstance(node, MediaPopulate):
        assert isinstance(attribute, MediaAttribute)
        files = registry.content_types[FILE_UID]
        items = _items(None, to_many=attribute.multiple)
        return items * (1 + _per_entry(registry, files, node.populate))
    if isinstance(node, ComponentPopulate):
        assert isinstance(attribute, ComponentAttribute)
        component = registry.components[attribute.component]
        items = _items(None, to_many=attribute.repeatable)
        return items * (1 + _per_entry(registry, component, node.populate))
    if isinstance(node, DynamicZonePopulate):
        assert isinstance(attribute, DynamicZoneAttribute)
        item = max((_zone_item(registry, node, uid) for uid in attribute.components), default=0)
        return UNBOUNDED_ITEMS * (1 + item)
    assert isinstance(node, MorphPopulate)
    item = max(
        (_per_entry(registry, _model(registry, uid), on.populate) for uid, on in node.on.items()),
        default=0,
    )
    return UNBOUNDED_ITEMS * (1 + item)


def _zone_item(registry: Registry, node: DynamicZonePopulate, uid: str) -> int:
    """What one item of component ``uid`` populates in a zone (``shared``, or its ``on``)."""
    if node.on is not None:
        spec = node.on.get(uid)
        populate = spec.populate if spec is not None else {}
    else:
        populate = node.shared
    return _per_entry(registry, registry.components[uid], populate)


def _model(registry: Registry, uid: str) -> Model:
    found = registry.content_types.get(uid)
    return found if found is not None else registry.components[uid]


def _items(limit: int | None, *, to_many: bool) -> int:
    if not to_many:
        return 1
    return UNBOUNDED_ITEMS if limit is None else limit
