"""Validate a write body's ``data`` against a model: the nested write plan, or every error.

Consumes the client's ``data`` object; produces an ``EntryWrite``: column values ready to store,
the values whose uniqueness the service checks in the database, and the nested writes —
relations (``RelationWrite``), media ids, and component / dynamic-zone items, each itself a
``ModelWrite``. Anything wrong raises one ``ValidationError`` listing every problem with its
path (Strapi's: ``["links", "0", "url"]``, message ``links[0].url must be defined.``).
Nothing here touches the database; what needs it (existence of ids, positions, ownership of
component ids, uniqueness) is checked by the service inside the write transaction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from contentapi.entries.blocks import parse_blocks
from contentapi.entries.messages import MESSAGES, print_value
from contentapi.entries.relations import RelationWrite, parse_relation_value
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
from contentapi.values import (
    MAX_JSON_DEPTH,
    NestingTooDeep,
    TypeMismatch,
    entry_id_of,
    js_json,
    parse_value,
)

__all__ = [
    "ComponentFieldWrite",
    "ComponentItemWrite",
    "EntryWrite",
    "MediaWrite",
    "ModelWrite",
    "parse_entry_input",
    "valid_email",
]

Path = tuple[str | int, ...]

# yup's email rule (what Strapi validates with), in Python's regex dialect.
_ATEXT = r"[a-z0-9!#$%&'*+\-/=?^_`{|}~\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_LABEL = r"[a-z0-9\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_EMAIL = re.compile(
    rf"^{_ATEXT}+(\.{_ATEXT}+)*@(({_LABEL}|{_LABEL}[a-z0-9\-._~\u00A0-\uD7FF]*{_LABEL})\.)+"
    rf"([a-z\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]|[a-z\u00A0-\uD7FF][a-z0-9\-._~\u00A0-\uD7FF]*"
    rf"[a-z\u00A0-\uD7FF])$",
    re.IGNORECASE,
)


def valid_email(text: str) -> bool:
    """yup's ``string().email()`` test."""
    return _EMAIL.match(text) is not None


UID_PATTERN = "^[A-Za-z0-9-_.~]*$"
_UID = re.compile(UID_PATTERN)
#: Columns that are ``varchar(255)``; longer values would fail in PostgreSQL.
_VARCHAR_TYPES = frozenset({"string", "email", "uid", "enumeration", "password"})
_TEXT_TYPES = frozenset({"string", "text", "richtext", "email", "uid", "enumeration", "password"})
_NUMBER_TYPES = frozenset({"integer", "biginteger", "float", "decimal"})
_JS_TYPE = {
    "string": "string",
    "text": "string",
    "richtext": "string",
    "email": "string",
    "password": "string",
    "uid": "string",
    "enumeration": "string",
    "integer": "number",
    "biginteger": "number",
    "float": "number",
    "decimal": "number",
    "boolean": "boolean",
    "array": "array",
    "blocks": "array",
}


@dataclass(slots=True)
class MediaWrite:
    """The file ids a media attribute holds after the write, in order."""

    attribute: MediaAttribute
    ids: list[int]
    path: Path


@dataclass(slots=True)
class ComponentItemWrite:
    """One component row to create (``id`` None) or to update in place."""

    component: Component
    id: int | None
    write: ModelWrite
    path: Path


@dataclass(slots=True)
class ComponentFieldWrite:
    """The complete new content of a component or dynamic-zone attribute, in order."""

    attribute: ComponentAttribute | DynamicZoneAttribute
    items: list[ComponentItemWrite]
    path: Path


@dataclass(slots=True)
class ModelWrite:
    """A validated write of one entry or component row."""

    model: Model
    columns: dict[str, Any] = field(default_factory=dict)
    unique: list[tuple[ScalarAttribute, Any, Path]] = field(default_factory=list)
    #: column → plain password; hashed by the service off the event loop before storing.
    passwords: dict[str, str] = field(default_factory=dict)
    relations: dict[str, RelationWrite] = field(default_factory=dict)
    media: dict[str, MediaWrite] = field(default_factory=dict)
    components: dict[str, ComponentFieldWrite] = field(default_factory=dict)

    def walk(self) -> list[ModelWrite]:
        """This write and every nested component write, depth first."""
        found = [self]
        for field_write in self.components.values():
            for item in field_write.items:
                found.extend(item.write.walk())
        return found


