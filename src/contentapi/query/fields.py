"""Which names of a model a query may read, filter and sort on, and where they are stored.

One place decides that private and password attributes are invisible to queries (they answer
exactly like an unknown name, so a query cannot tell they exist) and which system attributes
every entry carries.
"""

from __future__ import annotations

from dataclasses import dataclass

from contentapi.errors import ValidationError
from contentapi.schema.model import ContentType, Model, ScalarAttribute

__all__ = ["ScalarField", "invalid_parameter", "readable_names", "scalar_field"]


#: Types queried as another: Strapi's query validators and database treat a blocks attribute
#: as JSON (a ``jsonb`` column; ``$null``/``$notNull``, no sort — see ``query/parse.py``).
_QUERY_KINDS = {"blocks": "json"}


@dataclass(frozen=True, slots=True)
class ScalarField:
    name: str
    column: str
    kind: str


def invalid_parameter(name: str) -> ValidationError:
    return ValidationError(f"Invalid parameter {name}")


def _system_fields(model: Model) -> list[ScalarField]:
    if not isinstance(model, ContentType):
        return []
    found = [
        ScalarField("createdAt", "created_at", "datetime"),
        ScalarField("updatedAt", "updated_at", "datetime"),
    ]
    if model.draft_and_publish:
        found.append(ScalarField("publishedAt", "published_at", "datetime"))
    if model.localized:
        found.append(ScalarField("locale", "locale", "string"))
    return found


def scalar_field(model: Model, name: str) -> ScalarField | None:
    """The readable scalar called ``name`` (``id`` and system attributes included)."""
    if name == "id":
        return ScalarField("id", "id", "integer")
    attribute = model.attributes.get(name)
    if isinstance(attribute, ScalarAttribute):
        if attribute.private:
            return None
        return ScalarField(name, attribute.column, _QUERY_KINDS.get(attribute.type, attribute.type))
    for system in _system_fields(model):
        if system.name == name:
            return system
    return None


def readable_names(model: Model) -> list[str]:
    """Every scalar a response may carry, in Strapi's order (attributes, then system ones)."""
    names = [
        a.name
        for a in model.attributes.values()
        if isinstance(a, ScalarAttribute) and not a.private
    ]
    return names + [system.name for system in _system_fields(model)]
