"""Validate a write body's ``data`` against a model: the nested write plan, or every error.

Consumes the client's ``data`` object; produces an ``EntryWrite`` (``write_plan.py``): column
values ready to store, the values whose uniqueness the service checks in the database, and the
nested writes — relations (``RelationWrite``), media ids, and component / dynamic-zone items,
each itself a ``ModelWrite``. One scalar value's rules are ``scalar_input.py``'s. Anything wrong
raises one ``ValidationError`` listing every problem with its path (Strapi's:
``["links", "0", "url"]``, message ``links[0].url must be defined.``).
Nothing here touches the database; what needs it (existence of ids, positions, ownership of
component ids, uniqueness) is checked by the service inside the write transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from contentapi.entries.blocks import parse_blocks
from contentapi.entries.messages import MESSAGES, print_value
from contentapi.entries.relations import parse_relation_value
from contentapi.entries.scalar_input import contains_nul, parse_scalar, type_error
from contentapi.entries.write_plan import (
    ComponentFieldWrite,
    ComponentItemWrite,
    EntryWrite,
    MediaWrite,
    ModelWrite,
    Path,
    label,
)
from contentapi.errors import FieldError, ValidationError
from contentapi.schema.model import (
    Component,
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    Model,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.registry import Registry
from contentapi.values import MAX_JSON_DEPTH, NestingTooDeep, entry_id_of, js_json, parse_value

__all__ = ["parse_entry_input"]


def _parse_id(value: Any) -> int | None:
    if isinstance(value, Mapping):
        value = value.get("id")
    return entry_id_of(value)


class _Parser:
    """One body's parse: shared settings and the error list every level appends to."""

    def __init__(
        self,
        registry: Registry,
        locales: tuple[str, ...],
        is_draft: bool,
        copied: frozenset[str] = frozenset(),
    ) -> None:
        self.registry = registry
        self.locales = locales
        self.is_draft = is_draft
        self.copied = copied  # attributes whose values, when the body has none, come from elsewhere
        self.errors: list[FieldError] = []

    def error(self, path: Path, message: str) -> None:
        self.errors.append(FieldError(path, message))

    def required(self, path: Path) -> None:
        self.error(path, MESSAGES["required"].format(path=label(path)))

    def model(
        self, model: Model, data: Mapping[str, Any], path: Path, creating: bool
    ) -> ModelWrite:
        write = EntryWrite(model) if isinstance(model, ContentType) else ModelWrite(model)
        for name, attribute in model.attributes.items():
            at = (*path, name)
            if not path and name in self.copied and name not in data:
                continue  # a localization's source gives it (the body's value wins)
            present = name in data
            if isinstance(attribute, ScalarAttribute):
                self.scalar(write, attribute, data.get(name), at, present, creating)
            elif not present:
                if creating and attribute.required and not self.is_draft:
                    self.required(at)
            elif isinstance(attribute, RelationAttribute):
                relation = parse_relation_value(data[name], at, self.errors)
                if relation is not None:
                    required = creating and attribute.required and not self.is_draft
                    if required and not relation.referenced_ids():
                        self.required(at)
                    write.relations[name] = relation
            elif isinstance(attribute, MediaAttribute):
                self.media(write, attribute, data[name], at)
            elif isinstance(attribute, ComponentAttribute):
                self.component_field(write, attribute, data[name], at)
            else:
                self.dynamic_zone(write, attribute, data[name], at)
        return write

    def scalar(
        self,
        write: ModelWrite,
        attribute: ScalarAttribute,
        raw: Any,
        path: Path,
        present: bool,
        creating: bool,
    ) -> None:
        name = label(path)
        if not present:
            if not creating:
                return
            if attribute.has_default and attribute.default is not None:
                raw = attribute.default
            elif attribute.required and not self.is_draft:
                self.required(path)
                return
            else:
                return
        if raw is None:
            if attribute.required and not self.is_draft:
                self.error(path, type_error(attribute, None, name))
            else:
                write.columns[attribute.column] = None
            return
        if attribute.type == "blocks":
            self.blocks(write, attribute, raw, path)
            return
        value, problem = parse_scalar(attribute, raw, name, self.is_draft)
        if problem is not None:
            self.error(path, problem)
            return
        if attribute.type == "password":
            write.passwords[attribute.column] = value
            return
        write.columns[attribute.column] = value
        if attribute.unique or attribute.type == "uid":
            write.unique.append((attribute, value, path))

    def blocks(self, write: ModelWrite, attribute: ScalarAttribute, raw: Any, path: Path) -> None:
        """A blocks attribute (``entries/blocks.py``): what Strapi's validator casts is stored,
        and every problem is reported with its path inside the blocks."""
        try:
            parse_value("json", raw)  # the depth limit of every JSON value
        except NestingTooDeep:
            self.error(path, MESSAGES["depth"].format(path=label(path), max=MAX_JSON_DEPTH))
            return
        required = attribute.required and not self.is_draft
        value, problems = parse_blocks(raw, path, nullable=not required)
        if problems:
            self.errors.extend(problems)
        elif contains_nul(value):
            self.error(path, MESSAGES["nul"].format(path=label(path)))
        else:
            write.columns[attribute.column] = None if value is None else js_json(value)

    def media(self, write: ModelWrite, attribute: MediaAttribute, raw: Any, path: Path) -> None:
        if isinstance(raw, Mapping) and set(raw) & {"connect", "disconnect", "set"}:
            # The spec's rule 3: relation operators cannot be used for media attributes.
            self.error(path, f"{label(path)}: connect, disconnect and set cannot be used for media")
            return
        if raw is None:
            ids: list[int] = []
        elif attribute.multiple:
            if not isinstance(raw, list):
                raw = [raw]
            ids = []
            for index, element in enumerate(raw):
                file_id = _parse_id(element)
                if file_id is None:
                    self.error((*path, index), f"{label((*path, index))} must be a file id")
                    return
                ids.append(file_id)
        else:
            file_id = _parse_id(raw[-1] if isinstance(raw, list) and raw else raw)
            if file_id is None:
                self.error(path, f"{label(path)} must be a file id")
                return
            ids = [file_id]
        write.media[attribute.name] = MediaWrite(attribute, ids, path)

    def _item(self, component: Component, raw: Any, path: Path) -> ComponentItemWrite | None:
        if not isinstance(raw, Mapping):
            self.error(
                path,
                MESSAGES["type"].format(path=label(path), type="object", value=print_value(raw)),
            )
            return None
        item_id: int | None = None
        if "id" in raw and raw["id"] is not None:
            item_id = _parse_id(raw["id"])
            if item_id is None:
                self.error((*path, "id"), f"{label((*path, 'id'))} must be a component id")
                return None
        write = self.model(component, raw, path, creating=item_id is None)
        return ComponentItemWrite(component, item_id, write, path)

    def _list(self, raw: Any, path: Path) -> list[Any] | None:
        """A repeatable component's or dynamic zone's items (``null`` is none); ``None`` (and an
        error) when the value is not a list."""
        if raw is None:
            return []
        if isinstance(raw, list):
            return raw
        message = MESSAGES["type"].format(path=label(path), type="array", value=print_value(raw))
        self.error(path, message)
        return None

    def _count_rules(
        self, attribute: ComponentAttribute | DynamicZoneAttribute, count: int, path: Path
    ) -> None:
        name = label(path)
        if attribute.max is not None and count > attribute.max:
            self.error(path, MESSAGES["max_items"].format(path=name, max=attribute.max))
        elif (
            attribute.min is not None
            and count < attribute.min
            and (attribute.required or count > 0)
            and not self.is_draft
        ):
            self.error(path, MESSAGES["min_items"].format(path=name, min=attribute.min))

    def component_field(
        self, write: ModelWrite, attribute: ComponentAttribute, raw: Any, path: Path
    ) -> None:
        component = self.registry.components[attribute.component]
        items: list[ComponentItemWrite] = []
        if attribute.repeatable:
            raw = self._list(raw, path)
            if raw is None:
                return
            for index, element in enumerate(raw):
                item = self._item(component, element, (*path, index))
                if item is not None:
                    items.append(item)
            self._count_rules(attribute, len(raw), path)
        elif raw is not None:
            item = self._item(component, raw, path)
            if item is not None:
                items.append(item)
        if attribute.required and not self.is_draft and raw in (None, []):
            self.required(path)
        write.components[attribute.name] = ComponentFieldWrite(attribute, items, path)

    def dynamic_zone(
        self, write: ModelWrite, attribute: DynamicZoneAttribute, raw: Any, path: Path
    ) -> None:
        raw = self._list(raw, path)
        if raw is None:
            return
        items: list[ComponentItemWrite] = []
        for index, element in enumerate(raw):
            at = (*path, index)
            uid = element.get("__component") if isinstance(element, Mapping) else None
            if uid not in attribute.components:
                allowed = ", ".join(attribute.components)
                self.error(
                    (*at, "__component"),
                    f"{label((*at, '__component'))} must be one of the following values: {allowed}",
                )
                continue
            item = self._item(self.registry.components[uid], element, at)
            if item is not None:
                items.append(item)
        self._count_rules(attribute, len(raw), path)
        if attribute.required and not self.is_draft and not raw:
            self.required(path)
        write.components[attribute.name] = ComponentFieldWrite(attribute, items, path)


