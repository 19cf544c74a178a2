"""A model's public type name, as Strapi's GraphQL plugin spells it (``utils/naming.ts``).

``api::article.article`` → ``Article``; ``plugin::users-permissions.user`` →
``UsersPermissionsUser``; the component ``shared.seo`` → ``ComponentSharedSeo`` (its globalId).
Both the GraphQL schema (``graphql/naming.py`` builds every other name on it) and the OpenAPI
document (``openapi/models.py``'s schema names) use it, so it lives below both, beside the models.
"""

from __future__ import annotations

import re

from contentapi.schema.model import ContentType, Model

__all__ = ["camel_case", "plugin_prefix", "type_name", "upper_first"]

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
    return plugin_prefix(model) + upper_first(camel_case(model.singular_name))


def plugin_prefix(model: ContentType) -> str:
    """``UsersPermissions`` for ``plugin::users-permissions.*``; nothing for ``api::``."""
    if not model.uid.startswith("plugin::"):
        return ""
    return upper_first(camel_case(model.uid.split("::", 1)[1].split(".", 1)[0]))
