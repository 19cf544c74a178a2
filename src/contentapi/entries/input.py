"""Validate a write body's ``data`` against a content type: types, rules, defaults.

Consumes the client's ``data`` object; produces ``EntryInput`` (column values ready to store
plus the values whose uniqueness the service must check in the database), or raises one
``ValidationError`` listing every problem with its path. Nothing here touches the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from contentapi.entries.messages import MESSAGES, print_value
from contentapi.errors import FieldError, ValidationError
from contentapi.schema.model import ContentType, ScalarAttribute
from contentapi.values import TypeMismatch, parse_value

__all__ = ["EntryInput", "parse_entry_input"]

# yup's email rule (what Strapi validates with), in Python's regex dialect.
_ATEXT = r"[a-z0-9!#$%&'*+\-/=?^_`{|}~\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_LABEL = r"[a-z0-9\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]"
_EMAIL = re.compile(
    rf"^{_ATEXT}+(\.{_ATEXT}+)*@(({_LABEL}|{_LABEL}[a-z0-9\-._~\u00A0-\uD7FF]*{_LABEL})\.)+"
    rf"([a-z\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]|[a-z\u00A0-\uD7FF][a-z0-9\-._~\u00A0-\uD7FF]*"
    rf"[a-z\u00A0-\uD7FF])$",
    re.IGNORECASE,
)
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
}


@dataclass(slots=True)
class EntryInput:
    """A validated write: column → value, and the unique attributes to check."""

    columns: dict[str, Any] = field(default_factory=dict)
    unique: list[tuple[ScalarAttribute, Any]] = field(default_factory=list)
    locale: str | None = None
    #: column → plain password; hashed by the service off the event loop before storing.
    passwords: dict[str, str] = field(default_factory=dict)


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


def _check_rules(attribute: ScalarAttribute, value: Any, path: str, is_draft: bool) -> str | None:
    """The first rule ``value`` breaks, as Strapi's message, or ``None``.

    As in Strapi, ``minLength`` is not enforced on drafts (a draft may be unfinished).
    """
    kind = attribute.type
    if _contains_nul(value):
        return MESSAGES["nul"].format(path=path)
    if kind in _TEXT_TYPES:
        length = _js_length(value)
        if attribute.min_length is not None and length < attribute.min_length and not is_draft:
            return MESSAGES["min_length"].format(path=path, min=attribute.min_length)
        limit = attribute.max_length
        if kind in _VARCHAR_TYPES and kind != "password":
            limit = min(limit, 255) if limit is not None else 255
        if limit is not None and length > limit:
            return MESSAGES["max_length"].format(path=path, max=limit)
        if attribute.regex is not None and value != "" and not re.search(attribute.regex, value):
            return MESSAGES["regex"].format(path=path, regex=attribute.regex)
    if kind in _NUMBER_TYPES:
        if attribute.min is not None and value < attribute.min:
            return MESSAGES["min"].format(path=path, min=_number_text(attribute.min))
        if attribute.max is not None and value > attribute.max:
            return MESSAGES["max"].format(path=path, max=_number_text(attribute.max))
        if kind == "decimal" and abs(round(value, 2)) >= 10**8:  # numeric(10,2)
            return MESSAGES["range"].format(path=path)
    if kind == "enumeration" and value not in attribute.enum:
        return MESSAGES["enum"].format(path=path, values=", ".join(attribute.enum))
    if kind == "email":
        if value == "":
            return MESSAGES["empty"].format(path=path)
        if not _EMAIL.match(value):
            return MESSAGES["email"].format(path=path)
    if kind == "uid" and not _UID.match(value):
        return MESSAGES["regex"].format(path=path, regex=UID_PATTERN)
    return None


def _type_error(attribute: ScalarAttribute, raw: Any, path: str) -> str:
    """yup's ``typeError`` for a value that does not cast to the attribute's type."""
    js_type = _JS_TYPE.get(attribute.type)
    if js_type is None:
        return MESSAGES["required"].format(path=path)
    if js_type == "number" and raw is not None:
        return MESSAGES["type_cast"].format(path=path, type=js_type, value=print_value(raw))
    return MESSAGES["type"].format(path=path, type=js_type, value=print_value(raw))


def _parse_scalar(
    attribute: ScalarAttribute, raw: Any, path: str, is_draft: bool
) -> tuple[Any, str | None]:
    """(stored value, Strapi's message for the first problem or ``None``)."""
    try:
        value = parse_value(attribute.type, raw)
    except TypeMismatch:
        return None, _type_error(attribute, raw, path)
    except ValueError as problem:
        text = str(problem)
        if text == "must be an integer":
            return None, MESSAGES["integer"].format(path=path)
        if text == "is out of range":
            return None, MESSAGES["range"].format(path=path)
        return None, text  # date, time and datetime formats: Strapi's own sentences
    return value, _check_rules(attribute, value, path, is_draft)


def parse_entry_input(
    content_type: ContentType,
    data: Any,
    *,
    creating: bool,
    locales: tuple[str, ...],
    was_draft: bool = False,
    now: datetime | None = None,
) -> EntryInput:
    """Validate ``data`` for a create (``creating``: defaults, required) or a partial update.

    ``was_draft`` is the entry's state before an update. Strapi enforces ``required`` only on
    entries that are not drafts: a draft is a create with ``publishedAt: null``, or an update
    of a draft that does not publish it.
    """
    if not isinstance(data, Mapping):
        raise ValidationError('Missing "data" payload in the request body')
    errors: list[FieldError] = []
    result = EntryInput()
    is_draft = content_type.draft_and_publish and (
        data["publishedAt"] is None if "publishedAt" in data else (was_draft and not creating)
    )
    for name, attribute in content_type.attributes.items():
        if not isinstance(attribute, ScalarAttribute):
            if name in data and data[name] is not None:
                errors.append(
                    FieldError(
                        (name,),
                        f"{name}: writing {attribute.type} attributes is not supported yet",
                    )
                )
            continue
        if name not in data:
            if not creating:
                continue
            if attribute.has_default and attribute.default is not None:
                raw: Any = attribute.default
            elif attribute.required and not is_draft:
                errors.append(FieldError((name,), MESSAGES["required"].format(path=name)))
                continue
            else:
                continue
        else:
            raw = data[name]
        if raw is None:
            if attribute.required and not is_draft:
                errors.append(FieldError((name,), _type_error(attribute, None, name)))
            else:
                result.columns[attribute.column] = None
            continue
        value, problem = _parse_scalar(attribute, raw, name, is_draft)
        if problem is not None:
            errors.append(FieldError((name,), problem))
            continue
        if attribute.type == "password":
            result.passwords[attribute.column] = value
            continue
        result.columns[attribute.column] = value
        if attribute.unique or attribute.type == "uid":
            result.unique.append((attribute, value))
    moment = now or datetime.now(UTC).replace(tzinfo=None)
    if content_type.draft_and_publish:
        if "publishedAt" in data:
            raw_published = data["publishedAt"]
            if raw_published is None:
                result.columns["published_at"] = None
            else:
                try:
                    result.columns["published_at"] = parse_value("datetime", raw_published)
                except ValueError as problem:
                    errors.append(FieldError(("publishedAt",), str(problem)))
        elif creating:
            result.columns["published_at"] = moment
    if content_type.localized and creating:
        # The locale is chosen at creation only; on update Strapi ignores it.
        locale = data.get("locale") or locales[0]
        if locale not in locales:
            errors.append(FieldError(("locale",), MESSAGES["locale"]))
        result.locale = locale
        result.columns["locale"] = locale
    if errors:
        raise ValidationError.from_errors(errors)
    if creating:
        result.columns["created_at"] = moment
    result.columns["updated_at"] = moment
    return result
