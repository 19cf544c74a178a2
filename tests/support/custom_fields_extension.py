"""An extension declaring a custom field as Strapi's ``strapi.customFields.register`` does
(tests of the Strapi layout and of ``contentapi check``)."""

from __future__ import annotations

from typing import Any


def register_custom_fields(fields: Any) -> None:
    fields.register({"name": "stars", "plugin": "rating", "type": "integer"})


def register(app: Any) -> None:
    """Nothing else to customize."""
