"""Strapi's GraphQL names (a port of the plugin's ``utils/naming.ts``), pure functions of models.

``api::article.article`` → ``Article``; ``plugin::users-permissions.user`` →
``UsersPermissionsUser``; the component ``shared.seo`` → ``ComponentSharedSeo`` (its globalId).
"""

from __future__ import annotations

import re

from contentapi.schema.model import ContentType, Model

__all__ = [
    "camel_case",
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
    "type_name",
    "upper_first",
]

_WORDS = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]+|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def camel_case(text: str) -> str:
    """lodash ``camelCase``: ``users-permissions`` → ``usersPermissions``, ``i18n`` → ``i18N``."""
    words = _WORDS.findall(text)
    if not words:
        return ""
    first, rest = words[0].lower(), words[1:]
    return first + "".join(word[:1].upper() + word[1:].lower() for word in rest)


def type_name(model: Model) -> str:
    """The object type of a content type or component."""
    if not isinstance(model, ContentType):
        return (
            "Component"
            + upper_first(camel_case(model.category))
            + upper_first(camel_case(model.name))
        )
    return _plugin_prefix(model) + upper_first(camel_case(model.singular_name))


def _plugin_prefix(model: ContentType) -> str:
    """``UsersPermissions`` for ``plugin::users-permissions.*``; nothing for ``api::``."""
    if not model.uid.startswith("plugin::"):
        return ""
    return upper_first(camel_case(model.uid.split("::", 1)[1].split(".", 1)[0]))


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
    plural = _plugin_prefix(model) + upper_first(camel_case(model.plural_name))
    return single[:1].lower() + single[1:], plural[:1].lower() + plural[1:]
