"""Bring a database up to date at start-up: system migrations, then additive content sync.

Additive means: missing tables, columns and indexes are created; nothing is ever dropped.
A column whose attribute left the model stays (its data is kept) and is reported in the log.
Several workers may start at once, so the whole step runs under one lock (a PostgreSQL
advisory lock; ``BEGIN IMMEDIATE`` on SQLite).

An index a model asks for on a table that already exists is built on PostgreSQL after that
transaction, with ``CREATE INDEX CONCURRENTLY`` (it cannot run inside one): the table stays
writable while a large one is indexed (by the processes already serving it during a rolling
deployment), where a plain ``CREATE INDEX`` would hold its writes for the whole build. One
process builds at a time (a session advisory lock); an index a failed build left invalid is
dropped and built again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sqlalchemy import Connection, Index, Table, inspect, text
from sqlalchemy.schema import CreateIndex

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
    #: indexes of existing tables left to build after the transaction (``CONCURRENTLY``)
    deferred_indexes: list[Index] = field(default_factory=list)


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


_INVALID_INDEXES = text(
    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "JOIN pg_class t ON t.oid = i.indrelid "
    "WHERE t.relname = :table AND pg_table_is_visible(t.oid) AND NOT i.indisvalid"
)


_INDEX_VALIDITY = text(
    "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "WHERE c.relname = :name AND pg_table_is_visible(c.oid)"
)


def _invalid_indexes(connection: Connection, table: str) -> set[str]:
    """The indexes of ``table`` PostgreSQL does not use: left by a ``CONCURRENTLY`` build that
    failed or was interrupted."""
    return set(connection.execute(_INVALID_INDEXES, {"table": table}).scalars())


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
    concurrently = dialect_of(connection).builds_indexes_concurrently
    if concurrently:  # one a failed build left is listed, and is built again
        index_names -= _invalid_indexes(connection, table.name)
    for index in table.indexes:
        if index.name in index_names:
            continue
        if concurrently:
            report.deferred_indexes.append(index)
        else:
            index.create(connection)
            report.created_indexes.append(str(index.name))


def _sync(connection: Connection, tables: ContentTables) -> SyncReport:
    dialect_of(connection).lock_schema(connection, _LOCK_KEY)
    migrate_system(connection, [table.name for table in tables.metadata.sorted_tables])
    report = SyncReport()
    for table in tables.metadata.sorted_tables:
        _sync_table(connection, table, report)
    return report


_INDEX_LOCK_KEY = 0x696E6478  # "indx": one process builds indexes at a time


def _build_concurrently(connection: Connection, indexes: list[Index]) -> list[str]:
    """Build ``indexes`` with ``CREATE INDEX CONCURRENTLY`` on an autocommit connection; the
    names of those this call built (another process may have built some first)."""
    built: list[str] = []
    connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _INDEX_LOCK_KEY})
    # a large table may rightly take long: the statement timeout is for requests
    connection.execute(text("SET statement_timeout = 0"))
    try:
        for index in indexes:
            valid = connection.execute(_INDEX_VALIDITY, {"name": index.name}).scalar()
            if valid:
                continue
            if valid is False:  # left by a build that failed or was interrupted
                name = connection.dialect.identifier_preparer.quote(str(index.name))
                connection.execute(text(f"DROP INDEX CONCURRENTLY {name}"))
            # the models' Index stays as it is (a new table creates it in its transaction)
            create = str(CreateIndex(index).compile(dialect=connection.dialect))
            connection.execute(text(create.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1)))
            built.append(str(index.name))
    finally:
        connection.execute(text("RESET statement_timeout"))
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _INDEX_LOCK_KEY})
    return built


async def sync_database(database: Database, tables: ContentTables) -> SyncReport:
    """Run migrations and the additive sync in one transaction, then build the indexes left
    for after it (module doc); log what changed."""
    async with database.write() as conn:
        report = await conn.run_sync(_sync, tables)
    if report.deferred_indexes:
        async with database.engine.connect() as conn:
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            built = await autocommit.run_sync(_build_concurrently, report.deferred_indexes)
        report.created_indexes += built
        for name in built:
            log.info("built index %s (concurrently)", name)
    for name in report.created_tables:
        log.info("created table %s", name)
    for name in report.added_columns:
        log.info("added column %s", name)
    for name in report.orphan_columns:
        log.warning("column %s is no longer in the models; kept with its data", name)
    return report
