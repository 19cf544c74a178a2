"""JSON attributes set to ``null``: the JSON literal ``null`` becomes SQL ``NULL``.

Strapi stores a JSON attribute sent as ``null`` as SQL ``NULL``, so ``filters[a][$null]=true``
finds it; contentapi wrote the JSON literal ``null`` until the entry writer learned otherwise
(``entries.row_values.row_values``). This data migration turns the literals already stored into
SQL ``NULL``.

Why here, and why it is enough to run once: start-up runs the alembic migrations and then
the additive content sync in one transaction under one lock (``db.sync``). Migrations do not
know the models, so the sync hands the names of the content tables over in
``config.attributes["content_tables"]``; the JSON columns are read from the database itself.
A content table or column the sync creates afterwards is new and holds no JSON literal, and
nothing writes one any more, so the tables and columns that exist when this runs are all
that can need the fix — a step in the sync repeating it at every start would scan every JSON
column each time for nothing. Run without the hand-over (plain ``alembic upgrade head``), it
fixes every nullable JSON column of the database: Strapi and contentapi both read a JSON
``null`` and SQL ``NULL`` as ``null``, so only ``$null`` / ``$notNull`` can tell them apart.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _json_null(column: str, dialect: str) -> str:
    """SQL true when ``column`` holds the JSON literal ``null`` (malformed text is left)."""
    if dialect == "postgresql":
        return f"jsonb_typeof({column}::jsonb) = 'null'"
    return f"CASE WHEN json_valid({column}) THEN json_type({column}) END = 'null'"


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    existing = set(inspector.get_table_names())
    handed_over = context.config.attributes.get("content_tables")
    tables = existing if handed_over is None else existing & set(handed_over)
    quote = bind.dialect.identifier_preparer.quote
    for table in sorted(tables):
        for column in inspector.get_columns(table):
            if not column["nullable"] or not isinstance(column["type"], sa.JSON):
                continue
            name = quote(column["name"])
            bind.execute(
                sa.text(
                    f"UPDATE {quote(table)} SET {name} = NULL "
                    f"WHERE {_json_null(name, bind.dialect.name)}"
                )
            )


def downgrade() -> None:
    """Nothing to undo: SQL ``NULL`` is what a JSON attribute set to ``null`` holds."""
