"""The Registry → ``components.schemas``: per content type and component, the answered shapes
(``{id, attributes}``, the envelopes) and the request bodies; with the shared pieces
(relation write forms, file references, pagination, the error shape) of ``shared_schemas.py``.

Names follow Strapi's (``Article``, ``ComponentSharedSeo``, ``UsersPermissionsUser`` —
``schema/type_names.py``) with a suffix per shape: ``ArticleEntry``, ``ArticleAttributes``,
``ArticleResponse``, ``ArticleListResponse``, ``ArticleRequest``, ``ArticleCreateRequest``.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema, input_schema, output_schema
from contentapi.openapi.shared_schemas import ID, SHARED, one_property, ref_to
from contentapi.schema.model import Component, ContentType, Model, ScalarAttribute
from contentapi.schema.registry import Registry
from contentapi.schema.type_names import type_name

__all__ = ["ModelSchemas"]

_SUFFIX = {
    "entry": "Entry",
    "attributes": "Attributes",
    "plain": "",
    "response": "Response",
    "list": "ListResponse",
    "create": "CreateRequest",
    "update": "Request",
    "localization": "LocalizationRequest",
    "output": "",
    "input": "Input",
    "zone-output": "ZoneItem",
    "zone-input": "ZoneInput",
}
_DATETIME = {"type": ["string", "null"], "format": "date-time"}


class ModelSchemas:
    """Builds the schemas of every model of a registry; ``ref`` names them."""

    def __init__(self, registry: Registry, locales: tuple[str, ...]) -> None:
        self.registry = registry
        self.locales = locales

    def name(self, key: str) -> str:
        """``"api::article.article#entry"`` → ``"ArticleEntry"``; plain names as they are."""
        uid, _, shape = key.partition("#")
        if not shape:
            return uid
        return type_name(self.registry.model(uid)) + _SUFFIX[shape]

    def ref(self, key: str) -> Schema:
        return ref_to(self.name(key))

    def all(self) -> dict[str, Schema]:
        schemas: dict[str, Schema] = dict(SHARED)
        for content_type in self.registry.content_types.values():
            schemas.update(self._content_type(content_type))
        for component in self.registry.components.values():
            schemas.update(self._component(component))
        return dict(sorted(schemas.items()))

    # ------------------------------------------------------------ answers

    def _outputs(self, model: Model) -> dict[str, Schema]:
        found: dict[str, Schema] = {}
        for name, attribute in model.attributes.items():
            schema = output_schema(attribute, self.ref)
            if schema is not None:
                found[name] = schema
        return found

    def _attributes(self, content_type: ContentType) -> Schema:
        properties = self._outputs(content_type)
        properties["createdAt"] = _DATETIME
        properties["updatedAt"] = _DATETIME
        if content_type.draft_and_publish:
            properties["publishedAt"] = {**_DATETIME, "description": "null for a draft"}
        if content_type.localized:
            properties["locale"] = {"type": "string", "example": self.locales[0]}
            properties["localizations"] = {
                "type": "object",
                "properties": {
                    "data": {"type": "array", "items": self.ref(f"{content_type.uid}#entry")}
                },
                "description": "present when populated",
            }
        return {
            "type": "object",
            "description": (
                f"{content_type.display_name}: the attributes `fields` selects, and those "
                "`populate` adds"
            ),
            "properties": properties,
        }

    def _plain(self, content_type: ContentType) -> Schema:
        """The users-permissions and upload shape: ``{id, ...attributes}``, relations as
        plain objects."""
        properties: dict[str, Schema] = {"id": ID}
        for name, attribute in content_type.attributes.items():
            if attribute.private:
                continue
            if isinstance(attribute, ScalarAttribute):
                if attribute.type != "password":
                    properties[name] = output_schema(attribute, self.ref) or {}
            else:
                properties[name] = {
                    "type": ["object", "array", "null"],
                    "description": "present when populated",
                }
        properties["createdAt"] = _DATETIME
        properties["updatedAt"] = _DATETIME
        return {"type": "object", "required": ["id"], "properties": properties}

    def _content_type(self, content_type: ContentType) -> dict[str, Schema]:
        uid = content_type.uid
        schemas = {
            self.name(f"{uid}#attributes"): self._attributes(content_type),
            self.name(f"{uid}#entry"): {
                "type": "object",
                "required": ["id", "attributes"],
                "properties": {"id": ID, "attributes": self.ref(f"{uid}#attributes")},
            },
        }
        if content_type.is_builtin:
            schemas[self.name(f"{uid}#plain")] = self._plain(content_type)
            return schemas
        schemas[self.name(f"{uid}#response")] = {
            "type": "object",
            "required": ["data", "meta"],
            "properties": {
                "data": self.ref(f"{uid}#entry"),
                "meta": {"type": "object"},
            },
        }
        if not content_type.is_single:
            schemas[self.name(f"{uid}#list")] = {
                "type": "object",
                "required": ["data", "meta"],
                "properties": {
                    "data": {"type": "array", "items": self.ref(f"{uid}#entry")},
                    "meta": {
                        "type": "object",
                        "required": ["pagination"],
                        "properties": {"pagination": ref_to("Pagination")},
                    },
                },
            }
        schemas[self.name(f"{uid}#create")] = self._request(content_type, creating=True)
        schemas[self.name(f"{uid}#update")] = self._request(content_type, creating=False)
        if content_type.localized:
            schemas[self.name(f"{uid}#localization")] = self._localization(content_type)
        return schemas

    # ------------------------------------------------------------ requests

    def _inputs(self, model: Model, *, creating: bool) -> tuple[dict[str, Schema], list[str]]:
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for name, attribute in model.attributes.items():
            schema = input_schema(attribute, self.ref)
            if schema is None:
                continue
            properties[name] = schema
            if creating and attribute.required:
                required.append(name)
        return properties, required

    def _data(self, content_type: ContentType, *, creating: bool) -> Schema:
        properties, required = self._inputs(content_type, creating=creating)
        if content_type.draft_and_publish:
            properties["publishedAt"] = {
                "type": ["string", "null"],
                "format": "date-time",
                "description": (
                    "null: a draft (required attributes may then be missing); "
                    "absent on create: published now"
                ),
            }
        if content_type.localized and creating:
            properties["locale"] = {
                "type": "string",
                "enum": list(self.locales),
                "default": self.locales[0],
            }
        data: Schema = {"type": "object", "properties": properties}
        if required:
            data["required"] = required
        return data

    def _request(self, content_type: ContentType, *, creating: bool) -> Schema:
        return {
            "type": "object",
            "required": ["data"],
            "properties": {"data": self._data(content_type, creating=creating)},
        }

    def _localization(self, content_type: ContentType) -> Schema:
        """``POST /api/P/:id/localizations`` and ``POST /api/S/localizations``: the attributes
        without a ``data`` envelope."""
        body = self._data(content_type, creating=True)
        body["required"] = ["locale"]
        return body

    # ------------------------------------------------------------ components

    def _component(self, component: Component) -> dict[str, Schema]:
        uid = component.uid
        outputs = {"id": ID, **self._outputs(component)}
        inputs, required = self._inputs(component, creating=True)
        inputs = {
            "id": {**ID, "description": "an existing item's id: updated in place"},
            **inputs,
        }
        item_input: Schema = {"type": "object", "properties": inputs}
        if required:
            item_input["required"] = required
        marker = {"type": "string", "const": uid}
        tagged = one_property("__component", marker)
        return {
            self.name(f"{uid}#output"): {
                "type": "object",
                "description": f"the {component.display_name} component",
                "properties": outputs,
            },
            self.name(f"{uid}#input"): item_input,
            self.name(f"{uid}#zone-output"): {"allOf": [self.ref(f"{uid}#output"), tagged]},
            self.name(f"{uid}#zone-input"): {"allOf": [self.ref(f"{uid}#input"), tagged]},
        }
