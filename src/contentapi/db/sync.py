"""Bring a database up to date at start-up: system migrations, then additive content sync.

Additive means: missing tables, columns and indexes are created; nothing is ever dropped.
A column whose attribute left the model stays (its data is kept) and is reported in the log.
Several workers may start at once, so the whole step runs under one lock (a PostgreSQL
advisory lock; ``BEGIN IMMEDIATE`` on SQLite).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sqlalchemy import Connection, Table, inspect, text

from contentapi.db.dialect import dialect_of
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables

__all__ = ["SyncReport", "migrate_system", "sync_database"]

log = logging.getLogger("contentapi.db")
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
_LOCK_KEY = 0x636F6E74  # "cont": one advisory lock id for start-up sync


@dataclass(slots=True)
class SyncReport:
    """What a sync did: created tables and columns, and columns kept although unmodelled."""

    created_tables: list[str] = field(default_factory=list)
    added_columns: list[str] = field(default_factory=list)
    created_indexes: list[str] = field(default_factory=list)
    orphan_columns: list[str] = field(default_factory=list)


def migrate_system(connection: Connection, content_tables: Sequence[str] | None = None) -> None:
    """Apply the alembic migrations of the system tables on ``connection``.

    ``content_tables`` (the models' tables) is handed to the data migrations that fix values
    in content tables (``0003``): they run before this sync creates missing tables and
    columns, which is right, as what the sync creates is empty.
    """
    if _current_revision(connection) == head_revision():
        return  # nothing to apply: alembic (12 MB per worker process) is not even imported
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    if content_tables is not None:
        config.attributes["content_tables"] = list(content_tables)
    command.upgrade(config, "head")


_REVISION = re.compile(r"^(down_revision|revision)\s*=\s*(?:\"([^\"]*)\"|None)", re.MULTILINE)


@cache
def head_revision() -> str:
    """The newest migration's revision, read from ``migrations/versions`` (one linear chain:
    the revision no other migration names as its ``down_revision``)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        for kind, value in _REVISION.findall(path.read_text(encoding="utf-8")):
            (revisions if kind == "revision" else parents).add(value)
    heads = revisions - parents
    if len(heads) != 1:
        raise RuntimeError(f"the migrations must form one chain; heads found: {sorted(heads)}")
    return heads.pop()


def _current_revision(connection: Connection) -> str | None:
    """The revision alembic last recorded in this database (``None``: none yet)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _sync_table(connection: Connection, table: Table, report: SyncReport) -> None:
    inspector = inspect(connection)
    if not inspector.has_table(table.name):
        table.create(connection)
        report.created_tables.append(table.name)
        return
    existing = {column["name"] for column in inspector.get_columns(table.name)}
    preparer = connection.dialect.identifier_preparer
    for column in table.columns:
        if column.name in existing:
            continue
        column_type = column.type.compile(dialect=connection.dialect)
        connection.execute(
            text(
                f"ALTER TABLE {preparer.format_table(table)} "
                f"ADD COLUMN {preparer.format_column(column)} {column_type}"
            )
        )
        report.added_columns.append(f"{table.name}.{column.name}")
    modelled = {column.name for column in table.columns}
    report.orphan_columns += [f"{table.name}.{name}" for name in sorted(existing - modelled)]
    index_names = {index["name"] for index in inspector.get_indexes(table.name)}
    for index in table.indexes:
        if index.name not in index_names:
            index.create(connection)
            report.created_indexes.append(str(index.name))


def _sync(connection: Connection, tables: ContentTables) -> SyncReport:
    dialect_of(connection).lock_schema(connection, _LOCK_KEY)
    migrate_system(connection, [table.name for table in tables.metadata.sorted_tables])
    report = SyncReport()
    for table in tables.metadata.sorted_tables:
        _sync_table(connection, table, report)
    return report


async def sync_database(database: Database, tables: ContentTables) -> SyncReport:
    """Run migrations and the additive sync in one transaction; log what changed."""
    async with database.write() as conn:
        report = await conn.run_sync(_sync, tables)
    for name in report.created_tables:
        log.info("created table %s", name)
    for name in report.added_columns:
        log.info("added column %s", name)
    for name in report.orphan_columns:
        log.warning("column %s is no longer in the models; kept with its data", name)
    return report
