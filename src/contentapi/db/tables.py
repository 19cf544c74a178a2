"""Registry → SQLAlchemy ``MetaData``: Strapi v4's storage layout, to the table and column name.

- one table per content type: ``id``, scalar columns, timestamps, ``published_at`` (draft &
  publish), ``locale`` (i18n), ``created_by_id``/``updated_by_id``;
- one link table per relation owner, with order columns and indexes on both ids;
- one table per component, attached through ``<table>_components``;
- ``files`` and ``files_related_morphs`` for media; ``<table>_localizations_links`` for i18n.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import (
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

from contentapi.db.types import column_type, datetime_type
from contentapi.schema.builtin import FILE_UID
from contentapi.schema.model import Component, ContentType, Model, RelationAttribute, RelationLink
from contentapi.schema.naming import component_join_table, shorten, snake_case
from contentapi.schema.registry import Registry

__all__ = ["ContentTables", "build_tables"]


@dataclass(frozen=True, slots=True)
class ContentTables:
    """Every content table, by what it stores."""

    metadata: MetaData
    entities: dict[str, Table] = field(default_factory=dict)  # model uid → table
    links: dict[str, Table] = field(default_factory=dict)  # link table name → table
    component_joins: dict[str, Table] = field(default_factory=dict)  # model uid → join table
    localizations: dict[str, Table] = field(default_factory=dict)  # content type uid → table
    files: Table | None = None
    file_morphs: Table | None = None

    def entity(self, uid: str) -> Table:
        return self.entities[uid]

    def link(self, relation: RelationLink) -> Table:
        return self.links[relation.table]


def _entity_table(metadata: MetaData, model: Model) -> Table:
    columns: list[Column | UniqueConstraint | Index] = [
        Column("id", Integer, primary_key=True, autoincrement=True)
    ]
    for attribute in model.scalars():
        columns.append(Column(attribute.column, column_type(attribute.type), nullable=True))
        if attribute.type == "uid":
            # Strapi gives every uid a database-level unique constraint (global, all locales).
            name = shorten(f"{model.table}_{attribute.column}_unique")
            columns.append(UniqueConstraint(attribute.column, name=name))
        if attribute.indexed:  # asked for by the model (pluginOptions.contentapi.index)
            columns.append(
                Index(shorten(f"{model.table}_{attribute.column}_index"), attribute.column)
            )
    if isinstance(model, ContentType):
        columns += [
            Column("created_at", datetime_type()),
            Column("updated_at", datetime_type()),
        ]
        if model.draft_and_publish:
            columns.append(Column("published_at", datetime_type()))
        columns += [Column("created_by_id", Integer), Column("updated_by_id", Integer)]
        if model.localized:
            columns.append(Column("locale", String(255)))
        for indexed in model.indexes:  # pluginOptions.contentapi.indexes, after every column
            columns.append(Index(shorten(f"{model.table}_{'_'.join(indexed)}_index"), *indexed))
    # AUTOINCREMENT on SQLite: a deleted entry's id is never handed out again (as PostgreSQL's
    # serial), so a stale reference can never point at a different entry.
    return Table(model.table, metadata, *columns, sqlite_autoincrement=True)


def _link_table(
    metadata: MetaData, model: Model, attribute: RelationAttribute, link: RelationLink, target: str
) -> Table:
    name = link.table
    columns: list[Column] = [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column(link.source_column, Integer, ForeignKey(f"{model.table}.id", ondelete="CASCADE")),
        Column(link.target_column, Integer, ForeignKey(f"{target}.id", ondelete="CASCADE")),
    ]
    if link.order_column:
        columns.append(Column(link.order_column, Double))
    if link.inverse_order_column:
        columns.append(Column(link.inverse_order_column, Double))
    constraints: list[UniqueConstraint | Index] = [
        UniqueConstraint(link.source_column, link.target_column, name=shorten(f"{name}_unique")),
        Index(shorten(f"{name}_fk"), link.source_column),
        Index(shorten(f"{name}_inv_fk"), link.target_column),
    ]
    if link.order_column:
        constraints.append(Index(shorten(f"{name}_order_fk"), link.order_column))
    if link.inverse_order_column:
        constraints.append(Index(shorten(f"{name}_order_inv_fk"), link.inverse_order_column))
    # A to-one owner holds at most one row per owner entry; a to-one inverse side likewise.
    if attribute.relation in ("oneToOne", "manyToOne"):
        constraints.append(UniqueConstraint(link.source_column, name=shorten(f"{name}_one_uq")))
    if attribute.relation in ("oneToOne", "oneToMany") and attribute.is_bidirectional:
        constraints.append(UniqueConstraint(link.target_column, name=shorten(f"{name}_inv_one_uq")))
    return Table(name, metadata, *columns, *constraints)


def _component_join_table(metadata: MetaData, model: Model) -> Table:
    name = component_join_table(model.table)
    prefix = (
        model.table
    )  # Strapi names these constraints after the entity table, not the join table
    return Table(
        name,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("entity_id", Integer, ForeignKey(f"{model.table}.id", ondelete="CASCADE")),
        Column("component_id", Integer),
        Column("component_type", String(255)),
        Column("field", String(255)),
        Column("order", Double),
        UniqueConstraint(
            "entity_id", "component_id", "field", "component_type", name=shorten(f"{prefix}_unique")
        ),
        Index(shorten(f"{prefix}_field_index"), "field"),
        Index(shorten(f"{prefix}_component_type_index"), "component_type"),
        Index(shorten(f"{prefix}_entity_fk"), "entity_id"),
    )


def _localizations_table(metadata: MetaData, content_type: ContentType) -> Table:
    name = shorten(f"{content_type.table}_localizations_links")
    own = snake_case(f"{content_type.singular_name}_id")
    other = f"inv_{own}"
    order = snake_case(f"{content_type.singular_name}_order")
    return Table(
        name,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column(own, Integer, ForeignKey(f"{content_type.table}.id", ondelete="CASCADE")),
        Column(other, Integer, ForeignKey(f"{content_type.table}.id", ondelete="CASCADE")),
        Column(order, Double),
        UniqueConstraint(own, other, name=shorten(f"{name}_unique")),
        Index(shorten(f"{name}_fk"), own),
        Index(shorten(f"{name}_inv_fk"), other),
        Index(shorten(f"{name}_order_fk"), order),
    )


def _morphs_table(metadata: MetaData) -> Table:
    """``files_related_morphs``: which entry (or component row) holds which file, in order."""
    return Table(
        "files_related_morphs",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("file_id", Integer, ForeignKey("files.id", ondelete="CASCADE")),
        Column("related_id", Integer),
        Column("related_type", String(255)),
        Column("field", String(255)),
        Column("order", Double),
        Index("files_related_morphs_fk", "file_id"),
        Index("files_related_morphs_order_index", "order"),
        Index("files_related_morphs_id_column_index", "related_id"),
    )


#: The upload plugin's indexes on ``files`` (Strapi's names).
_FILE_INDEXES = ("folder_path", "created_at", "updated_at", "name", "size", "ext")


def build_tables(registry: Registry) -> ContentTables:
    """Every content table the registry needs, in one ``MetaData``."""
    metadata = MetaData()
    tables = ContentTables(metadata)
    models: list[ContentType | Component] = registry.models()
    for model in models:
        tables.entities[model.uid] = _entity_table(metadata, model)
    for model in models:
        for name, link in model.links.items():
            attribute = model.attributes[name]
            if not link.owner or not isinstance(attribute, RelationAttribute):
                continue
            target = registry.content_types[attribute.target].table
            tables.links[link.table] = _link_table(metadata, model, attribute, link, target)
        if any(a.type in ("component", "dynamiczone") for a in model.attributes.values()):
            tables.component_joins[model.uid] = _component_join_table(metadata, model)
        if isinstance(model, ContentType) and model.localized:
            tables.localizations[model.uid] = _localizations_table(metadata, model)
    files = tables.entities[FILE_UID]
    for column in _FILE_INDEXES:
        Index(f"upload_files_{column}_index", files.c[column])
    morphs = _morphs_table(metadata)
    return ContentTables(
        metadata,
        tables.entities,
        tables.links,
        tables.component_joins,
        tables.localizations,
        files,
        morphs,
    )
