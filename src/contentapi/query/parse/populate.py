"""The ``populate`` parameter → ``{attribute: PopulateNode}``, in every form of the spec.

``*``, comma lists, arrays, dotted paths (which stay paths through dynamic zones:
``blocks.author.avatar``) and objects with their options (``fields``, ``filters``, ``sort``,
``populate``, ``start``/``limit``, ``count``, a zone's ``on``). A key naming no populatable
attribute (missing, scalar, private, wrong case) or a relation the caller may not ``find`` is
ignored unread, as Strapi ignores it, so it is never an oracle. ``filters``/``sort`` inside a
media populate apply to the files (Strapi reads media as a relation to files).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contentapi.errors import ValidationError
from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    Filter,
    MediaPopulate,
    Pagination,
    Populate,
    PopulateNode,
    RelationPopulate,
)
from contentapi.query.coerce import loose_boolean
from contentapi.query.pagination import check_populate_pages
from contentapi.query.parse.fields import parse_fields
from contentapi.query.parse.filters import FilterParser
from contentapi.query.parse.scope import LOCALIZATIONS, ModelScope
from contentapi.query.parse.sort import SortParser
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import (
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["PopulateParser"]


def _given(spec: Mapping[str, Any], key: str) -> bool:
    """Whether a populate option is set: Strapi skips one that is null (qs's
    ``populate[x][limit]`` without ``=``) or empty (``populate[x][sort]=``)."""
    return spec.get(key) not in (None, "")


class PopulateParser(ModelScope):
    """``populate`` of any model of the registry, for one caller: its options are read by the
    same filter, sort and pagination rules as the query's own."""

    __slots__ = ("filter_parser", "pagination", "sort_parser")

    def __init__(
        self,
        registry: Registry,
        may_find: Callable[[str], bool],
        filter_parser: FilterParser,
        sort_parser: SortParser,
        pagination: Callable[[Any], Pagination],
    ) -> None:
        super().__init__(registry, may_find)
        self.filter_parser = filter_parser
        self.sort_parser = sort_parser
        self.pagination = pagination

    def populate(self, model: Model, value: Any) -> Populate:
        """Every populate form of the spec → ``{attribute: PopulateNode}``."""
        if value is None:
            return {}
        if isinstance(value, str):
            if value.strip() == "*":
                return self._populate_all(model)
            return self._populate_paths(model, [p.strip() for p in value.split(",") if p.strip()])
        if isinstance(value, list):
            if "*" in value:
                return self._populate_all(model)
            paths: list[str] = []
            for item in value:
                if not isinstance(item, str):
                    raise ValidationError("Invalid populate parameter")
                paths.extend(p.strip() for p in item.split(",") if p.strip())
            return self._populate_paths(model, paths)
        if isinstance(value, Mapping):
            populate: Populate = {}
            for name, spec in value.items():
                node = self._populate_entry(model, name, spec)
                if node is not None:
                    populate[name] = node
            return populate
        raise ValidationError("Invalid populate parameter")

    def _populatable(self, model: Model, name: str) -> Any:
        """The attribute ``populate`` names, or ``None`` when it is to be ignored.

        Strapi ignores a name its model lacks (a typo, a wrong case), a scalar attribute and a
        private one alike (its sanitizer strips private keys, its query layer skips what is not
        a relation), at any depth and in every form: the answer is the one without the key.
        Treating a private attribute as absent keeps it from being told apart from a missing
        one.
        """
        if name == LOCALIZATIONS and isinstance(model, ContentType) and model.localized:
            return LOCALIZATIONS
        attribute = model.attributes.get(name)
        if attribute is None or attribute.private:
            return None
        if attribute.type not in ("relation", "media", "component", "dynamiczone"):
            return None
        return attribute

    def _populate_all(self, model: Model) -> Populate:
        """``populate=*``: every relation, media, component and dynamic zone, one level deep."""
        populate: Populate = {}
        for name, attribute in model.attributes.items():
            populatable = attribute.type in ("relation", "media", "component", "dynamiczone")
            if isinstance(attribute, RelationAttribute) and not self._readable(attribute):
                continue
            if populatable and not attribute.private:
                populate[name] = self._default_node(attribute)
        if isinstance(model, ContentType) and model.localized:
            populate[LOCALIZATIONS] = RelationPopulate()
        return populate

    def _default_node(self, attribute: Any) -> PopulateNode:
        """The node of a bare ``populate`` of ``attribute`` (``_populatable``'s answer)."""
        if attribute == LOCALIZATIONS or isinstance(attribute, RelationAttribute):
            return RelationPopulate()
        if isinstance(attribute, MediaAttribute):
            return MediaPopulate()
        if isinstance(attribute, ComponentAttribute):
            return ComponentPopulate()
        return DynamicZonePopulate()

    def _populate_paths(self, model: Model, paths: list[str]) -> Populate:
        """Array and dotted forms: ``["seo", "seo.shareImage", "author.profile"]``.

        A ``*`` among other paths is ignored, as Strapi 4.25's query layer skips it (no such
        attribute): ``populate=*,author`` populates ``author`` only, and FoodAdvisor's
        ``populate[blocks][populate]=*,buttons.link`` only ``buttons.link`` (checked on the
        reference). ``*`` alone is ``populate()``'s ``_populate_all``.
        """
        tree: dict[str, Any] = {}
        for path in paths:
            if path == "*":
                continue
            node = tree
            for step in path.split("."):
                node = node.setdefault(step, {})
        return self._populate_tree(model, tree)

    def _populate_tree(self, model: Model, tree: Mapping[str, Any]) -> Populate:
        populate: Populate = {}
        for name, children in tree.items():
            spec: Any = {"populate": dict(children)} if children else True
            node = self._populate_entry(model, name, spec, nested_as_paths=True)
            if node is not None:
                populate[name] = node
        return populate

    def _populate_entry(
        self, model: Model, name: str, spec: Any, *, nested_as_paths: bool = False
    ) -> PopulateNode | None:
        """One ``populate`` key and its value → its node, or ``None`` to leave it out.

        Left out, with nothing inside looked at (so an ignored key is never an oracle): a
        name that is not a populatable attribute (``_populatable``) and a relation to a type
        the caller may not ``find`` (the spec's populate rule 10). Option names Strapi does
        not read inside a populate object (``populate[author][bogus]=1``) are ignored too, as
        its ``convertNestedPopulate`` does.
        """
        attribute = self._populatable(model, name)
        if attribute is None:
            return None
        if isinstance(attribute, RelationAttribute) and not self._readable(attribute):
            return None
        if not isinstance(spec, Mapping):
            if isinstance(spec, str) and "," in spec:
                spec = {"populate": spec}
            elif not loose_boolean(spec):  # Strapi: false/f/0/empty skip, anything else is on
                return None
            else:
                return self._default_node(attribute)
        zone_on = isinstance(attribute, DynamicZoneAttribute) and spec.get("on") is not None
        if not zone_on:  # with `on`, Strapi reads only `on` (each of its specs is checked)
            check_populate_pages(spec)
        if attribute == LOCALIZATIONS or isinstance(attribute, RelationAttribute):
            target = (
                model
                if attribute == LOCALIZATIONS
                else self.registry.content_types[attribute.target]
            )
            assert isinstance(target, ContentType)
            return self._relation_node(target, spec, nested_as_paths)
        if isinstance(attribute, MediaAttribute):
            # Strapi loads media as a relation to files: `filters` and `sort` apply to them
            files = self.registry.content_types[FILE_UID]
            return MediaPopulate(
                parse_fields(files, spec["fields"]) if "fields" in spec else None,
                self._populate_filters(files, spec),
                self.sort_parser.sort(files, spec["sort"]) if "sort" in spec else (),
            )
        if isinstance(attribute, ComponentAttribute):
            component = self.registry.components[attribute.component]
            return ComponentPopulate(
                parse_fields(component, spec["fields"]) if "fields" in spec else None,
                self._children(component, spec.get("populate"), nested_as_paths),
                self._populate_filters(component, spec),
                self.sort_parser.sort(component, spec["sort"]) if "sort" in spec else (),
            )
        assert isinstance(attribute, DynamicZoneAttribute)
        if zone_on:
            # Strapi reads only `on` then (filters or sort beside it are not read); an `on`
            # that is no object names no component type, so the zone answers empty.
            on: dict[str, ComponentPopulate] = {}
            specs = spec["on"] if isinstance(spec["on"], Mapping) else {}
            for uid, component_spec in specs.items():
                component_spec = component_spec if isinstance(component_spec, Mapping) else {}
                check_populate_pages(component_spec)
                if uid not in attribute.components:
                    # Strapi reads only the zone's items of the types `on` names: a uid
                    # the zone lacks adds none (and alone leaves the zone empty).
                    continue
                component = self.registry.components[uid]
                if "sort" in component_spec:
                    # Validated, but a dynamic zone keeps its stored order: Strapi 4.25 answers
                    # `on[blocks.quote][sort]=title:desc` with the quotes as stored.
                    self.sort_parser.sort(component, component_spec["sort"])
                on[uid] = ComponentPopulate(
                    parse_fields(component, component_spec["fields"])
                    if "fields" in component_spec
                    else None,
                    self._children(component, component_spec.get("populate"), False),
                    self._populate_filters(component, component_spec),
                )
            return DynamicZonePopulate(on=on)
        for key in ("filters", "sort"):
            if _given(spec, key):  # Strapi 4.25 answers 500 for them outside `on`
                raise ValidationError(f"Invalid key {key}")
        zone = self._zone_shared(attribute, spec.get("populate"), nested_as_paths=nested_as_paths)
        if not _given(spec, "fields"):
            return zone
        # Strapi hands `fields` to every component type's query: `fields[0]=id` keeps only the
        # ids, a name one of the zone's components lacks fails there (500), a 400 here.
        shared = zone.on or {}
        return DynamicZonePopulate(
            on={
                uid: ComponentPopulate(
                    parse_fields(self.registry.components[uid], spec["fields"]),
                    shared[uid].populate if uid in shared else {},
                )
                for uid in attribute.components
            }
        )

    def _populate_filters(self, model: Model, spec: Mapping[str, Any]) -> Filter | None:
        if "filters" not in spec:
            return None
        return self.filter_parser.filters(model, spec["filters"], "populate.filters")

    def _zone_shared(
        self, attribute: DynamicZoneAttribute, shared: Any, *, nested_as_paths: bool = False
    ) -> DynamicZonePopulate:
        """``populate[zone][populate]=…`` and dotted paths through a zone: one populate for all
        the zone's components, read against each component (Strapi hands the same populate to
        each component type's query, which skips the names that type lacks). Per component, so
        that an attribute name two components use for different things is read as each one's.

        ``nested_as_paths``: ``shared`` is the rest of dotted paths (``blocks.author.avatar`` →
        ``{"author": {"avatar": {}}}``), each level names attributes, not populate options.
        """
        if shared is None:
            return DynamicZonePopulate()
        on: dict[str, ComponentPopulate] = {}
        for uid in attribute.components:
            component = self.registry.components[uid]
            if shared == "*" or shared == ["*"]:
                part = self._populate_all(component)
            elif nested_as_paths and isinstance(shared, Mapping):
                part = self._populate_tree(component, shared)
            else:
                part = self.populate(component, shared)
            on[uid] = ComponentPopulate(populate=part)
        if not any(spec.populate for spec in on.values()):
            return DynamicZonePopulate()
        return DynamicZonePopulate(on=on)

    def _children(self, model: Model, value: Any, nested_as_paths: bool) -> Populate:
        if value is None:
            return {}
        if nested_as_paths and isinstance(value, Mapping):
            return self._populate_tree(model, value)
        return self.populate(model, value)

    def _relation_node(
        self, target: ContentType, spec: Mapping[str, Any], nested_as_paths: bool
    ) -> RelationPopulate:
        limit: int | None = None
        offset = 0
        pages = {k: spec[k] for k in ("limit", "start") if _given(spec, k)}
        if pages:  # what Strapi applies inside a populate
            pagination = self.pagination(pages)
            limit, offset = pagination.limit, pagination.offset
        count = "count" in spec and loose_boolean(spec["count"])
        return RelationPopulate(
            fields=parse_fields(target, spec["fields"]) if _given(spec, "fields") else None,
            filters=self._populate_filters(target, spec),
            sort=self.sort_parser.sort(target, spec["sort"]) if _given(spec, "sort") else (),
            populate=self._children(target, spec.get("populate"), nested_as_paths),
            limit=limit,
            offset=offset,
            count=count,
        )
