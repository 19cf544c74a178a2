"""What ``entry.publish`` and ``entry.unpublish`` carry: the entry as Strapi's content manager
reads it when its admin publishes or unpublishes.

Strapi 4.25 sends these two events from its content manager only (``entity-manager``'s
``publish``/``unpublish``), with the entry its ``entityService.update`` returned under the
content manager's deep populate: with ``server.webhooks.populateRelations`` false, as a new
project's ``config/server.js`` sets it, every relation is a count (``{"count": n}``, drafts
included), localizations are the sibling entries' own attributes, media are the files, and
components and dynamic zones are read in full, with the same rules inside them. Recorded in
``tests/fixtures/strapi_webhooks.json`` (steps 5 and 13).
"""

from __future__ import annotations

from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    Populate,
    ReadQuery,
    RelationPopulate,
)
from contentapi.schema.model import (
    Component,
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    RelationAttribute,
)
from contentapi.schema.registry import Registry

__all__ = ["PublicationPayloads"]

#: a relation as the content manager counts it: every related entry, drafts too
_COUNTED = RelationPopulate(count=True, publication_state="preview")
#: the localizations, which the content manager reads whole (they are not a visible attribute)
_SIBLINGS = RelationPopulate(publication_state="preview")


class PublicationPayloads:
    """The read query of a publication event's entry, built once per content type."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._queries: dict[str, ReadQuery] = {}

    def query(self, content_type: ContentType) -> ReadQuery:
        """How to read ``content_type``'s entry for its ``entry.publish``/``unpublish``."""
        query = self._queries.get(content_type.uid)
        if query is None:
            populate = self._populate(content_type)
            if content_type.localized:
                populate["localizations"] = _SIBLINGS  # last, as i18n appends the attribute
            query = ReadQuery(publication_state="preview", populate=populate)
            self._queries[content_type.uid] = query
        return query

    def _populate(self, model: ContentType | Component) -> Populate:
        """Every relation counted, every file, component and dynamic zone read in full, in the
        model's attribute order (the order Strapi's payload lists them in)."""
        populate: Populate = {}
        for name, attribute in model.attributes.items():
            if attribute.private:
                continue
            if isinstance(attribute, RelationAttribute):
                populate[name] = _COUNTED
            elif isinstance(attribute, MediaAttribute):
                populate[name] = MediaPopulate()
            elif isinstance(attribute, ComponentAttribute):
                component = self.registry.components[attribute.component]
                populate[name] = ComponentPopulate(populate=self._populate(component))
            elif isinstance(attribute, DynamicZoneAttribute):
                populate[name] = DynamicZonePopulate(
                    on={
                        uid: ComponentPopulate(
                            populate=self._populate(self.registry.components[uid])
                        )
                        for uid in attribute.components
                    }
                )
        return populate
