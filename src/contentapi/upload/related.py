"""``populate=related`` on ``GET /api/upload/files`` and ``/api/upload/files/:id``: what each
file is attached to, as Strapi's upload routes answer it (the file model's ``related`` is a
morph relation there; our file model has no such attribute, so the REST parser never sees it).

Asked by ``populate=related``, ``populate=*``, a list or comma list naming it, or an object
key. Each item is the related entry (drafts and every locale too) or component (its scalar
attributes) as a plain object after its ``__type``, in the order of the attachments;
entries of types the caller may not ``find`` are left out, as Strapi's output sanitizer does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import select

from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.entries.serialize import RestSerializer
from contentapi.query.ast import ComponentPopulate, MorphPopulate, ReadQuery
from contentapi.schema.registry import Registry

__all__ = ["RELATED", "in_attachment_order", "plain_related", "with_related"]

RELATED = "related"


def _asks_related(value: Any) -> bool:
    if isinstance(value, str):
        return value == "*" or RELATED in (part.strip() for part in value.split(","))
    if isinstance(value, list):
        return any(_asks_related(item) for item in value if isinstance(item, str))
    if isinstance(value, Mapping):
        return RELATED in value
    return False


def with_related(
    query: ReadQuery,
    params: Mapping[str, Any],
    registry: Registry,
    may_find: Callable[[str], bool],
) -> ReadQuery:
    """``query`` with the files' ``related`` populated when ``params`` ask for it."""
    if not _asks_related(params.get("populate")):
        return query
    on = {uid: ComponentPopulate() for uid in registry.content_types if may_find(uid)}
    on.update({uid: ComponentPopulate() for uid in registry.components})
    return ReadQuery(
        pagination=query.pagination,
        # drafts too: Strapi's morph populate reads every attachment whatever its state
        # (files have no draft state of their own)
        publication_state="preview",
        locale=query.locale,
        filters=query.filters,
        sort=query.sort,
        fields=query.fields,
        populate={**query.populate, RELATED: MorphPopulate(on=on)},
    )


def plain_related(
    serializer: RestSerializer, registry: Registry, file: dict[str, Any]
) -> dict[str, Any]:
    """A plain file whose ``related`` items are rendered by their own model."""
    items = file.get(RELATED)
    if not isinstance(items, list):
        return file
    rendered = []
    for item in items:
        uid = item.get("__type")
        model = registry.content_types.get(uid) or registry.components.get(uid)
        rest = {k: v for k, v in item.items() if k != "__type"}
        rendered.append({"__type": uid, **(serializer.plain(model, rest) if model else rest)})
    return {**file, RELATED: rendered}


async def in_attachment_order(
    database: Database, tables: ContentTables, files: list[dict[str, Any]]
) -> None:
    """Each file's ``related`` in Strapi's order: by the attachment's ``order`` (its place in
    the field that holds the file), ties in the order the attachments were made — one small
    read of the links, only when ``related`` was asked."""
    asked = [file for file in files if isinstance(file.get(RELATED), list)]
    if not asked:
        return
    morphs = tables.file_morphs
    assert morphs is not None
    ids = [int(file["id"]) for file in asked]
    async with database.read() as conn:
        links = (
            await conn.execute(
                select(morphs.c.file_id, morphs.c.related_type, morphs.c.related_id)
                .where(morphs.c.file_id.in_(ids))
                .order_by(morphs.c.file_id, morphs.c.order, morphs.c.id)
            )
        ).all()
    ordered: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for link in links:
        ordered[int(link.file_id)].append((link.related_type, int(link.related_id)))
    for file in asked:
        loaded = {(item["__type"], int(item["id"])): item for item in file[RELATED]}
        file[RELATED] = [loaded[key] for key in ordered[int(file["id"])] if key in loaded]
