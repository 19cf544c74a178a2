"""Strapi's GraphQL names (a port of the plugin's ``utils/naming.ts``), pure functions of models.

Every name is built on the model's type name (``schema/type_names.py``, shared with the OpenAPI
document): ``Article`` → ``ArticleEntityResponse``, ``ArticleFiltersInput``, ``articles``.
"""

from __future__ import annotations

from contentapi.schema.model import ContentType, Model
from contentapi.schema.type_names import camel_case, plugin_prefix, type_name, upper_first

__all__ = [
    "dynamic_zone_input_name",
    "dynamic_zone_name",
    "entity_name",
    "entity_response_collection_name",
    "entity_response_name",
    "enum_name",
    "filters_input_name",
    "input_name",
    "query_names",
    "relation_response_collection_name",
]


def entity_name(model: Model) -> str:
    return type_name(model) + "Entity"


def entity_response_name(model: Model) -> str:
    return type_name(model) + "EntityResponse"


def entity_response_collection_name(model: Model) -> str:
    return type_name(model) + "EntityResponseCollection"


def relation_response_collection_name(model: Model) -> str:
    return type_name(model) + "RelationResponseCollection"


def input_name(model: Model) -> str:
    return type_name(model) + "Input"


def filters_input_name(model: Model) -> str:
    return type_name(model) + "FiltersInput"


def dynamic_zone_name(model: Model, attribute: str) -> str:
    return type_name(model) + upper_first(camel_case(attribute)) + "DynamicZone"


def dynamic_zone_input_name(model: Model, attribute: str) -> str:
    return dynamic_zone_name(model, attribute) + "Input"


def enum_name(model: Model, attribute: str) -> str:
    return f"ENUM_{type_name(model).upper()}_{attribute.upper()}"


def query_names(model: ContentType) -> tuple[str, str]:
    """The single-entry and list query names: ``article`` / ``articles``,
    ``usersPermissionsUser`` / ``usersPermissionsUsers``."""
    single = type_name(model)
    plural = plugin_prefix(model) + upper_first(camel_case(model.plural_name))
    return single[:1].lower() + single[1:], plural[:1].lower() + plural[1:]