def parse_entry_input(
    content_type: ContentType,
    data: Any,
    *,
    registry: Registry,
    creating: bool,
    locales: tuple[str, ...],
    was_draft: bool = False,
    now: datetime | None = None,
    copied: frozenset[str] = frozenset(),
    publish: bool = True,
) -> EntryWrite:
    """Validate ``data`` for a create (``creating``: defaults, required) or a partial update.

    ``publish`` false (GraphQL's ``createX``): a create without ``publishedAt`` is validated as
    a published entry but stored as a draft — exactly what Strapi 4.25's GraphQL plugin does
    (``createArticle(data: {title: "ab"})`` fails ``minLength``, yet the entry is a draft).

    ``was_draft`` is the entry's state before an update. Strapi enforces ``required`` only on
    entries that are not drafts: a draft is a create with ``publishedAt: null``, or an update
    of a draft that does not publish it.
    """
    if not isinstance(data, Mapping):
        raise ValidationError('Missing "data" payload in the request body')
    is_draft = content_type.draft_and_publish and (
        data["publishedAt"] is None if "publishedAt" in data else (was_draft and not creating)
    )
    parser = _Parser(registry, locales, is_draft, copied)
    write = parser.model(content_type, data, (), creating)
    assert isinstance(write, EntryWrite)
    moment = now or datetime.now(UTC).replace(tzinfo=None)
    if content_type.draft_and_publish:
        if "publishedAt" in data:
            raw_published = data["publishedAt"]
            if raw_published is None:
                write.columns["published_at"] = None
            else:
                try:
                    write.columns["published_at"] = parse_value("datetime", raw_published)
                except ValueError as problem:
                    parser.error(("publishedAt",), str(problem))
        elif creating:
            write.columns["published_at"] = moment if publish else None
    if content_type.localized and creating:
        # The locale is chosen at creation only; on update Strapi ignores it.
        locale = data.get("locale") or (locales[0] if locales else None)
        if locale not in locales:
            parser.error(("locale",), MESSAGES["locale"])
        write.locale = locale
        write.columns["locale"] = locale
    if parser.errors:
        raise ValidationError.from_errors(parser.errors)
    if creating:
        write.columns["created_at"] = moment
    write.columns["updated_at"] = moment
    return write