@dataclass(slots=True)
class EntryWrite(ModelWrite):
    """A validated write of an entry: plus its locale (set at creation only)."""

    locale: str | None = None


def label(path: Path) -> str:
    """Strapi's name for a path in messages: ``links[0].url``, ``seo.metaTitle``."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def _js_length(text: str) -> int:
    """String length as JavaScript counts it (UTF-16 code units), as Strapi's limits do."""
    return len(text.encode("utf-16-le")) // 2


def _contains_nul(value: Any) -> bool:
    """PostgreSQL text and jsonb cannot hold U+0000; catch it here, not as a database error."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    return False


def _number_text(number: float | int) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _check_rules(attribute: ScalarAttribute, value: Any, name: str, is_draft: bool) -> str | None:
    """The first rule ``value`` breaks, as Strapi's message, or ``None``.

    As in Strapi, ``minLength`` is not enforced on drafts (a draft may be unfinished).
    """
    kind = attribute.type
    if _contains_nul(value):
        return MESSAGES["nul"].format(path=name)
    if kind in _TEXT_TYPES:
        length = _js_length(value)
        if attribute.min_length is not None and length < attribute.min_length and not is_draft:
            return MESSAGES["min_length"].format(path=name, min=attribute.min_length)
        limit = attribute.max_length
        if kind in _VARCHAR_TYPES and kind != "password":
            limit = min(limit, 255) if limit is not None else 255
        if limit is not None and length > limit:
            return MESSAGES["max_length"].format(path=name, max=limit)
        if attribute.regex is not None and value != "" and not re.search(attribute.regex, value):
            return MESSAGES["regex"].format(path=name, regex=attribute.regex)
    if kind in _NUMBER_TYPES:
        if attribute.min is not None and value < attribute.min:
            return MESSAGES["min"].format(path=name, min=_number_text(attribute.min))
        if attribute.max is not None and value > attribute.max:
            return MESSAGES["max"].format(path=name, max=_number_text(attribute.max))
    if kind == "enumeration" and value not in attribute.enum:
        return MESSAGES["enum"].format(path=name, values=", ".join(attribute.enum))
    if kind == "email":
        if value == "":
            return MESSAGES["empty"].format(path=name)
        if not _EMAIL.match(value):
            return MESSAGES["email"].format(path=name)
    if kind == "uid" and not _UID.match(value):
        return MESSAGES["regex"].format(path=name, regex=UID_PATTERN)
    return None


def _type_error(attribute: ScalarAttribute, raw: Any, name: str) -> str:
    """yup's ``typeError`` for a value that does not cast to the attribute's type."""
    js_type = _JS_TYPE.get(attribute.type)
    if js_type is None:
        return MESSAGES["required"].format(path=name)
    if js_type == "number" and raw is not None:
        return MESSAGES["type_cast"].format(path=name, type=js_type, value=print_value(raw))
    return MESSAGES["type"].format(path=name, type=js_type, value=print_value(raw))


def _parse_scalar(
    attribute: ScalarAttribute, raw: Any, name: str, is_draft: bool
) -> tuple[Any, str | None]:
    """(stored value, Strapi's message for the first problem or ``None``)."""
    try:
        value = parse_value(attribute.type, raw)
    except TypeMismatch:
        return None, _type_error(attribute, raw, name)
    except NestingTooDeep:
        return None, MESSAGES["depth"].format(path=name, max=MAX_JSON_DEPTH)
    except ValueError as problem:
        text = str(problem)
        if text == "must be an integer":
            return None, MESSAGES["integer"].format(path=name)
        if text == "is out of range":
            return None, MESSAGES["range"].format(path=name)
        return None, text  # date, time and datetime formats: Strapi's own sentences
    return value, _check_rules(attribute, value, name, is_draft)


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
        self.copied = (
            copied  # attributes whose values come from elsewhere (a localization's source)
        )
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
            if not path and name in self.copied:
                continue
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
                self.error(path, _type_error(attribute, None, name))
            else:
                write.columns[attribute.column] = None
            return
        if attribute.type == "blocks":
            self.blocks(write, attribute, raw, path)
            return
        value, problem = _parse_scalar(attribute, raw, name, self.is_draft)
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
        elif _contains_nul(value):
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
        locale = data.get("locale") or locales[0]
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
