"""Populated media (``files_related_morphs`` joined to ``files``) and what files are attached
to (a file's ``related``), read per level, never per row.

All media attributes of a level share one statement; a media list that filters or sorts its
files has one of its own (ties broken by the stored order, as Strapi's join does). What a
media reading populates of its files runs once for the files of all parents of the level.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import and_, select

from contentapi.query.ast import MediaPopulate, MorphPopulate, attribute_of
from contentapi.query.populate.base import Level, PopulatorBase
from contentapi.query.populate.columns import PARENT, Entry, select_columns, to_entry
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import ContentType, MediaAttribute, Model

__all__ = ["MediaReader"]


class MediaReader(PopulatorBase):
    """Reads populated media attributes and files' ``related`` of a level."""

    async def _media(self, level: Level, media: dict[str, MediaPopulate]) -> None:
        """All media of a level in one statement; a media list that filters or sorts its files
        (GraphQL's ``gallery(filters:, sort:)``) in one more of its own. Per level, never per
        row: each parent's page is cut by the shaper. What a reading populates of its files
        (``related``) is read once for all of them, the next level down."""
        conn, model, ids = level.conn, level.model, level.ids
        files, morphs = self.tables.files, self.tables.file_morphs
        assert files is not None and morphs is not None
        file_model = self.registry.content_types[FILE_UID]
        sql = self.compiler.sql
        grouped: dict[tuple[int, str], list[Entry]] = defaultdict(list)
        # attribute → (populate key, columns) of each reading of it in the shared statement
        shared: dict[str, list[tuple[str, list[tuple[str, str]]]]] = defaultdict(list)
        for name, node in media.items():
            columns = select_columns(file_model, node.fields)
            if node.filters is None and not node.sort:
                shared[attribute_of(name)].append((name, columns))
                continue
            statement = (
                select(morphs.c.related_id.label(PARENT), files)
                .select_from(morphs.join(files, files.c.id == morphs.c.file_id))
                .where(
                    morphs.c.related_type == model.uid,
                    sql.among(morphs.c.related_id, ids),
                    morphs.c.field == attribute_of(name),
                    self.compiler.where(file_model, files, node.filters),
                )
                .order_by(
                    *self.compiler.sort_terms(file_model, files, node.sort),
                    morphs.c.order,
                    morphs.c.id,
                )
            )
            for row in (await conn.execute(statement)).mappings():
                grouped[(int(row[PARENT]), name)].append(to_entry(row, columns))
        if shared:
            fields = list(shared)
            key = ("media", model.uid, tuple(fields))
            kept = self._statements.get(key)
            if kept is None:  # built once per model and media fields; the ids are bound
                kept = self._keep(
                    key,
                    select(
                        morphs.c.related_id.label(PARENT), morphs.c.field.label("__field"), files
                    )
                    .select_from(morphs.join(files, files.c.id == morphs.c.file_id))
                    .where(
                        and_(
                            morphs.c.related_type == model.uid,
                            sql.among(morphs.c.related_id),
                            sql.among(morphs.c.field, fields),
                        )
                    )
                    .order_by(morphs.c.order, morphs.c.id),
                )
            for kept_row in await self.kept.mappings(conn, kept, {"ids": ids}):
                parent = int(kept_row[PARENT])
                for name, columns in shared[kept_row["__field"]]:
                    grouped[(parent, name)].append(to_entry(kept_row, columns))
        multiple: dict[str, bool] = {}
        for name in media:
            attribute = model.attributes[attribute_of(name)]
            assert isinstance(attribute, MediaAttribute)
            multiple[name] = attribute.multiple
        for entry in level.entries:
            for name, many in multiple.items():
                found = grouped.get((int(entry["id"]), name), [])
                entry[name] = found if many else (found[0] if found else None)
        for name, node in media.items():
            if node.populate:
                loaded = [
                    file for (_, key), found in grouped.items() if key == name for file in found
                ]
                await self.run(conn, file_model, loaded, node.populate, level.publication_state)

    async def _morph(self, level: Level, name: str, node: MorphPopulate) -> None:
        """What each file is attached to: one statement for the attachments, then one per
        related model (entries of draft & publish types in the publication state asked)."""
        conn, ids, publication_state = level.conn, level.ids, level.publication_state
        morphs = self.tables.file_morphs
        assert morphs is not None
        sql = self.compiler.sql
        links = (
            await conn.execute(
                select(morphs.c.file_id, morphs.c.related_type, morphs.c.related_id)
                .where(
                    sql.among(morphs.c.file_id, ids),
                    morphs.c.related_type.in_(list(node.on)),
                )
                .order_by(morphs.c.file_id, morphs.c.id)
            )
        ).all()
        wanted: dict[str, set[int]] = defaultdict(set)
        for link in links:
            wanted[link.related_type].add(int(link.related_id))
        loaded: dict[tuple[str, int], Entry] = {}
        for uid, related_ids in wanted.items():
            model: Model | None = self.registry.content_types.get(uid) or (
                self.registry.components.get(uid)
            )
            if model is None:
                continue  # an attachment to a model that no longer exists
            spec = node.on[uid]
            table = self.tables.entity(uid)
            columns = select_columns(model, spec.fields)
            statement = select(*(table.c[c] for c, _ in columns)).where(
                sql.among(table.c.id, sorted(related_ids))
            )
            if isinstance(model, ContentType):
                statement = statement.where(
                    self.compiler.visible(model, table, publication_state, "all", None)
                )
            items = []
            for row in (await conn.execute(statement.order_by(table.c.id))).mappings():
                item = {"__type": uid, **to_entry(row, columns)}
                loaded[(uid, int(item["id"]))] = item
                items.append(item)
            await self.run(conn, model, items, spec.populate, publication_state)
        by_file: dict[int, list[Entry]] = defaultdict(list)
        for link in links:
            found = loaded.get((link.related_type, int(link.related_id)))
            if found is not None:
                by_file[int(link.file_id)].append(found)
        for entry in level.entries:
            entry[name] = by_file.get(int(entry["id"]), [])
