"""What Strapi 4.25 does with a ``mappedBy`` side, which its metadata never reads: the owner
whose ``inversedBy`` names the attribute links it, whatever ``mappedBy`` says.

``owners_of`` finds that owner (``reference_rules`` checks the pair's kinds through it);
``inverse_notes`` turns what Strapi loads silently into warnings ``contentapi check`` prints,
and names the attributes no owner links, which the registry leaves out.
"""

from __future__ import annotations

from collections.abc import Iterable

from contentapi.schema.model import Component, ContentType, RelationAttribute
from contentapi.schema.model_errors import ModelError

__all__ = ["inverse_notes", "owners_of"]


def owners_of(
    model: ContentType | Component, attribute: RelationAttribute, target: ContentType
) -> list[RelationAttribute]:
    """The relations of ``target`` whose ``inversedBy`` names ``attribute`` of ``model``:
    where Strapi stores a ``mappedBy`` side (its metadata never reads ``mappedBy`` itself)."""
    return [
        other
        for other in target.attributes.values()
        if isinstance(other, RelationAttribute)
        and other.target == model.uid
        and other.inversed_by == attribute.name
    ]


def inverse_notes(
    content_types: Iterable[ContentType],
) -> tuple[list[ModelError], dict[str, set[str]]]:
    """Warnings for ``mappedBy`` sides (of models that passed ``check_references``) that
    Strapi 4.25 loads silently, and the attributes that hold nothing.

    - ``mappedBy`` names another attribute than the owner that names this one in its
      ``inversedBy``: Strapi links through that owner, and so do we (a warning says what to
      write).
    - no owner names it: in Strapi the attribute holds nothing (populate leaves it out, a
      write is ignored, a filter is a 500). It is left out of the model here (a warning says
      so): unknown to populate (ignored), filters and sort (400), writes (ignored), GraphQL.

    Returns the warnings and, per model uid, the attributes to leave out.
    """
    types = {ct.uid: ct for ct in content_types}
    notes: list[ModelError] = []
    unlinked: dict[str, set[str]] = {}
    for model in types.values():
        for attribute in model.attributes.values():
            if not isinstance(attribute, RelationAttribute) or attribute.mapped_by is None:
                continue
            target = types.get(attribute.target)
            if target is None:
                continue
            owners = owners_of(model, attribute, target)
            if len(owners) == 1 and owners[0].name != attribute.mapped_by:
                message = (
                    f"mappedBy '{attribute.mapped_by}' is not the relation that points back: "
                    f"linked through '{target.uid}.{owners[0].name}' (inversedBy "
                    f"'{attribute.name}'), as Strapi does; write mappedBy '{owners[0].name}'"
                )
                notes.append(ModelError(model.source, attribute.name, message))
            elif not owners:
                message = (
                    f"mappedBy '{attribute.mapped_by}': no relation of '{target.uid}' names "
                    f"'{attribute.name}' in its inversedBy, so it holds nothing (as in Strapi, "
                    "which loads it silently); left out of the model"
                )
                notes.append(ModelError(model.source, attribute.name, message))
                unlinked.setdefault(model.uid, set()).add(attribute.name)
    return notes, unlinked
