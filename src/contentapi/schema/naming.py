"""Strapi v4 storage names: columns, link tables, join columns, order columns.

Strapi derives every database identifier with lodash's ``snakeCase``; matching it exactly is
what lets contentapi serve a database a real Strapi v4 created (ARCHITECTURE, storage layout).
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "MAX_IDENTIFIER_LENGTH",
    "column_name",
    "component_join_table",
    "link_table",
    "shorten",
    "snake_case",
]

MAX_IDENTIFIER_LENGTH = 63  # PostgreSQL's NAMEDATALEN - 1

# lodash `words`: runs of upper-case followed by a capitalised word, capitalised words,
# lower-case runs, upper-case runs, and digit runs are separate words.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def snake_case(text: str) -> str:
    """lodash ``_.snakeCase``: ``readingTime`` → ``reading_time``, ``address2`` → ``address_2``."""
    return "_".join(word.lower() for word in _WORD.findall(text))


def column_name(attribute_name: str) -> str:
    """An attribute's column; longer than 63 characters it is shortened (Strapi lets
    PostgreSQL truncate it silently, after which Strapi can no longer read it back)."""
    return shorten(snake_case(attribute_name))


def link_table(table_name: str, attribute_name: str) -> str:
    """``<table>_<attribute>_links``, the link table of a relation's owning side."""
    return shorten(snake_case(f"{table_name}_{attribute_name}_links"))


def component_join_table(table_name: str) -> str:
    """``<table>_components``: joins an entity to its components and dynamic-zone items."""
    return shorten(f"{table_name}_components")


def shorten(identifier: str) -> str:
    """Keep identifiers within PostgreSQL's 63 characters, deterministically.

    PostgreSQL silently truncates longer names, which can make two names collide; a short
    hash of the full name keeps them distinct and stable across restarts.
    """
    if len(identifier) <= MAX_IDENTIFIER_LENGTH:
        return identifier
    digest = hashlib.sha256(identifier.encode()).hexdigest()[:6]
    return f"{identifier[: MAX_IDENTIFIER_LENGTH - 7]}_{digest}"
