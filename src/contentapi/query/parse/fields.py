"""The ``fields`` parameter → the scalar names to read (``None``: all of them).

Strings, comma lists and arrays; ``*`` reads all; a name that is no readable scalar attribute
(unknown, private, a password, a relation) is a 400, beside ``*`` too, as in Strapi."""

from __future__ import annotations

from typing import Any

from contentapi.errors import ValidationError
from contentapi.query.fields import invalid_parameter, scalar_field
from contentapi.query.parse.shapes import as_list
from contentapi.schema.model import Model

__all__ = ["parse_fields"]


def parse_fields(model: Model, value: Any) -> tuple[str, ...] | None:
    names: list[str] = []
    for item in as_list(value):
        if not isinstance(item, str):
            raise ValidationError("Invalid fields parameter")
        names.extend(part.strip() for part in item.split(",") if part.strip())
    for name in names:  # beside `*` too: `fields[0]=*&fields[1]=bogus` is a 400 in Strapi
        if name != "*" and scalar_field(model, name) is None:
            raise invalid_parameter(name)
    if not names or "*" in names:
        return None
    return tuple(dict.fromkeys(names))
