"""A small library of models for the parser's unit tests: every attribute kind the parser
treats apart (scalars of each query kind, private and password names, a relation each way, a
relation to a type callers may be denied, media, a component, a dynamic zone, a localized
type). ``conftest.py`` writes them to a temporary folder and loads them as the server does."""

from __future__ import annotations

from typing import Any

BOOK = "api::book.book"
WRITER = "api::writer.writer"
VAULT = "api::vault.vault"


def _type(singular: str, plural: str, attributes: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "kind": "collectionType",
        "collectionName": plural,
        "info": {"singularName": singular, "pluralName": plural, "displayName": singular},
        "options": {"draftAndPublish": False},
        "attributes": attributes,
        **extra,
    }


CONTENT_TYPES = {
    "book": _type(
        "book",
        "books",
        {
            "title": {"type": "string"},
            "summary": {"type": "text"},
            "pages": {"type": "integer"},
            "isbn": {"type": "biginteger"},
            "rating": {"type": "float"},
            "price": {"type": "decimal"},
            "inPrint": {"type": "boolean"},
            "released": {"type": "date"},
            "metadata": {"type": "json"},
            "secret": {"type": "string", "private": True},
            "code": {"type": "password"},
            "author": {
                "type": "relation",
                "relation": "manyToOne",
                "target": WRITER,
                "inversedBy": "books",
            },
            "vault": {"type": "relation", "relation": "manyToOne", "target": VAULT},
            "cover": {"type": "media", "multiple": False},
            "seo": {"type": "component", "repeatable": False, "component": "shared.meta"},
            "hiddenSeo": {
                "type": "component",
                "repeatable": False,
                "component": "shared.meta",
                "private": True,
            },
            "parts": {"type": "dynamiczone", "components": ["parts.quote", "parts.text"]},
        },
        pluginOptions={"i18n": {"localized": True}},
    ),
    "writer": _type(
        "writer",
        "writers",
        {
            "name": {"type": "string"},
            "books": {
                "type": "relation",
                "relation": "oneToMany",
                "target": BOOK,
                "mappedBy": "author",
            },
        },
    ),
    "vault": _type("vault", "vaults", {"label": {"type": "string"}}),
}

COMPONENTS = {
    ("shared", "meta"): {
        "metaTitle": {"type": "string"},
        "image": {"type": "media", "multiple": False},
    },
    ("parts", "quote"): {
        "text": {"type": "string"},
        "by": {"type": "relation", "relation": "oneToOne", "target": WRITER},
    },
    ("parts", "text"): {"body": {"type": "text"}, "text": {"type": "integer"}},
}
