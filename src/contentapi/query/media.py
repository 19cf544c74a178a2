"""File entries as media attributes show them: Strapi's upload file fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FILE_COLUMNS", "FILE_FIELDS", "file_entry"]

#: attribute name → column of the ``files`` table, in Strapi's response order.
FILE_COLUMNS = {
    "name": "name",
    "alternativeText": "alternative_text",
    "caption": "caption",
    "width": "width",
    "height": "height",
    "formats": "formats",
    "hash": "hash",
    "ext": "ext",
    "mime": "mime",
    "size": "size",
    "url": "url",
    "previewUrl": "preview_url",
    "provider": "provider",
    "provider_metadata": "provider_metadata",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
}
FILE_FIELDS = frozenset(FILE_COLUMNS)


def file_entry(row: Mapping[str, Any], fields: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A ``files`` row → an entry dict (``id`` plus the file attributes)."""
    names = fields if fields is not None else tuple(FILE_COLUMNS)
    entry: dict[str, Any] = {"id": int(row["id"])}
    for name in names:
        entry[name] = row[FILE_COLUMNS[name]]
    return entry
